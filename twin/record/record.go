// Package record is the recording proxy behind `wraith record`: a reverse
// proxy to a live provider that writes every completed exchange into a twin
// folder as recordings/<recording>/<n>.json, in twin format 1, scrubbed
// before it reaches the disk.
//
// What is written:
//
//   - Headers on both sides pass through scrub.Headers (credentials and
//     cookies removed); hop-by-hop headers and Content-Length are dropped,
//     and Content-Encoding too, because bodies are stored decoded.
//   - The query passes through scrub.Query. A form request body is stored
//     as "form" through scrub.Form; a JSON one as "body" through scrub.JSON.
//     Other request bodies (multipart, binary) cannot be held by format 1:
//     the exchange is stored without its body and a warning is logged.
//   - A JSON response body (a JSON media type, or no Content-Type and valid
//     JSON) is stored as "body" through scrub.JSON; a form-encoded one as
//     "body_text" through scrub.Form; other UTF-8 text as "body_text" as it
//     is (text bodies are not searched for PII). A gzip body is decoded
//     first. A binary body is replaced by a one-line note in "body_text"
//     (its size, type and SHA-256), served as text/plain with the
//     original type in X-Wraith-Original-Content-Type.
//
// The client gets the provider's real answer, unscrubbed, with one header
// added: X-Wraith-Exchange, naming the file it was recorded to. A request a
// twin could not hold (a method format 1 does not record, or a path that
// does not compile into a route, such as one with a trailing "/") is
// proxied but not recorded, and its answer says why in X-Wraith-Not-Recorded.
//
// Crash safety: an exchange is written when its response has arrived and
// before it is answered: to a temporary dotfile in the twin folder (which
// the twin loader and digest ignore), synced, hard-linked to its final
// name, and the recording folder synced. A hard link never replaces a file,
// so an index taken by anyone else moves the exchange to the next one;
// nothing already recorded is overwritten, and a killed recorder loses only
// the exchanges in flight.
package record

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wraithdev/wraith/internal/logcut"
	"github.com/wraithdev/wraith/twin/apierr"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/hostguard"
	"github.com/wraithdev/wraith/twin/route"
	"github.com/wraithdev/wraith/twin/scrub"
)

// DefaultMaxBody is the largest body recorded by default, each way.
const DefaultMaxBody = 32 << 20

// ExchangeHeader names, on the client's answer, the exchange it was
// recorded as: "<recording>/<index>", as X-Wraith-Exchange does when served.
const ExchangeHeader = "X-Wraith-Exchange"

// Options configure a Recorder.
type Options struct {
	// Dir is the twin folder; exchanges go to Dir/recordings/Name.
	Dir string
	// Name is the recording's name (format.ValidName).
	Name string
	// Upstream is the provider's base URL.
	Upstream *url.URL
	// Credential, when set, goes upstream as "Authorization: Bearer
	// <Credential>" on every request, replacing the client's. It is never
	// written nor logged.
	Credential string
	// Scrubber scrubs everything written. Required.
	Scrubber *scrub.Scrubber
	// Transport reaches the provider; nil means a clone of
	// http.DefaultTransport.
	Transport http.RoundTripper
	// MaxBody bounds each body read from the client or the provider;
	// 0 means DefaultMaxBody. Larger requests get 413; larger answers pass
	// through with a note recorded instead of the body.
	MaxBody int64
	// OffLoopback says the recorder listens where other hosts can reach
	// it. It then needs a Token; the Host and Origin checks, which keep
	// web pages away from a loopback recorder, are off.
	OffLoopback bool
	// Token, when set, must come with every request: in TokenHeader, or,
	// when Credential is set (so the client's Authorization is replaced
	// anyway), as "Authorization: Bearer <Token>". It is never forwarded,
	// written nor logged.
	Token string
	// Now is the wall clock; nil means time.Now.
	Now    func() time.Time
	Logger hclog.Logger
}

// TokenHeader carries the recorder's token (Options.Token). It is removed
// before the request goes upstream.
const TokenHeader = "X-Wraith-Record-Token"

// Recorder is an http.Handler that proxies to the provider and records.
// It is safe for concurrent use.
type Recorder struct {
	opts  Options
	token hostguard.Token
	dir   string // Dir/recordings/Name
	log   hclog.Logger
	proxy *httputil.ReverseProxy

	refused sampler // of the refusal lines (log.go)

	mu    sync.Mutex // orders index allocation and links
	next  int        // index the next exchange tries first
	count int        // exchanges written
}

var exchangeFile = regexp.MustCompile(`^(0|[1-9][0-9]{0,8})\.json$`)

// New returns a recorder writing into opts.Dir/recordings/opts.Name,
// creating that folder. Indices continue after the highest one already
// there.
func New(opts Options) (*Recorder, error) {
	if opts.Scrubber == nil {
		return nil, errors.New("record: a scrubber is required")
	}
	if opts.Upstream == nil || opts.Upstream.Host == "" || (opts.Upstream.Scheme != "http" && opts.Upstream.Scheme != "https") {
		return nil, fmt.Errorf("record: upstream %v: want an http or https URL with a host", opts.Upstream)
	}
	if !format.ValidName(opts.Name) {
		return nil, fmt.Errorf("recording name %q must match %s", opts.Name, format.NamePattern)
	}
	if opts.OffLoopback && opts.Token == "" {
		return nil, errors.New("record: a recorder reachable off loopback needs a token, or anyone who can reach it could spend the live credential")
	}
	if opts.MaxBody <= 0 {
		opts.MaxBody = DefaultMaxBody
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	if opts.Transport == nil {
		opts.Transport = http.DefaultTransport.(*http.Transport).Clone()
	}
	r := &Recorder{
		opts:  opts,
		token: hostguard.NewToken(opts.Token),
		dir:   filepath.Join(opts.Dir, "recordings", opts.Name),
		log:   opts.Logger,
	}
	if err := mkdirSynced(r.dir); err != nil {
		return nil, fmt.Errorf("create %s: %w", r.dir, err)
	}
	entries, err := os.ReadDir(r.dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if m := exchangeFile.FindStringSubmatch(e.Name()); m != nil {
			n, _ := strconv.Atoi(m[1])
			r.next = max(r.next, n+1)
		}
	}
	r.proxy = &httputil.ReverseProxy{
		Rewrite:        r.rewrite,
		Transport:      opts.Transport,
		ModifyResponse: r.record,
		ErrorHandler:   r.fail,
		// The proxy logs a failed copy of the provider's body itself;
		// its text goes through the recorder's log, cleaned and cut.
		ErrorLog: log.New(stdLog{r, "proxy"}, "", 0),
	}
	return r, nil
}

// Dir returns the folder exchanges are written to.
func (r *Recorder) Dir() string { return r.dir }

// Next returns the index the next exchange will get, unless another writer
// takes it first.
func (r *Recorder) Next() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.next
}

// Count returns how many exchanges this recorder has written.
func (r *Recorder) Count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.count
}

// captureKey carries a request's capture from ServeHTTP to record.
type captureKey struct{}

// capture is what is kept of the client's request.
type capture struct {
	method, path, query, contentType string
	header                           http.Header
	body                             []byte
	// unrecordable says why the exchange cannot be stored; it is then
	// proxied but not written.
	unrecordable string
}

// NotRecordedHeader, on the client's answer, says why an exchange was
// proxied but not recorded.
const NotRecordedHeader = "X-Wraith-Not-Recorded"

// recordable says why a request cannot be part of a twin, or "": format 1
// holds only some methods, and a served twin compiles every recorded path
// into a route.
func recordable(method, path string) string {
	switch method {
	case "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS":
	default:
		return fmt.Sprintf("method %s is not one twin format 1 records", method)
	}
	if strings.ContainsAny(path, "{}") {
		return "a twin would read this path's { } as a route template parameter"
	}
	if err := route.New[bool]().Add(method, path, true); err != nil {
		return fmt.Sprintf("a twin could not serve this path: %v", err)
	}
	return ""
}

// ServeHTTP admits, proxies and records one request.
func (r *Recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if !r.admit(w, req) {
		return
	}
	if req.Method == http.MethodTrace || req.Method == http.MethodConnect {
		// TRACE makes the provider echo the request, the injected
		// credential included, to the client; CONNECT asks for a tunnel a
		// reverse proxy does not give. Neither goes upstream.
		w.Header().Set("Allow", "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS")
		r.answer(w, apierr.Errorf(apierr.RecordMethodRefused,
			"the recorder does not forward %s: a TRACE answer would show the client the live credential, and CONNECT tunnels are not proxied; nothing was sent upstream", req.Method))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, r.opts.MaxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			r.answer(w, apierr.Errorf(apierr.BodyTooLarge,
				"request body is over %d bytes, the most the recorder keeps: raise --max-body", r.opts.MaxBody))
			return
		}
		r.answer(w, apierr.New(apierr.BadRequestBody, "reading the request body: "+err.Error()))
		return
	}
	c := &capture{
		method:      req.Method,
		path:        req.URL.Path,
		query:       req.URL.RawQuery,
		contentType: req.Header.Get("Content-Type"),
		header:      req.Header.Clone(),
		body:        body,
	}
	c.unrecordable = recordable(c.method, c.path)
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	r.proxy.ServeHTTP(w, req.WithContext(context.WithValue(req.Context(), captureKey{}, c)))
}

// admit decides whether req may spend the live credential, answering it
// when it may not; nothing refused here goes upstream. On loopback, every
// request (not only some paths) must name the recorder by a loopback Host
// and must not come from a web page of another origin: a DNS-rebinding
// page or a cross-site form would otherwise reach the provider with the
// injected key. With a token, the request must carry it; the token is then
// removed, so it never reaches the provider nor the disk.
func (r *Recorder) admit(w http.ResponseWriter, req *http.Request) bool {
	if !r.opts.OffLoopback {
		if no := hostguard.Check(req, hostguard.SameOriginOnly); no != nil {
			r.logRefused("refused a request from a web page", "header", no.Header, "value", no.Value, "method", req.Method, "path", req.URL.Path)
			if no.Reason == hostguard.ForeignHost {
				r.answer(w, apierr.Errorf(apierr.RecordForbiddenHost,
					"the recorder listens on loopback and answers only requests that name it by a loopback Host (localhost, 127.0.0.1, [::1]), not %q: this keeps DNS-rebinding web pages from spending the live credential; point the client at the URL in the ready JSON", r.cleanCut(no.Value, logcut.Value)))
				return false
			}
			r.answer(w, apierr.Errorf(apierr.RecordForbiddenOrigin,
				"the recorder does not serve web pages of other origins (%s: %q): it would send their requests upstream with the live credential; call it from a program (curl, an SDK, an agent), not from a browser page", no.Header, r.cleanCut(no.Value, logcut.Value)))
			return false
		}
	}
	if !r.token.Set() {
		return true
	}
	sent := req.Header.Values(TokenHeader)
	ok := len(sent) == 1 && r.token.Matches(sent[0])
	if len(sent) == 0 && r.opts.Credential != "" {
		bearer, err := hostguard.Bearer(req.Header)
		ok = err == nil && r.token.Matches(bearer)
		if ok {
			req.Header.Del("Authorization")
		}
	}
	req.Header.Del(TokenHeader)
	if !ok {
		w.Header().Set("WWW-Authenticate", `Bearer realm="wraith-record"`)
		how := "the header " + TokenHeader + ": <token>"
		if r.opts.Credential != "" {
			how += ` or "Authorization: Bearer <token>"`
		}
		r.answer(w, apierr.New(apierr.RecordUnauthorized,
			"this recorder needs its token, from the variable named by --token-env, in "+how+"; nothing was sent upstream"))
		return false
	}
	return true
}

// Timeouts and header limits of the recorder's HTTP server, as a served
// twin's (docs/security.md): a slow or stalled client cannot hold a
// connection, and so a goroutine, for long.
const (
	ReadHeaderTimeout = 10 * time.Second
	ReadTimeout       = 60 * time.Second
	IdleTimeout       = 120 * time.Second
	MaxHeaderBytes    = 64 << 10
)

// Server returns an HTTP server for the recorder, with its timeouts. There
// is no write timeout: a provider's answer may stream for long.
func (r *Recorder) Server() *http.Server {
	return &http.Server{
		Handler:           r,
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadTimeout,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    MaxHeaderBytes,
		ErrorLog:          log.New(stdLog{r, "http"}, "", 0),
	}
}

func (r *Recorder) rewrite(pr *httputil.ProxyRequest) {
	pr.SetURL(r.opts.Upstream)
	if r.opts.Credential != "" {
		pr.Out.Header.Set("Authorization", "Bearer "+r.opts.Credential)
	}
	// Ask only for encodings the recorder can decode. Without the header,
	// the transport asks for gzip itself and decodes it for everyone.
	if acceptsGzip(pr.In.Header.Values("Accept-Encoding")) {
		pr.Out.Header.Set("Accept-Encoding", "gzip")
	} else {
		pr.Out.Header.Del("Accept-Encoding")
	}
}

func acceptsGzip(values []string) bool {
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			if strings.EqualFold(strings.TrimSpace(coding), "gzip") {
				q := strings.ReplaceAll(strings.ToLower(params), " ", "")
				return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
			}
		}
	}
	return false
}

// recordError is a failure to write an exchange: the client is told, so
// nothing is lost silently.
type recordError struct{ err error }

func (e *recordError) Error() string { return e.err.Error() }
func (e *recordError) Unwrap() error { return e.err }

// record runs when the provider's answer has arrived: it reads the body,
// writes the exchange, and hands the client the answer as it came.
func (r *Recorder) record(resp *http.Response) error {
	c, _ := resp.Request.Context().Value(captureKey{}).(*capture)
	if c == nil {
		return &recordError{errors.New("record: request without a capture")}
	}
	// The client gets the provider's page on the recorder's loopback
	// origin, where a script in it could send requests that carry the
	// live credential: sandboxed, as a twin's answers are. Deferred, so
	// the exchange keeps the headers the provider sent.
	defer hostguard.GuardAnswer(resp.Header, resp.Header)
	if resp.StatusCode == http.StatusSwitchingProtocols {
		// An upgraded connection (WebSocket) is a stream both ways that
		// format 1 cannot hold: hand it over untouched, or the read below
		// would wait for the connection to end.
		r.warn("proxied, not recorded", "method", c.method, "path", c.path, "reason", "the connection was upgraded (101)")
		resp.Header.Set(NotRecordedHeader, "the connection was upgraded to another protocol, which twin format 1 does not record")
		return nil
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, r.opts.MaxBody+1))
	if err != nil {
		return fmt.Errorf("read the provider's answer: %w", err)
	}
	rest := resp.Body
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(raw), rest), rest}
	if c.unrecordable != "" {
		r.warn("proxied, not recorded", "method", c.method, "path", c.path, "reason", c.unrecordable)
		resp.Header.Set(NotRecordedHeader, c.unrecordable)
		return nil
	}

	ex, warnings := r.exchange(c, resp, raw)
	for _, w := range warnings {
		r.warn(w, "method", c.method, "path", c.path)
	}
	idx, err := r.write(ex)
	if err != nil {
		return &recordError{err}
	}
	name := r.opts.Name + "/" + strconv.Itoa(idx)
	resp.Header.Set(ExchangeHeader, name)
	r.info("recorded", "exchange", name, "method", c.method, "path", c.path, "status", resp.StatusCode)
	return nil
}

// fail answers a request that could not be proxied or recorded.
func (r *Recorder) fail(w http.ResponseWriter, req *http.Request, err error) {
	var rec *recordError
	if errors.As(err, &rec) {
		r.logError("exchange not recorded", "method", req.Method, "path", req.URL.Path, "error", err)
		r.answer(w, apierr.New(apierr.RecordFailed,
			"the provider answered but the exchange could not be written: "+r.cleanCut(err.Error(), maxLogText)+"; fix the twin folder and repeat the request"))
		return
	}
	if errors.Is(err, context.Canceled) {
		return // the client went away
	}
	r.warn("provider unreachable", "method", req.Method, "path", req.URL.Path, "error", err)
	// The transport's error quotes what the provider sent; answer clean
	// cleans the message, and every part is cut as the log cuts it.
	method, _ := logcut.Cut(req.Method, logcut.Method)
	r.answer(w, apierr.Errorf(apierr.UpstreamUnreachable,
		"%s %s: %s (nothing was recorded; is --upstream %s right and reachable?)",
		method, r.cleanCut(req.URL.Path, logcut.Path), r.cleanCut(err.Error(), maxLogText), r.opts.Upstream))
}

// mkdirSynced creates dir and its missing parents, syncing each parent so
// that the new folder survives a crash.
func mkdirSynced(dir string) error {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || !errors.Is(err, fs.ErrNotExist) || d == filepath.Dir(d) {
			break
		}
		missing = append(missing, d)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, d := range missing {
		syncDir(filepath.Dir(d))
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
