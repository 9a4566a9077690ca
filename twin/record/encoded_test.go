package record

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"io/fs"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLiveCredentialEncodedEchoNeverWritten: a provider that echoes the
// injected key inside longer base64 text (the whole Authorization header,
// base64-encoded, at each of the three alignments), in hex, or as a
// header name (canonicalised to another letter case) gets none of it
// into the twin folder.
func TestLiveCredentialEncodedEchoNeverWritten(t *testing.T) {
	const live = "sk_live_ENCODEDlivekey0001XYZ"
	var sent []string // the encodings the provider sent back
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		switch r.URL.Path {
		case "/b64":
			for i, prefix := range []string{"Authorization: Bearer ", "Bearer ", "x"} {
				v := base64.StdEncoding.EncodeToString([]byte(prefix + key))
				w.Header().Set("X-Debug-"+string(rune('a'+i)), v)
			}
		case "/hex":
			w.Header().Set("X-Hex", hex.EncodeToString([]byte(key)))
			w.Header().Set("X-Hex-Upper", strings.ToUpper(hex.EncodeToString([]byte(key))))
		case "/name":
			w.Header()[key] = []string{"invalid"}
		}
		w.Write([]byte("ok"))
	}))
	defer up.Close()
	for _, prefix := range []string{"Authorization: Bearer ", "Bearer ", "x"} {
		v := base64.StdEncoding.EncodeToString([]byte(prefix + live))
		// The characters that carry the key: all but the prefix's group
		// and the last group.
		sent = append(sent, v[(len(prefix)+2)/3*4:len(v)-4])
	}
	sent = append(sent, hex.EncodeToString([]byte(live)), strings.ToUpper(hex.EncodeToString([]byte(live))), strings.ToLower(live))

	dir := filepath.Join(t.TempDir(), "encoded")
	_, base := startRecorder(t, dir, up.URL, testKey, Options{Credential: live})
	for _, path := range []string{"/b64", "/hex", "/name"} {
		resp, body := call(t, base, "GET", path, "", "", nil)
		recorded := resp.Header.Get(ExchangeHeader) != ""
		refused := resp.StatusCode == http.StatusBadGateway && strings.Contains(string(body), "record-failed")
		if !recorded && !refused {
			t.Errorf("GET %s: want it recorded (scrubbed) or refused with record-failed, have %d %s", path, resp.StatusCode, body)
		}
	}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		lower := strings.ToLower(string(b))
		for _, s := range sent {
			if strings.Contains(lower, strings.ToLower(s)) {
				t.Errorf("%s holds the live key encoded as %q:\n%s", path, s, b)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestNestedAndMultipartPlantedNeverWritten: credentials and personal data
// inside JSON carried as a string (a JSON member, a form field, a query
// parameter, a provider's echo of the request body), inside a multipart
// form the provider echoes, and a Stripe key written with \u escapes and
// echoed, never reach the twin folder.
func TestNestedAndMultipartPlantedNeverWritten(t *testing.T) {
	const (
		jsonInJSON = "plantedJSONinJSONpw01"
		formJSON   = "plantedFormJSONpw01"
		queryJSON  = "plantedQueryJSONpw01"
		multiPass  = "plantedMultipartPw01"
		nestedMail = "nested.person@example.com"
		escKey     = "sk_live_PLANTEDescapedKey01"
	)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"request_body": string(body), "query": r.URL.RawQuery})
	}))
	defer up.Close()
	dir := filepath.Join(t.TempDir(), "nested")
	_, base := startRecorder(t, dir, up.URL, testKey, Options{})

	inner, _ := json.Marshal(map[string]any{"password": jsonInJSON, "customer": map[string]string{"email": nestedMail}})
	outer, _ := json.Marshal(map[string]any{"data": string(inner)})
	escaped := strings.Replace(string(outer), "{", `{"k":"\u0073`+escKey[1:]+`",`, 1)
	formPayload, _ := json.Marshal(map[string]string{"password": formJSON})
	queryPayload, _ := json.Marshal(map[string]string{"password": queryJSON})
	var mp bytes.Buffer
	mw := multipart.NewWriter(&mp)
	mw.WriteField("password", multiPass)
	mw.Close()
	for _, c := range []struct{ method, path, ctype, body string }{
		{"POST", "/v1/json", "application/json", escaped},
		{"POST", "/v1/form", "application/x-www-form-urlencoded", "payload=" + url.QueryEscape(string(formPayload))},
		{"GET", "/v1/query?filter=" + url.QueryEscape(string(queryPayload)), "", ""},
		{"POST", "/v1/multipart", mw.FormDataContentType(), mp.String()},
	} {
		if resp, got := call(t, base, c.method, c.path, c.ctype, c.body, nil); resp.Header.Get(ExchangeHeader) == "" {
			t.Fatalf("%s %s: want a recorded exchange, have %d %s", c.method, c.path, resp.StatusCode, got)
		}
	}
	files := 0
	err := filepath.WalkDir(filepath.Join(dir, "recordings"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		for _, v := range []string{jsonInJSON, formJSON, queryJSON, multiPass, nestedMail, escKey[1:]} {
			if strings.Contains(string(b), v) || strings.Contains(string(b), url.QueryEscape(v)) {
				t.Errorf("%s holds the planted value %q:\n%s", path, v, b)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files != 4 {
		t.Errorf("want 4 exchanges scanned, have %d", files)
	}
}
