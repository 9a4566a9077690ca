package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The servers, in the order each pass runs them. Wraith runs three
// times, once per shape of load: every request in one session, requests
// spread over 256 sessions, and requests spread over 10,000 live sessions.
const (
	sCeiling    = "ceiling"
	sWraith1    = "wraith-one"
	sWraith256  = "wraith-256s"
	sWraith10k  = "wraith-10k"
	sStripeMock = "stripe-mock"
	sWireMock   = "wiremock"
	sMountebank = "mountebank"
)

var allServers = []string{sCeiling, sWraith1, sWraith256, sWraith10k, sStripeMock, sWireMock, sMountebank}

// spreadSessions is how many sessions the wraith-256s loads spread over.
const spreadSessions = 256

// startPrefix names the servers that are only started and stopped, to
// time `wraith serve TWIN`: serve-checkout, serve-stripe, serve-github.
const startPrefix = "serve-"

// isWraith reports whether a server is Wraith serving checkout.
func isWraith(name string) bool { return name == sWraith1 || name == sWraith256 || name == sWraith10k }

// noEntityLimit is the --max-entities of every Wraith run: the one-session
// loads keep every create in one session, past the default 10,000.
const noEntityLimit = 100_000_000

// defaultMaxEntities is wraith serve's own --max-entities, for the report.
const defaultMaxEntities = 10_000

const (
	getPath  = "/v1/customers/cus_123"
	postPath = "/v1/customers"
	// createBody is also what twin/engine's BenchmarkCreate sends.
	createBody = "email=jenny%40example.com&name=Jenny+Rosen&description=bench&metadata[order]=42"
	// stripe-mock refuses requests without a key; every server gets the
	// same header so that every server reads the same bytes.
	authHeader = "Bearer sk_test_bench"
)

// shape is how a server's loads name their sessions: n sessions, PREFIX
// followed by the session's number padded to width digits.
type shape struct {
	n      int
	prefix string
	width  int
}

func (s shape) name(i int) string { return fmt.Sprintf("%s%0*d", s.prefix, s.width, i) }

// shapeOf is the shape of a server's loads. Every name has the same width,
// so every server reads requests of one length; the ceiling and the peers,
// which ignore the header, get the one-session requests byte for byte.
func shapeOf(server string, sessions int) shape {
	w := max(4, len(strconv.Itoa(sessions-1)))
	switch server {
	case sWraith256:
		return shape{spreadSessions, "b-", w}
	case sWraith10k:
		return shape{sessions, "s-", w}
	}
	return shape{1, "b-", w}
}

// bodies are the fixed answers that the ceiling, WireMock and Mountebank
// return: Wraith's own recorded GET answer and one create answer, taken
// from Wraith at the start of the run. The ceiling also answers with
// Wraith's headers (getHeaders, postHeaders), so that it writes the same
// bytes on the wire.
type bodies struct {
	get, post               []byte
	getFile, postFile       string
	getHeaders, postHeaders string
}

// peers holds where the installed peers are; an empty path means the peer
// is missing and missing[name] says why.
type peers struct {
	wraith, ceiling, stripeMock, wiremockJar, mountebank, java, node string
	missing                                                          map[string]string
}

// wraithArgv runs `wraith serve TWIN` or, for a wraith-twin binary,
// `wraith-twin TWIN`: both serve identically.
func (p peers) wraithArgv(twin, ready string, maxSessions int) []string {
	argv := []string{p.wraith}
	if filepath.Base(p.wraith) != "wraith-twin" {
		argv = append(argv, "serve")
	}
	return append(argv, twin, "--port", "0", "--ready-json", ready,
		"--seed", "42", "--clock", "deterministic",
		"--max-sessions", strconv.Itoa(maxSessions), "--max-entities", strconv.Itoa(noEntityLimit))
}

func getProbe() probe {
	return probe{method: "GET", path: getPath, header: map[string]string{"Authorization": authHeader}}
}

// specFor builds the start spec of one server; work is a scratch folder
// for its ready file and stub configuration.
func specFor(name string, p peers, b bodies, work string, maxSessions int) (spec, error) {
	s := spec{name: name, dir: work, probe: getProbe()}
	twin, isStart := strings.CutPrefix(name, startPrefix)
	if isWraith(name) || isStart {
		if p.wraith == "" {
			return s, fmt.Errorf("not built: %s", p.missing["wraith"])
		}
		if !isStart {
			twin = "checkout"
		}
		if twin == "github" {
			// The github twin has no customers; a repository is its recorded read.
			s.probe = probe{method: "GET", path: "/repos/octocat/hello-world", header: map[string]string{}}
		}
		s.ready = filepath.Join(work, "ready.json")
		s.argv = p.wraithArgv(twin, s.ready, maxSessions)
		return s, nil
	}
	port, err := freePort()
	if err != nil {
		return s, err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	s.url = "http://" + addr
	switch name {
	case sCeiling:
		if p.ceiling == "" {
			return s, fmt.Errorf("not built: %s", p.missing[sCeiling])
		}
		s.argv = []string{p.ceiling, "-addr", addr, "-get", b.getFile, "-post", b.postFile,
			"-get-headers", b.getHeaders, "-post-headers", b.postHeaders}
	case sStripeMock:
		if p.stripeMock == "" {
			return s, fmt.Errorf("not installed: %s", p.missing[sStripeMock])
		}
		s.argv = []string{p.stripeMock, "-http-addr", addr}
	case sWireMock:
		if p.wiremockJar == "" || p.java == "" {
			return s, fmt.Errorf("not installed: %s", p.missing[sWireMock])
		}
		root := filepath.Join(work, "wiremock")
		if err := wiremockMappings(root, b); err != nil {
			return s, err
		}
		// The request journal keeps every request for verification and grows
		// without bound under load; WireMock's docs turn it off for load tests.
		s.argv = []string{p.java, "-jar", p.wiremockJar, "--port", strconv.Itoa(port),
			"--bind-address", "127.0.0.1", "--root-dir", root,
			"--no-request-journal", "--disable-banner"}
	case sMountebank:
		if p.mountebank == "" || p.node == "" {
			return s, fmt.Errorf("not installed: %s", p.missing[sMountebank])
		}
		admin, err := freePort()
		if err != nil {
			return s, err
		}
		cfg := filepath.Join(work, "imposters.json")
		if err := mountebankConfig(cfg, port, b); err != nil {
			return s, err
		}
		// Log level warn: at info, Mountebank logs a line per request.
		s.argv = []string{p.node, p.mountebank, "start", "--port", strconv.Itoa(admin),
			"--host", "127.0.0.1", "--configfile", cfg, "--nologfile", "--loglevel", "warn", "--localOnly"}
	default:
		return s, fmt.Errorf("unknown server %q", name)
	}
	return s, nil
}

func wiremockMappings(root string, b bodies) error {
	if err := os.MkdirAll(filepath.Join(root, "mappings"), 0o755); err != nil {
		return err
	}
	stub := func(method, url string, body []byte) map[string]any {
		return map[string]any{
			"request": map[string]any{"method": method, "url": url},
			"response": map[string]any{"status": 200, "body": string(body),
				"headers": map[string]string{"Content-Type": "application/json"}},
		}
	}
	doc := map[string]any{"mappings": []any{stub("GET", getPath, b.get), stub("POST", postPath, b.post)}}
	return writeJSON(filepath.Join(root, "mappings", "bench.json"), doc)
}

func mountebankConfig(path string, port int, b bodies) error {
	stub := func(method, url string, body []byte) map[string]any {
		return map[string]any{
			"predicates": []any{map[string]any{"equals": map[string]any{"method": method, "path": url}}},
			"responses": []any{map[string]any{"is": map[string]any{"statusCode": 200, "body": string(body),
				// Mountebank's default response closes the connection; the
				// loads are keep-alive for every server.
				"headers": map[string]string{"Content-Type": "application/json", "Connection": "keep-alive"}}}},
		}
	}
	doc := map[string]any{"imposters": []any{map[string]any{
		"protocol": "http", "port": port, "host": "127.0.0.1",
		"stubs": []any{stub("GET", getPath, b.get), stub("POST", postPath, b.post)},
	}}}
	return writeJSON(path, doc)
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
