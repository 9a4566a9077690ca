package server

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/golden")

// frozen is the wall clock of servers under test, so twin ages and real
// clocks are the same in every run.
var frozen = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// startServer serves a twin on 127.0.0.1:0 until the test ends. args are
// serve flags.
func startServer(tb testing.TB, twin string, args ...string) *Server {
	tb.Helper()
	return startServerNow(tb, func() time.Time { return frozen }, twin, args...)
}

// startServerNow is startServer on the wall clock now: a test whose
// client checks the server's times against its own (a webhook
// signature's) passes time.Now.
func startServerNow(tb testing.TB, now func() time.Time, twin string, args ...string) *Server {
	tb.Helper()
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	cfg := Flags(fs)
	if err := fs.Parse(args); err != nil {
		tb.Fatalf("flags %v: %v", args, err)
	}
	cfg.Twin = twin
	dir, _ := os.Getwd()
	srv, err := Open(*cfg, Deps{
		Getenv:  func(string) string { return "" },
		Dir:     filepath.Join(dir, "..", ".."), // the repository root, for testdata/twins
		Version: "test",
		Now:     now,
	})
	if err != nil {
		tb.Fatalf("Open(%s %v): %v", twin, args, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	tb.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			tb.Errorf("Run: %v", err)
		}
	})
	return srv
}

// call is one HTTP request of a test.
type call struct {
	method  string
	path    string
	session string
	form    string // form body
	json    string // JSON body
	header  map[string]string
}

// do sends c and returns the response with its body read.
func do(tb testing.TB, base string, c call) (*http.Response, []byte) {
	tb.Helper()
	var body io.Reader
	if c.form != "" {
		body = strings.NewReader(c.form)
	} else if c.json != "" {
		body = strings.NewReader(c.json)
	}
	method := c.method
	if method == "" {
		method = http.MethodGet
	}
	req, err := http.NewRequest(method, base+c.path, body)
	if err != nil {
		tb.Fatal(err)
	}
	if c.form != "" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	} else if c.json != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.session != "" {
		req.Header.Set("X-Wraith-Session", c.session)
	}
	for k, v := range c.header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatalf("%s %s: %v", method, c.path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return resp, b
}

// transcript renders a response for golden files: the status, the headers
// that carry meaning (Date and lengths are left out), and the body, JSON
// indented.
func transcript(c call, resp *http.Response, body []byte) string {
	var b strings.Builder
	method := c.method
	if method == "" {
		method = http.MethodGet
	}
	b.WriteString("> " + method + " " + c.path + "\n")
	if c.session != "" {
		b.WriteString("> X-Wraith-Session: " + c.session + "\n")
	}
	for _, k := range slices.Sorted(maps.Keys(c.header)) {
		b.WriteString("> " + k + ": " + c.header[k] + "\n")
	}
	if c.form != "" {
		b.WriteString("> " + c.form + "\n")
	}
	if c.json != "" {
		b.WriteString("> " + c.json + "\n")
	}
	b.WriteString("< " + resp.Status + "\n")
	var keys []string
	for k := range resp.Header {
		if k != "Date" && k != "Content-Length" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		b.WriteString("< " + k + ": " + strings.Join(resp.Header[k], ", ") + "\n")
	}
	var pretty bytes.Buffer
	if json.Indent(&pretty, body, "", "  ") == nil {
		body = pretty.Bytes()
	}
	b.Write(body)
	b.WriteString("\n\n")
	return b.String()
}

// golden compares have with testdata/golden/name.txt, or rewrites it with
// -update.
func golden(tb testing.TB, name, have string) {
	tb.Helper()
	path := filepath.Join("testdata", "golden", name+".txt")
	if *update {
		if err := os.WriteFile(path, []byte(have), 0o644); err != nil {
			tb.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != have {
		tb.Errorf("%s differs from the golden file (go test -update rewrites it)\nwant:\n%s\nhave:\n%s", path, want, have)
	}
}
