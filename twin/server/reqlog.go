package server

import (
	"net/http"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wraithdev/wraith/internal/logcut"
	"github.com/wraithdev/wraith/twin/prov"
	"github.com/wraithdev/wraith/twin/session"
)

// Limits of the request log (docs/serving.md, Logs). A client decides the
// method and the path, so both are cut before they reach a log line, and
// a client that misses in a loop must not turn each miss into a line:
// under `wraith up` those lines land in a file on the user's disk.
const (
	// maxLogMethod and maxLogPath bound the method and the path a line
	// carries; a longer one is cut and its length logged beside it
	// (method_len, path_len).
	maxLogMethod = logcut.Method
	maxLogPath   = logcut.Path
	// missKeys bounds how many distinct methods and paths have their
	// misses counted; past it the counts start over.
	missKeys = 512
	// missLines miss lines at most are written per missWindow, whatever
	// the paths; the misses held back are counted in the next line
	// (unlogged).
	missLines  = 10
	missWindow = time.Second
)

// requestLog returns the watcher of finished application requests (see
// session.Store.OnEntry) that logs them: a miss at info, since a miss is
// coverage an agent needed and the twin lacks, and every request at debug.
// With debug off, a request that is not a miss costs one comparison and
// one level check, and allocates nothing. now is the clock of the miss
// budget.
func requestLog(log hclog.Logger, now func() time.Time) func(string, *session.Entry) {
	misses := &missLog{log: log, now: now, count: map[missKey]uint64{}}
	return func(name string, e *session.Entry) {
		if e.Provenance == prov.Miss {
			misses.miss(name, e)
			return
		}
		if !log.IsDebug() {
			return
		}
		args := []any{"session", name, "method", e.Method, "path", e.Path, "route", e.Route,
			"status", e.Status, "provenance", e.Provenance, "duration", e.Latency}
		log.Debug("request", cutFields(args)...)
	}
}

// missKey is one method and path, as logged (cut to the limits).
type missKey struct{ method, path string }

// missLog samples route misses. The first miss of a method and path is
// logged, then the 2nd, 4th, 8th... with repeated=K, so a client that
// repeats one miss forever writes a line per doubling; and at most
// missLines lines go out per missWindow, so a client that varies the path
// cannot write more either. A line held back by that budget is counted,
// and the next line that goes out says how many with unlogged=N.
type missLog struct {
	log hclog.Logger
	now func() time.Time

	mu       sync.Mutex
	count    map[missKey]uint64
	window   time.Time // start of the current budget window
	lines    int       // lines written in it
	unlogged uint64    // lines held back since the last one written
}

func (m *missLog) miss(name string, e *session.Entry) {
	method, methodLen := cut(e.Method, maxLogMethod)
	path, pathLen := cut(e.Path, maxLogPath)
	m.mu.Lock()
	k := missKey{method, path}
	n, ok := m.count[k]
	if !ok && len(m.count) >= missKeys {
		clear(m.count)
	}
	n++
	m.count[k] = n
	if n&(n-1) != 0 { // not a power of two: counted, not logged
		m.mu.Unlock()
		return
	}
	if now := m.now(); now.Sub(m.window) >= missWindow || now.Before(m.window) {
		m.window, m.lines = now, 0
	}
	if m.lines >= missLines {
		m.unlogged++
		m.mu.Unlock()
		return
	}
	m.lines++
	unlogged := m.unlogged
	m.unlogged = 0
	m.mu.Unlock()

	args := make([]any, 0, 20)
	args = append(args, "session", name, "method", method)
	if methodLen > 0 {
		args = append(args, "method_len", methodLen)
	}
	args = append(args, "path", path)
	if pathLen > 0 {
		args = append(args, "path_len", pathLen)
	}
	args = append(args, "route", e.Route, "status", e.Status, "duration", e.Latency)
	if n > 1 {
		args = append(args, "repeated", n)
	}
	if unlogged > 0 {
		args = append(args, "unlogged", unlogged)
	}
	m.log.Info("miss", args...)
}

// cutFields cuts the method and path of a request line's key-value pairs
// to the limits, adding their lengths when cut.
func cutFields(args []any) []any {
	for i := 0; i+1 < len(args); i += 2 {
		limit := 0
		switch args[i] {
		case "method":
			limit = maxLogMethod
		case "path":
			limit = maxLogPath
		default:
			continue
		}
		s, _ := args[i+1].(string)
		if c, n := cut(s, limit); n > 0 {
			args[i+1] = c
			args = append(args, args[i].(string)+"_len", n)
		}
	}
	return args
}

// cut is logcut.Cut: the recorder's log cuts its fields the same way.
func cut(s string, limit int) (string, int) { return logcut.Cut(s, limit) }

// asGet returns a HEAD request as the GET it stands for. The engine then
// answers it as it answers GET, in every provenance, and net/http sends
// the headers, Content-Length included, without the body.
func asGet(r *http.Request) *http.Request {
	g := new(http.Request)
	*g = *r
	g.Method = http.MethodGet
	return g
}
