package server

import (
	"net/http"

	"github.com/hashicorp/go-hclog"

	"github.com/wraithdev/wraith/twin/prov"
	"github.com/wraithdev/wraith/twin/session"
)

// requestLog returns the watcher of finished application requests (see
// session.Store.OnEntry) that logs them: a miss at info, since a miss is
// coverage an agent needed and the twin lacks, and every request at debug.
// With debug off, a request that is not a miss costs one comparison and
// one level check, and allocates nothing.
func requestLog(log hclog.Logger) func(string, *session.Entry) {
	return func(name string, e *session.Entry) {
		if e.Provenance == prov.Miss {
			log.Info("miss", "session", name, "method", e.Method, "path", e.Path, "route", e.Route, "status", e.Status, "duration", e.Latency)
			return
		}
		if !log.IsDebug() {
			return
		}
		log.Debug("request", "session", name, "method", e.Method, "path", e.Path, "route", e.Route,
			"status", e.Status, "provenance", e.Provenance, "duration", e.Latency)
	}
}

// asGet returns a HEAD request as the GET it stands for. The engine then
// answers it as it answers GET, in every provenance, and net/http sends
// the headers, Content-Length included, without the body.
func asGet(r *http.Request) *http.Request {
	g := new(http.Request)
	*g = *r
	g.Method = http.MethodGet
	return g
}
