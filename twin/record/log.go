package record

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wraithdev/wraith/internal/logcut"
	"github.com/wraithdev/wraith/twin/apierr"
	"github.com/wraithdev/wraith/twin/hostguard"
)

// What the recorder logs and answers of its own is partly chosen by others:
// the client picks the method, the path and the Origin; the provider's
// bytes reach the text of a transport error ("malformed MIME header line:
// X-Echo: Bearer sk_live_…"), which quotes the line the provider sent, and
// a provider echoing the injected key in a malformed line would put the key
// there. So every such text passes through clean (the live key replaced by
// its token, in every form scrub finds) and is cut (logcut) before it is
// logged or answered.

// maxLogText bounds a logged or answered text that is not a method, a path
// or a header value: an error, a reason, a warning.
const maxLogText = 1 << 10

// clean returns s with the live credential replaced, in any form
// scrub.Pass.Echo finds, by its SecretToken.
func (r *Recorder) clean(s string) string {
	if r.opts.Credential == "" || s == "" {
		return s
	}
	p := r.opts.Scrubber.NewPass()
	p.Secret(r.opts.Credential)
	return p.Echo(s)
}

// cleanCut is clean, then cut to limit bytes with the length kept, as
// "… [cut: n bytes]" at the end.
func (r *Recorder) cleanCut(s string, limit int) string {
	s = r.clean(s)
	if c, n := logcut.Cut(s, limit); n > 0 {
		return c + "… [cut: " + strconv.Itoa(n) + " bytes]"
	}
	return s
}

// fields returns the key-value pairs of a log line with every string and
// error cleaned and cut: the method to logcut.Method, the path to
// logcut.Path, errors and reasons to maxLogText, anything else to
// logcut.Value; a cut field gets its length beside it (path_len).
func (r *Recorder) fields(args []any) []any {
	out := make([]any, 0, len(args)+2)
	for i := 0; i+1 < len(args); i += 2 {
		k, _ := args[i].(string)
		var s string
		switch v := args[i+1].(type) {
		case string:
			s = v
		case error:
			s = v.Error()
		default:
			out = append(out, args[i], args[i+1])
			continue
		}
		limit := logcut.Value
		switch k {
		case "method":
			limit = logcut.Method
		case "path":
			limit = logcut.Path
		case "error", "reason":
			limit = maxLogText
		}
		c, n := logcut.Cut(r.clean(s), limit)
		out = append(out, k, c)
		if n > 0 {
			out = append(out, k+"_len", n)
		}
	}
	return out
}

// warn, info and logError log msg (cleaned and cut itself: a warning may
// quote a parse error of the client's body) with fields.
func (r *Recorder) warn(msg string, args ...any) {
	r.log.Warn(r.cleanCut(msg, maxLogText), r.fields(args)...)
}

func (r *Recorder) info(msg string, args ...any) {
	r.log.Info(r.cleanCut(msg, maxLogText), r.fields(args)...)
}

func (r *Recorder) logError(msg string, args ...any) {
	r.log.Error(r.cleanCut(msg, maxLogText), r.fields(args)...)
}

// answer writes one of the recorder's own errors: its message cleaned
// (it may quote a transport error), with nosniff, as a twin's own JSON
// errors carry it.
func (r *Recorder) answer(w http.ResponseWriter, e *apierr.Error) {
	e.Message = r.clean(e.Message)
	hostguard.NoSniff(w.Header())
	apierr.Write(w, e)
}

// refusedLines refusal lines at most are logged per refusedWindow: a web
// page can send cross-site requests in a loop, and under `wraith up` each
// line lands in a file on the user's disk. The refusals held back are
// counted in the next line (held_back).
const (
	refusedLines  = 10
	refusedWindow = time.Second
)

// sampler lets through at most refusedLines lines per refusedWindow.
type sampler struct {
	mu      sync.Mutex
	window  time.Time
	lines   int
	skipped int
}

// allow reports whether a line may be written at now, and how many were
// held back since the last one written.
func (s *sampler) allow(now time.Time) (bool, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if now.Sub(s.window) >= refusedWindow || now.Before(s.window) {
		s.window, s.lines = now, 0
	}
	if s.lines >= refusedLines {
		s.skipped++
		return false, 0
	}
	s.lines++
	held := s.skipped
	s.skipped = 0
	return true, held
}

// logRefused logs a refused request, sampled.
func (r *Recorder) logRefused(msg string, args ...any) {
	ok, held := r.refused.allow(r.opts.Now())
	if !ok {
		return
	}
	if held > 0 {
		args = append(args, "held_back", held)
	}
	r.log.Warn(msg, r.fields(args)...)
}

// stdLog takes the lines of the standard library's loggers (the reverse
// proxy's, when a provider's body breaks off while it is copied to the
// client; the HTTP server's) into the recorder's log, cleaned and cut.
type stdLog struct {
	r    *Recorder
	what string
}

func (l stdLog) Write(p []byte) (int, error) {
	l.r.warn(l.what, "error", strings.TrimSpace(string(p)))
	return len(p), nil
}
