package github

import (
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/gitworld"
)

// The contents API, GitHub's /repos/{owner}/{repo}/contents/{path}.

// api is the REST URL of p under the repository.
func (g *gitCall) api(p string) string { return g.base + "/repos/" + g.full + p }

// html is the web URL of p under the repository.
func (g *gitCall) html(p string) string { return g.base + "/" + g.full + p }

// contentJSON is a file or directory entry as the contents API gives it;
// data adds the file's content, base64 in lines of 60 as GitHub writes it.
func (g *gitCall) contentJSON(c gitworld.Content, ref string, data bool) map[string]any {
	self := g.api("/contents/" + escapePath(c.Path) + "?ref=" + url.QueryEscape(ref))
	kind := "blobs"
	if c.Type == "dir" {
		kind = "trees"
	}
	gitURL := g.api("/git/" + kind + "/" + c.SHA)
	htmlURL := g.html("/blob/" + ref + "/" + escapePath(c.Path))
	var download any
	if c.Type == "dir" {
		htmlURL = g.html("/tree/" + ref + "/" + escapePath(c.Path))
	} else {
		download = g.html("/raw/" + ref + "/" + escapePath(c.Path))
	}
	out := map[string]any{
		"type": c.Type, "name": c.Name, "path": c.Path, "sha": c.SHA, "size": c.Size,
		"url": self, "git_url": gitURL, "html_url": htmlURL, "download_url": download,
		"_links": map[string]any{"self": self, "git": gitURL, "html": htmlURL},
	}
	if data && c.Type == "file" {
		out["encoding"] = "base64"
		out["content"] = wrap60(base64.StdEncoding.EncodeToString(c.Data))
	}
	return out
}

func wrap60(s string) string {
	var b strings.Builder
	for len(s) > 60 {
		b.WriteString(s[:60])
		b.WriteByte('\n')
		s = s[60:]
	}
	b.WriteString(s)
	b.WriteByte('\n')
	return b.String()
}

func escapePath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}

// ref is the request's ref (a branch, tag or sha), the default branch
// when none is sent.
func (g *gitCall) ref(param string) string {
	if r := g.str(param); r != "" {
		return r
	}
	return g.repo.DefaultBranch()
}

func getContents(g *gitCall) dialect.Answer {
	ref := g.ref("ref")
	c, err := g.repo.Content(ref, g.Path("path"))
	if err != nil {
		return gitError(err)
	}
	if c.Type != "dir" {
		return answer(http.StatusOK, g.contentJSON(c, ref, true))
	}
	list := make([]map[string]any, len(c.Entries))
	for i, e := range c.Entries {
		list[i] = g.contentJSON(e, ref, false)
	}
	return answer(http.StatusOK, list)
}

// fileChange is a contents write's parameters.
func (g *gitCall) fileChange() (gitworld.FileChange, *dialect.Answer) {
	fc := gitworld.FileChange{
		Branch: g.str("branch"), Path: strings.Trim(g.Path("path"), "/"), SHA: g.str("sha"),
		Message: g.str("message"), Author: g.signature("author"), Committer: g.signature("committer"),
	}
	if fc.Message == "" {
		a := validationFailed("message", "missing_field")
		return fc, &a
	}
	return fc, nil
}

// signature is a request's author or committer object, the session's
// identity where it names none.
func (g *gitCall) signature(param string) gitworld.Signature {
	s := identity(g.Now)
	m, _ := g.Params[param].(map[string]any)
	if v, _ := m["name"].(string); v != "" {
		s.Name = v
	}
	if v, _ := m["email"].(string); v != "" {
		s.Email = v
	}
	// A date the request names is the commit's, as GitHub takes it; the
	// session's clock otherwise, so shas stay deterministic.
	if v, _ := m["date"].(string); v != "" {
		if t, err := parseTime(v); err == nil {
			s.When = t
		}
	}
	return s
}

func putContents(g *gitCall) dialect.Answer {
	fc, bad := g.fileChange()
	if bad != nil {
		return *bad
	}
	data, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(g.str("content"), "\n", ""))
	if err != nil {
		return message(http.StatusUnprocessableEntity, "content is not valid Base64")
	}
	fc.Content = data
	res, err := g.repo.PutFile(fc)
	if err != nil {
		return g.fileError(fc, err)
	}
	branch := fc.Branch
	if branch == "" {
		branch = g.repo.DefaultBranch()
	}
	status := http.StatusOK
	if res.Created {
		status = http.StatusCreated
	}
	c := gitworld.Content{Type: "file", Name: path.Base(fc.Path), Path: fc.Path, SHA: res.SHA, Size: res.Size}
	return answer(status, map[string]any{"content": g.contentJSON(c, branch, false), "commit": g.gitCommitJSON(res.Commit)})
}

func deleteContents(g *gitCall) dialect.Answer {
	fc, bad := g.fileChange()
	if bad != nil {
		return *bad
	}
	res, err := g.repo.DeleteFile(fc)
	if err != nil {
		return g.fileError(fc, err)
	}
	return answer(http.StatusOK, map[string]any{"content": nil, "commit": g.gitCommitJSON(res.Commit)})
}

// fileError is a contents write's refusal in GitHub's words.
func (g *gitCall) fileError(fc gitworld.FileChange, err error) dialect.Answer {
	if errors.Is(err, gitworld.ErrStaleSHA) {
		return message(http.StatusConflict, fc.Path+" does not match "+fc.SHA)
	}
	return gitError(err)
}

// validationFailed is GitHub's 422 for one field.
func validationFailed(field, code string) dialect.Answer {
	return answer(http.StatusUnprocessableEntity, map[string]any{
		"message": "Validation Failed", "documentation_url": "https://docs.github.com/rest",
		"errors": []map[string]string{{"resource": "Commit", "field": field, "code": code}},
	})
}
