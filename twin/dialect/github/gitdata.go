package github

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/gitworld"
)

// Git data: /git/blobs, /git/trees, /git/commits and /git/refs.

func parseTime(s string) (time.Time, error) { return time.Parse(time.RFC3339, s) }

func sigJSON(s gitworld.Signature) map[string]any {
	return map[string]any{"name": s.Name, "email": s.Email, "date": s.When.UTC().Format(time.RFC3339)}
}

func unsigned() map[string]any {
	return map[string]any{"verified": false, "reason": "unsigned", "signature": nil, "payload": nil, "verified_at": nil}
}

// gitCommitJSON is a commit as the git data API gives it.
func (g *gitCall) gitCommitJSON(c gitworld.Commit) map[string]any {
	parents := make([]map[string]any, len(c.Parents))
	for i, p := range c.Parents {
		parents[i] = map[string]any{"sha": p, "url": g.api("/git/commits/" + p), "html_url": g.html("/commit/" + p)}
	}
	return map[string]any{
		"sha": c.SHA, "node_id": "C_" + c.SHA, "url": g.api("/git/commits/" + c.SHA), "html_url": g.html("/commit/" + c.SHA),
		"author": sigJSON(c.Author), "committer": sigJSON(c.Committer), "message": strings.TrimSuffix(c.Message, "\n"),
		"tree":    map[string]any{"sha": c.Tree, "url": g.api("/git/trees/" + c.Tree)},
		"parents": parents, "verification": unsigned(),
	}
}

func (g *gitCall) refJSON(r gitworld.Ref) map[string]any {
	kind := "commits"
	if r.Type == "tag" {
		kind = "tags"
	}
	return map[string]any{
		"ref": r.Name, "node_id": "REF_" + r.Name, "url": g.api("/git/" + r.Name),
		"object": map[string]any{"type": r.Type, "sha": r.SHA, "url": g.api("/git/" + kind + "/" + r.SHA)},
	}
}

// getRef answers a reference. The older path, git/refs/{ref} (plural),
// answers as GitHub documents it: no ref lists every reference, and a ref
// that is no reference but begins some (heads/feat of heads/feat-a and
// heads/feat-b) lists those, an array; git/ref/{ref} answers only one.
func getRef(g *gitCall) dialect.Answer {
	name := g.Path("ref")
	legacy := strings.Contains(g.Route, "/git/refs/")
	if legacy && name == "" {
		return listRefs(g)
	}
	r, err := g.repo.Ref(name)
	if legacy && errors.Is(err, gitworld.ErrNotFound) {
		if refs, _ := g.repo.Refs("refs/" + name); len(refs) > 0 {
			return listRefs(g)
		}
	}
	if err != nil {
		return gitError(err)
	}
	return answer(http.StatusOK, g.refJSON(r))
}

func listRefs(g *gitCall) dialect.Answer {
	prefix := "refs/"
	if p := g.Path("ref"); p != "" {
		prefix += p
	}
	refs, err := g.repo.Refs(prefix)
	if err != nil {
		return gitError(err)
	}
	out := make([]map[string]any, 0, len(refs))
	for _, r := range refs {
		out = append(out, g.refJSON(r))
	}
	return answer(http.StatusOK, out)
}

func createRef(g *gitCall) dialect.Answer {
	name, sha := g.str("ref"), g.str("sha")
	if !strings.HasPrefix(name, "refs/") || strings.Count(name, "/") < 2 {
		return message(http.StatusUnprocessableEntity, "Reference name must start with 'refs/' and have at least two slashes.")
	}
	r, err := g.repo.CreateRef(name, sha)
	if err != nil {
		return refError(err)
	}
	return answer(http.StatusCreated, g.refJSON(r))
}

func updateRef(g *gitCall) dialect.Answer {
	force, _ := g.Params["force"].(bool)
	r, err := g.repo.UpdateRef(g.Path("ref"), g.str("sha"), force)
	if err != nil {
		if errors.Is(err, gitworld.ErrNotFound) && !g.refExists(g.Path("ref")) {
			return message(http.StatusUnprocessableEntity, "Reference does not exist")
		}
		return refError(err)
	}
	return answer(http.StatusOK, g.refJSON(r))
}

// refError is a reference write's refusal: a sha that names nothing is
// GitHub's 422 Object does not exist, not a 404 of the route.
func refError(err error) dialect.Answer {
	if errors.Is(err, gitworld.ErrNotFound) {
		return message(http.StatusUnprocessableEntity, "Object does not exist")
	}
	return gitError(err)
}

func (g *gitCall) refExists(name string) bool {
	_, err := g.repo.Ref(name)
	return err == nil
}

func deleteRef(g *gitCall) dialect.Answer {
	if err := g.repo.DeleteRef(g.Path("ref")); err != nil {
		if a := gitError(err); a.Status == http.StatusNotFound {
			return message(http.StatusUnprocessableEntity, "Reference does not exist")
		}
		return gitError(err)
	}
	return dialect.Answer{Status: http.StatusNoContent}
}

func createBlob(g *gitCall) dialect.Answer {
	data := []byte(g.str("content"))
	if g.str("encoding") == "base64" {
		var err error
		if data, err = base64.StdEncoding.DecodeString(strings.ReplaceAll(g.str("content"), "\n", "")); err != nil {
			return message(http.StatusUnprocessableEntity, "content is not valid Base64")
		}
	}
	sha, err := g.repo.WriteBlob(data)
	if err != nil {
		return gitError(err)
	}
	return answer(http.StatusCreated, map[string]any{"sha": sha, "url": g.api("/git/blobs/" + sha)})
}

func getBlob(g *gitCall) dialect.Answer {
	sha := g.Path("file_sha")
	data, err := g.repo.Blob(sha)
	if err != nil {
		return gitError(err)
	}
	return answer(http.StatusOK, map[string]any{
		"sha": sha, "node_id": "B_" + sha, "size": len(data), "url": g.api("/git/blobs/" + sha),
		"content": wrap60(base64.StdEncoding.EncodeToString(data)), "encoding": "base64",
	})
}

func (g *gitCall) treeJSON(sha string, entries []gitworld.TreeEntry, truncated bool) map[string]any {
	list := make([]map[string]any, len(entries))
	for i, e := range entries {
		kind := "blobs"
		switch e.Type {
		case "tree":
			kind = "trees"
		case "commit":
			kind = "commits"
		}
		m := map[string]any{"path": e.Path, "mode": e.Mode, "type": e.Type, "sha": e.SHA, "url": g.api("/git/" + kind + "/" + e.SHA)}
		if e.Type == "blob" {
			m["size"] = e.Size
		}
		list[i] = m
	}
	return map[string]any{"sha": sha, "url": g.api("/git/trees/" + sha), "tree": list, "truncated": truncated}
}

func createTree(g *gitCall) dialect.Answer {
	items, _ := g.Params["tree"].([]any)
	changes := make([]gitworld.TreeChange, 0, len(items))
	for i, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			return message(http.StatusUnprocessableEntity, fmt.Sprintf("tree[%d] is not an object", i))
		}
		tc := gitworld.TreeChange{}
		tc.Path, _ = m["path"].(string)
		tc.Mode, _ = m["mode"].(string)
		sha, hasSHA := m["sha"]
		content, hasContent := m["content"].(string)
		switch {
		case hasSHA && sha == nil:
			tc.Delete = true
		case hasSHA:
			tc.SHA, _ = sha.(string)
		case hasContent:
			tc.Content = []byte(content)
		default:
			return message(http.StatusUnprocessableEntity, fmt.Sprintf("tree[%d] needs a sha or content", i))
		}
		changes = append(changes, tc)
	}
	sha, err := g.repo.WriteTree(g.str("base_tree"), changes)
	if err != nil {
		return gitError(err)
	}
	_, entries, truncated, err := g.repo.Tree(sha, false)
	if err != nil {
		return gitError(err)
	}
	return answer(http.StatusCreated, g.treeJSON(sha, entries, truncated))
}

func getTree(g *gitCall) dialect.Answer {
	recursive := g.str("recursive")
	sha, entries, truncated, err := g.repo.Tree(g.Path("tree_sha"), recursive != "" && recursive != "0" && recursive != "false")
	if err != nil {
		return gitError(err)
	}
	return answer(http.StatusOK, g.treeJSON(sha, entries, truncated))
}

func createCommit(g *gitCall) dialect.Answer {
	nc := gitworld.NewCommit{Tree: g.str("tree"), Message: g.str("message"), Author: g.signature("author")}
	nc.Committer = nc.Author
	if _, ok := g.Params["committer"]; ok {
		nc.Committer = g.signature("committer")
	}
	ps, _ := g.Params["parents"].([]any)
	for _, p := range ps {
		s, _ := p.(string)
		nc.Parents = append(nc.Parents, s)
	}
	c, err := g.repo.WriteCommit(nc)
	if err != nil {
		return gitError(err)
	}
	return answer(http.StatusCreated, g.gitCommitJSON(c))
}

func getGitCommit(g *gitCall) dialect.Answer {
	c, err := g.repo.Commit(g.Path("commit_sha"))
	if err != nil {
		return gitError(err)
	}
	return answer(http.StatusOK, g.gitCommitJSON(c))
}

func (g *gitCall) tagJSON(t gitworld.Tag) map[string]any {
	return map[string]any{
		"node_id": "TAG_" + t.SHA, "tag": t.Name, "sha": t.SHA, "url": g.api("/git/tags/" + t.SHA),
		"message": strings.TrimSuffix(t.Message, "\n"), "tagger": sigJSON(t.Tagger),
		"object":       map[string]any{"type": t.Type, "sha": t.Object, "url": g.api("/git/" + t.Type + "s/" + t.Object)},
		"verification": unsigned(),
	}
}

// createTag makes an annotated tag object; like GitHub, it makes no
// reference: POST git/refs names it refs/tags/NAME.
func createTag(g *gitCall) dialect.Answer {
	t, err := g.repo.WriteTag(gitworld.NewTag{Name: g.str("tag"), Message: g.str("message"), Object: g.str("object"), Tagger: g.signature("tagger")})
	if err != nil {
		return refError(err)
	}
	return answer(http.StatusCreated, g.tagJSON(t))
}

func getTag(g *gitCall) dialect.Answer {
	t, err := g.repo.Tag(g.Path("tag_sha"))
	if err != nil {
		return gitError(err)
	}
	return answer(http.StatusOK, g.tagJSON(t))
}
