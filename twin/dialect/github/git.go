package github

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/gitworld"
	"github.com/wraithdev/wraith/twin/object"
)

// A session of a GitHub twin holds real git repositories
// (twin/gitworld), as its dialect.Attachment, and the REST routes that are
// git (contents, git data, refs, commits, compare, branches) answer from
// them. A repository's git world is made when the engine creates the
// repository entity (Answered): the entity stays the engine's, its git
// is the dialect's. A request about a repository that has no git world
// (one of a fixture, say) is declined, and the engine answers it as it
// would without one.

// Login is the twin's one user: the owner of what POST /user/repos makes
// (the overlay's parent_defaults), and the author and committer of the
// commits a request does not name one for.
const Login = "wraith-user"

// identity is the session's git identity at unix time now.
func identity(now int64) gitworld.Signature {
	return gitworld.Signature{Name: Login, Email: Login + "@users.noreply.github.com", When: time.Unix(now, 0).UTC()}
}

// repos is a session's git world as its attachment.
type repos struct{ *gitworld.World }

func (r repos) Fork() dialect.Attachment { return repos{r.World.Fork()} }

// NewAttachment is a session's empty git world.
func (Dialect) NewAttachment() dialect.Attachment { return repos{gitworld.New(gitworld.Limits{})} }

// RestoreAttachment reads a git world a snapshot carries.
func (Dialect) RestoreAttachment(data []byte) (dialect.Attachment, error) {
	w, err := gitworld.Restore(data, gitworld.Limits{})
	if err != nil {
		return nil, err
	}
	return repos{w}, nil
}

// World returns the git world of a session's attachment, nil for none.
func World(a dialect.Attachment) *gitworld.World {
	if r, ok := a.(repos); ok {
		return r.World
	}
	return nil
}

// gitCall is one request to a git route, with its repository.
type gitCall struct {
	*dialect.Call
	repo *gitworld.Repo
	base string // the API's origin, where the answer's URLs lead: "http://host[/__s/name]"
	full string // the repository's "owner/name" as created
}

type gitHandler func(g *gitCall) dialect.Answer

// gitRoute is the handler of a git route, nil for another route.
func gitRoute(route string) gitHandler {
	const r = "/repos/{owner}/{repo}"
	switch route {
	case "GET " + r + "/contents/{path...}":
		return getContents
	case "PUT " + r + "/contents/{path...}":
		return putContents
	case "DELETE " + r + "/contents/{path...}":
		return deleteContents
	case "GET " + r + "/git/ref/{ref...}", "GET " + r + "/git/refs/{ref...}":
		return getRef
	case "GET " + r + "/git/refs", "GET " + r + "/git/matching-refs/{ref...}":
		return listRefs
	case "POST " + r + "/git/refs":
		return createRef
	case "PATCH " + r + "/git/refs/{ref...}":
		return updateRef
	case "DELETE " + r + "/git/refs/{ref...}":
		return deleteRef
	case "POST " + r + "/git/blobs":
		return createBlob
	case "GET " + r + "/git/blobs/{file_sha}":
		return getBlob
	case "POST " + r + "/git/tags":
		return createTag
	case "GET " + r + "/git/tags/{tag_sha}":
		return getTag
	case "POST " + r + "/git/trees":
		return createTree
	case "GET " + r + "/git/trees/{tree_sha...}":
		return getTree
	case "POST " + r + "/git/commits":
		return createCommit
	case "GET " + r + "/git/commits/{commit_sha...}":
		return getGitCommit
	case "GET " + r + "/commits":
		return listCommits
	case "GET " + r + "/commits/{ref...}":
		return getCommit
	case "GET " + r + "/compare/{basehead...}", "GET " + r + "/compare/{base_head}":
		return compare
	case "GET " + r + "/branches":
		return listBranches
	case "GET " + r + "/branches/{branch...}":
		return getBranch
	case "GET " + r + "/tags":
		return listTags
	case "POST " + r + "/releases":
		return createRelease
	case "GET " + r + "/releases":
		return listReleases
	case "GET " + r + "/releases/latest":
		return latestRelease
	case "GET " + r + "/releases/tags/{tag...}":
		return getReleaseByTag
	case "GET " + r + "/releases/{release_id}":
		return getRelease
	case "DELETE " + r + "/releases/{release_id}":
		return deleteRelease
	}
	return nil
}

// pullHandler answers a pull request route from git, or declines for
// the engine to answer it (ok false).
type pullHandler func(g *gitCall) (a dialect.Answer, ok bool)

// pullRoute is the handler of a pull request route git has a say in.
func pullRoute(route string) pullHandler {
	const r = "/repos/{owner}/{repo}/pulls"
	switch route {
	case "POST " + r:
		return createPull
	case "GET " + r + "/{pull_number}/files":
		return pullFiles
	case "GET " + r + "/{pull_number}/commits":
		return pullCommits
	case "PUT " + r + "/{pull_number}/merge":
		return checkMerge
	case "GET " + r + "/{pull_number}":
		return getPull
	case "GET " + r:
		return listPulls
	}
	return nil
}

// Handles reports whether route is one the session's git answers.
func (Dialect) Handles(route string) bool {
	return gitRoute(route) != nil || pullRoute(route) != nil || entityRoute(route) != nil
}

// Handle answers a git route from the session's git world, or declines
// when the repository has none.
func (Dialect) Handle(c *dialect.Call) (dialect.Answer, bool) {
	if h := entityRoute(c.Route); h != nil {
		if c.Each == nil || c.Method != http.MethodGet {
			return dialect.Answer{}, false
		}
		return h(c)
	}
	w := World(c.Attachment)
	if w == nil {
		return dialect.Answer{}, false
	}
	repo, err := w.Repo(c.Path("owner") + "/" + c.Path("repo"))
	if err != nil {
		return dialect.Answer{}, false
	}
	g := &gitCall{Call: c, repo: repo, base: c.Here.Origin(), full: repo.Name()}
	if p := pullRoute(c.Route); p != nil {
		// A repository whose git has no branch yet (made without
		// auto_init, nothing pushed) has nothing to say of its pull
		// requests: they stay the engine's alone, as before it had git.
		if heads, err := repo.Refs("refs/heads/"); err != nil || len(heads) == 0 {
			return dialect.Answer{}, false
		}
		return p(g)
	}
	h := gitRoute(c.Route)
	if h == nil {
		return dialect.Answer{}, false
	}
	// Releases and tags name commits: a repository with none leaves
	// them to the engine, as its pull requests.
	if strings.Contains(c.Route, "/releases") {
		if heads, err := repo.Refs("refs/heads/"); err != nil || len(heads) == 0 {
			return dialect.Answer{}, false
		}
	}
	a := h(g)
	if a.Status == 0 {
		return dialect.Answer{}, false // the handler declined: the engine's answer, its not-found
	}
	if c.Method == http.MethodGet {
		a = readAnswer(c.Route, a)
	}
	a.Changed = c.Method != http.MethodGet && a.Status < 300
	return a, true
}

// readAnswer is a read's refusal as GitHub words it: a read names what it
// reads, so a sha or ref that names nothing, or one that is no sha at
// all, is 404 Not Found, not a write's 422; the contents and compare of a
// repository with no commit yet are 404 This repository is empty (the git
// data API's 409 Git Repository is empty stays).
func readAnswer(route string, a dialect.Answer) dialect.Answer {
	switch {
	case a.Status == http.StatusUnprocessableEntity && !strings.HasSuffix(route, "/commits"): // a list's since= is a query's 422
		return message(http.StatusNotFound, "Not Found")
	case a.Status == http.StatusConflict && (strings.Contains(route, "/contents/") || strings.Contains(route, "/compare/")):
		return message(http.StatusNotFound, "This repository is empty.")
	}
	return a
}

// Follows: the writes whose answers change the session's git.
func (Dialect) Follows(route string) bool {
	switch route {
	case "POST /user/repos", "POST /orgs/{org}/repos", "PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge", "DELETE /repos/{owner}/{repo}":
		return true
	}
	return authored(route)
}

// authored reports whether route creates what GitHub answers with its
// author as user: an issue, a pull request, a comment.
func authored(route string) bool {
	switch route {
	case "POST /repos/{owner}/{repo}/issues", "POST /repos/{owner}/{repo}/pulls", "POST /repos/{owner}/{repo}/issues/{issue_number}/comments":
		return true
	}
	return false
}

// withUser is body with its user the session's one user when the
// engine's entity names none, nil when it names one.
func withUser(body []byte, base string) []byte {
	m, err := decodeJSON(body)
	if err != nil || m == nil {
		return nil
	}
	if _, ok := m["user"]; !ok || !noUser(m["user"]) {
		return nil
	}
	m["user"] = sessionUser(base)
	out, err := json.Marshal(m)
	if err != nil {
		return nil
	}
	return out
}

// Answered makes or removes a repository's git world as the engine
// creates or deletes the repository entity.
func (Dialect) Answered(c *dialect.Call, status int, body []byte) []byte {
	switch c.Route {
	case "POST /user/repos", "POST /orgs/{org}/repos":
		var made struct {
			FullName      string `json:"full_name"`
			DefaultBranch string `json:"default_branch"`
		}
		if json.Unmarshal(body, &made) != nil || made.FullName == "" {
			return nil
		}
		var sent struct {
			AutoInit bool `json:"auto_init"`
		}
		_ = json.Unmarshal(c.Body, &sent) // a form or no body: no auto_init
		w := World(c.Attach())
		if w == nil {
			return nil
		}
		// A name taken already (a repository deleted and made again in
		// the session) starts over, as GitHub's does.
		_ = w.DeleteRepo(made.FullName)
		_, _ = w.CreateRepo(made.FullName, gitworld.RepoOptions{DefaultBranch: made.DefaultBranch, AutoInit: sent.AutoInit, Author: identity(c.Now)})
		// The answer carries the URLs and owner a read of it will.
		if m, err := decodeJSON(body); err == nil && m != nil {
			completeRepo(m, c.Here.Origin(), 0)
			if out, err := json.Marshal(m); err == nil {
				return out
			}
		}
	case "PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge":
		return mergePull(c, body)
	case "DELETE /repos/{owner}/{repo}":
		if w := World(c.Attachment); w != nil {
			_ = w.DeleteRepo(c.Path("owner") + "/" + c.Path("repo"))
		}
	default:
		if authored(c.Route) {
			return withUser(body, c.Here.Origin())
		}
	}
	return nil
}

// gitError is a gitworld error as GitHub answers it.
func gitError(err error) dialect.Answer {
	status, msg := http.StatusInternalServerError, err.Error()
	switch {
	case errors.Is(err, gitworld.ErrNotFound):
		status, msg = http.StatusNotFound, "Not Found"
	case errors.Is(err, gitworld.ErrEmpty):
		status, msg = http.StatusConflict, "Git Repository is empty."
	case errors.Is(err, gitworld.ErrExists):
		status, msg = http.StatusUnprocessableEntity, "Reference already exists"
	case errors.Is(err, gitworld.ErrNotFastForward):
		status, msg = http.StatusUnprocessableEntity, "Update is not a fast forward"
	case errors.Is(err, gitworld.ErrStaleSHA):
		status = http.StatusConflict
		msg = strings.TrimPrefix(msg, "gitworld: ")
	case errors.Is(err, gitworld.ErrSHARequired):
		status, msg = http.StatusUnprocessableEntity, "Invalid request.\n\n\"sha\" wasn't supplied."
	case errors.Is(err, gitworld.ErrConflict):
		status, msg = http.StatusConflict, "Merge conflict"
	case errors.Is(err, gitworld.ErrInvalid), errors.Is(err, gitworld.ErrBlobTooLarge):
		status, msg = http.StatusUnprocessableEntity, strings.TrimPrefix(msg, "gitworld: ")
	case errors.Is(err, gitworld.ErrTooManyObjects):
		status, msg = http.StatusInsufficientStorage, strings.TrimPrefix(msg, "gitworld: ")
	}
	return message(status, msg)
}

// message is GitHub's error body.
func message(status int, msg string) dialect.Answer {
	b, _ := json.Marshal(map[string]string{"message": msg, "documentation_url": "https://docs.github.com/rest"})
	return dialect.Answer{Status: status, Body: b}
}

// answer is v as JSON with status.
func answer(status int, v any) dialect.Answer {
	b, err := json.Marshal(v)
	if err != nil {
		return message(http.StatusInternalServerError, "encode the answer: "+err.Error())
	}
	return dialect.Answer{Status: status, Body: b}
}

// str is the string parameter name, "" when absent or not a string.
func (g *gitCall) str(name string) string {
	s, _ := g.Params[name].(string)
	return s
}

// noUser reports whether v, an entity's user, names nobody: the
// skeleton's null, or its user object with no login.
func noUser(v any) bool {
	if v == nil {
		return true
	}
	u, ok := v.(map[string]any)
	login, _ := u["login"].(string)
	return ok && login == ""
}

// Complete makes the session's one user the author of what it creates
// (an issue, a pull request, a comment), kept with it, so that every
// read and list names the author as the create's answer does.
func (Dialect) Complete(n dialect.New) {
	if !authored(n.Route) {
		return
	}
	v, has := n.Object.Get("user")
	if !has {
		return
	}
	if u, ok := v.(*object.Object); v != nil && (!ok || u.String("login") != "") {
		return // an author the entity names already
	}
	n.Object.Set("user", User(n.Here.Origin(), Login))
}
