package github

import (
	"net/http"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/gitworld"
)

// Protocol claims git's smart HTTP paths, /OWNER/REPO.git/info/refs,
// /git-upload-pack and /git-receive-pack, as GitHub serves them beside
// its API; a push writes the session's git.
func (Dialect) Protocol(method, path string) (ok, writes bool) {
	_, op, ok := gitworld.ParsePath(path)
	if !ok {
		return false, false
	}
	return true, op == "git-receive-pack" && method == http.MethodPost
}

// ServeProtocol serves git from the session's world. A repository the
// session does not hold is 401 to a request without credentials, as
// GitHub answers for a repository it will not show a stranger: git sends
// its credentials, and with them the session their .wraith. suffix
// names, only once asked. With credentials it is 404.
func (Dialect) ServeProtocol(w http.ResponseWriter, r *http.Request, a dialect.Attachment) {
	world := World(a)
	name, _, _ := gitworld.ParsePath(r.URL.Path)
	if world == nil || !holds(world, name) {
		if r.Header.Get("Authorization") == "" {
			w.Header().Set("WWW-Authenticate", `Basic realm="GitHub"`)
			http.Error(w, "Authentication required: send the token whose .wraith.SESSION suffix names your session, or name it in the path (/__s/SESSION/OWNER/REPO.git)", http.StatusUnauthorized)
			return
		}
		http.Error(w, "Repository not found.", http.StatusNotFound)
		return
	}
	world.Handler().ServeHTTP(w, r)
}

func holds(w *gitworld.World, name string) bool {
	_, err := w.Repo(name)
	return err == nil
}
