package record

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecordLeaksClosed: through a real recorder, an Azure storage key
// (in a connection string, in listKeys' answer, in an
// Ocp-Apim-Subscription-Key header), an OAuth authorization code (in a
// callback's query, a token exchange's form and a Location redirecting to
// a callback) and an email in request headers (From, X-User-Email, inside
// another value) reach no file of the twin folder, although the provider
// echoes each of them back.
func TestRecordLeaksClosed(t *testing.T) {
	azureKey := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("planted-azure-key:", 4)[:64]))
	const (
		subKey   = "plantedsubscriptionkey0123456789"
		code     = "plantedAuthCode0123456789"
		formCode = "plantedFormCode0123456789"
		locCode  = "plantedLocationCode012345"
		mail     = "planted.person@example.com"
		hdrMail  = "header.person@example.com"
	)
	conn := "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=" + azureKey + ";EndpointSuffix=core.windows.net"
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("X-Echo-From", r.Header.Get("From"))
		w.Header().Set("X-Echo-Sub", r.Header.Get("Ocp-Apim-Subscription-Key"))
		switch r.URL.Path {
		case "/authorize":
			w.Header().Set("Location", "https://app.example/cb?code="+locCode+"&state=s1")
			w.WriteHeader(http.StatusFound)
			return
		case "/keys":
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{
				"keys":             []map[string]string{{"keyName": "key1", "value": azureKey, "permissions": "FULL"}},
				"connectionString": conn,
				"note":             "use " + conn,
			})
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"query": r.URL.RawQuery, "body": string(body), "headers": r.Header})
	}))
	defer up.Close()
	dir := filepath.Join(t.TempDir(), "leaks")
	_, base := startRecorder(t, dir, up.URL, testKey, Options{})
	headers := map[string]string{
		"From":                      mail,
		"X-User-Email":              mail,
		"X-Requested-By":            "Jenny <" + hdrMail + ">",
		"Ocp-Apim-Subscription-Key": subKey,
	}
	for _, c := range []struct{ method, path, ctype, body string }{
		{"GET", "/cb?code=" + code + "&state=s1", "", ""},
		{"POST", "/oauth/token", "application/x-www-form-urlencoded", "grant_type=authorization_code&code=" + formCode + "&redirect_uri=" + url.QueryEscape("https://app.example/cb")},
		{"GET", "/authorize", "", ""},
		{"GET", "/keys", "", ""},
	} {
		if resp, got := call(t, base, c.method, c.path, c.ctype, c.body, headers); resp.Header.Get(ExchangeHeader) == "" {
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
		for _, v := range []string{azureKey, azureKey[:40], subKey, code, formCode, locCode, mail, hdrMail} {
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
