package main

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/scrub"
	"github.com/wraithdev/wraith/twin/scrub/scrubtest"
)

// encodedKey is a live key with the characters providers escape ("/",
// "+", "=", "_") and no vendor shape the scrubber would find on its own
// (sk_live_ needs ten letters or digits in a row), so that only the
// recorder's search for the injected key stands between it and the disk.
const encodedKey = "sk_live_Ab/Cd+Ef=Gh_51HxYzQ9"

// carriers are the places of an answer the provider puts an encoding in.
// A JSON member name is never rewritten, so an exchange with the key
// there is refused rather than scrubbed.
var carriers = []string{"text", "html", "json", "json-raw", "json-name", "form", "location", "cookie", "header"}

// echoEncodings is a provider that answers /enc/{encoding}/{carrier} with
// the injected key, encoded so, in that carrier.
func echoEncodings(tb testing.TB) *httptest.Server {
	tb.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/enc/"), "/")
		enc, ok := scrubtest.LiveEncodings(key)[parts[0]]
		if !ok || len(parts) != 2 {
			http.NotFound(w, r)
			return
		}
		switch parts[1] {
		case "text":
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			fmt.Fprintf(w, "your key: %s\n", enc)
		case "html":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, "<p>Key <code>%s</code> is live</p>", enc)
		case "json":
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]string{"echo": enc})
		case "json-raw":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"echo":"%s"}`, enc) // as sent: "\u0073…" is a JSON escape here
		case "json-name":
			w.Header().Set("Content-Type", "application/json")
			q, _ := json.Marshal(enc)
			fmt.Fprintf(w, `{%s:true}`, q)
		case "form":
			w.Header().Set("Content-Type", "application/x-www-form-urlencoded")
			fmt.Fprintf(w, "echo=%s&scope=read", enc)
		case "location":
			w.Header().Set("Location", "https://app.example/cb?echo="+enc+"&state=ok")
			w.WriteHeader(http.StatusFound)
		case "cookie":
			w.Header().Set("Set-Cookie", "sid="+enc+"; Path=/; HttpOnly")
			io.WriteString(w, "ok")
		case "header":
			w.Header().Set("X-Echo", enc)
			io.WriteString(w, "ok")
		}
	}))
	tb.Cleanup(srv.Close)
	return srv
}

// headerSafe reports whether v can travel in a header value.
func headerSafe(v string) bool {
	for i := 0; i < len(v); i++ {
		if v[i] < ' ' || v[i] >= 0x7f {
			return false
		}
	}
	return true
}

// roundTrip GETs u without following redirects: a Location here points at
// a host that is not the test's.
func roundTrip(tb testing.TB, u string) (*http.Response, string) {
	tb.Helper()
	req, _ := http.NewRequest("GET", u, nil)
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestRecordNeverWritesEncodedKey runs `wraith record` with --auth-env in
// front of a provider that sends the injected key back in every encoding
// above, in every carrier, then serves the twin folder with the real
// binary and replays each request into a session. No form of the key may
// be in any file of the twin folder, in the journal, in the HAR export, nor
// in either process's log: each exchange was recorded scrubbed, or refused
// with 502 record-failed and not written.
func TestRecordNeverWritesEncodedKey(t *testing.T) {
	t.Parallel()
	provider := echoEncodings(t)
	dir := t.TempDir()
	twinDir := filepath.Join(dir, "enc")
	env := map[string]string{"WRAITH_HMAC_KEY": recordKey, "PROVIDER_KEY": encodedKey}
	rec := startRecord(t, dir, env, "enc", "--upstream", provider.URL, "--auth-env", "PROVIDER_KEY", "--name", "flow")

	encodings := scrubtest.LiveEncodings(encodedKey)
	names := make([]string, 0, len(encodings))
	for n := range encodings {
		names = append(names, n)
	}
	sort.Strings(names)
	var paths []string
	recorded, refused := 0, 0
	for _, n := range names {
		for _, c := range carriers {
			if (c == "location" || c == "cookie" || c == "header") && !headerSafe(encodings[n]) {
				continue // net/http sends no such header
			}
			path := "/enc/" + n + "/" + c
			resp, body := roundTrip(t, rec.url+path)
			switch {
			case resp.Header.Get("X-Wraith-Exchange") != "":
				recorded++
				paths = append(paths, path)
			case resp.StatusCode == http.StatusBadGateway && strings.Contains(body, `"record-failed"`):
				refused++
				t.Logf("refused: %s", path)
			default:
				t.Errorf("GET %s: want it recorded (scrubbed) or refused with 502 record-failed, have %d %.200s", path, resp.StatusCode, body)
			}
		}
	}
	if code := rec.finish(t); code != exitOK {
		t.Fatalf("record: exit %d:\n%s", code, rec.stderr)
	}
	t.Logf("%d encodings, %d exchanges recorded scrubbed, %d refused with record-failed", len(encodings), recorded, refused)
	if recorded == 0 || refused == 0 {
		t.Errorf("want both scrubbed and refused exchanges (the key as a JSON member name is refused), have %d and %d", recorded, refused)
	}

	// Every form the test generated, as sent and as JSON would write it:
	// the files are JSON.
	var needles []string
	for _, n := range names {
		e := encodings[n]
		q, _ := json.Marshal(e)
		needles = append(needles, strings.ToLower(e), strings.ToLower(string(q[1:len(q)-1])))
	}
	check := func(where string, b []byte) {
		t.Helper()
		lower := strings.ToLower(string(b))
		for i, nd := range needles {
			if strings.Contains(lower, nd) {
				t.Errorf("%s holds the key encoded as %s (%q)", where, names[i/2], nd)
			}
		}
		if scrub.ContainsLive(b, encodedKey) {
			t.Errorf("%s holds the key in a form scrub.ContainsLive finds", where)
		}
	}
	files := 0
	err := filepath.WalkDir(twinDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		check(path, b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files != recorded+1 { // and twin.toml
		t.Errorf("twin folder: want %d files (twin.toml and one per recorded exchange), have %d", recorded+1, files)
	}

	srv := startServe(t, twinDir)
	base := srv.ready.Serve.URL
	get := func(path string, session string) []byte {
		t.Helper()
		req, _ := http.NewRequest("GET", base+path, nil)
		if session != "" {
			req.Header.Set("X-Wraith-Session", session)
		}
		resp, err := http.DefaultTransport.RoundTrip(req) // no redirects followed
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		if session != "" && resp.Header.Get("X-Wraith-Provenance") != "recorded" {
			t.Errorf("serve GET %s: want the recorded answer, have %d %s %.200s", path, resp.StatusCode, resp.Header.Get("X-Wraith-Provenance"), b)
		}
		return b
	}
	for _, p := range paths {
		check("the served answer of "+p, get(p, "enc"))
	}
	journal := get("/__wraith/session/enc/journal", "")
	if !strings.Contains(string(journal), paths[0]) {
		t.Errorf("journal: want the replayed requests, have %.300s", journal)
	}
	check("the journal", journal)
	har := get("/__wraith/session/enc/journal?format=har", "")
	var doc struct {
		Log struct{ Entries []json.RawMessage }
	}
	if err := json.Unmarshal(har, &doc); err != nil || len(doc.Log.Entries) != len(paths) {
		t.Errorf("HAR: want %d entries, have %d (%v)", len(paths), len(doc.Log.Entries), err)
	}
	check("the HAR", har)
	check("wraith record's log", []byte(rec.stderr.String()))
	check("wraith serve's log", []byte(srv.stderr.String()))
}
