package record

import (
	"encoding/base64"
	"encoding/hex"
	"io/fs"
	"net/http"
	"net/http/httptest"
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
