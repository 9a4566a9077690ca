package record

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/format"
)

// planted are credentials and personal data sent through the recorder in
// every carrier; none may reach the twin folder.
var planted = struct {
	live, googKey, headerTok, cookie, basicPass                          string
	queryRefresh, queryCard, queryEmail                                  string
	formPass, formCard, formEmail                                        string
	jsonPass, jsonKey, jsonEmail1, jsonEmail2, jsonPhone1, jsonPhone2    string
	jsonCard, noteCard                                                   string
	access, refresh, idToken, locTok, locID, formAccess, textCard, ghTok string
}{
	live: "sk_live_PLANTEDlivekey0001", googKey: "AIzaPLANTEDgoogkey0123456789abcdefghijklm",
	headerTok: "plantedHeaderTok01", cookie: "plantedCookieVal01", basicPass: "plantedBasicPw01",
	queryRefresh: "plantedRefreshQ01", queryCard: "4111111111111111", queryEmail: "query.person@example.com",
	formPass: "plantedFormPass01", formCard: "5555555555554444", formEmail: "form.person@example.com",
	jsonPass: "plantedJsonPass01", jsonKey: "plantedJsonKey01",
	jsonEmail1: "alice.planted@example.com", jsonEmail2: "bob.planted@example.com",
	jsonPhone1: "+1 415 555 0101", jsonPhone2: "+44 20 7946 0958",
	jsonCard: "378282246310005", noteCard: "6011 1111 1111 1117",
	access: "plantedAccessTok01", refresh: "plantedRefreshTok01",
	idToken: "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJwbGFudGVkIn0.plantedSignature01",
	locTok:  "plantedLocationTok01", locID: "plantedLocationId01",
	formAccess: "plantedFormAccess01", textCard: "4000056655665556",
	ghTok: "ghp_PLANTEDgithubtoken0123456789abcd",
}

// echoProvider answers every request with everything it was sent, as
// providers do in error messages and request logs, plus a token endpoint.
func echoProvider(tb testing.TB) *httptest.Server {
	tb.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		// The injected key comes back in a header, as some providers do.
		w.Header().Set("X-Echo-Authorization", r.Header.Get("Authorization"))
		w.Header().Set("X-Echo-Goog", r.Header.Get("X-Goog-Api-Key"))
		w.Header().Set("X-Request-Query", r.URL.RawQuery)
		switch r.URL.Path {
		case "/oauth/token":
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{
				"access_token": planted.access, "refresh_token": planted.refresh, "id_token": planted.idToken,
				"token_type": "bearer", "expires_in": 3600,
				"message": "issued for password " + planted.formPass,
			})
		case "/oauth/form":
			w.Header().Set("Content-Type", "application/x-www-form-urlencoded")
			fmt.Fprintf(w, "access_token=%s&scope=repo&token_type=bearer", planted.formAccess)
		case "/authorize":
			w.Header().Set("Location", "https://app.example/cb?access_token="+planted.locTok+"&state=ok#id_token="+planted.locID)
			w.Header().Set("Link", "<https://api.example/next?page=2&api_key="+planted.jsonKey+">; rel=\"next\"")
			w.WriteHeader(http.StatusFound)
		case "/text":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprintf(w, "card %s on file; key %s; you sent %s; token %s", planted.textCard, r.Header.Get("Authorization"), body, planted.ghTok)
		default:
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{
				"request_body": string(body),
				"query":        r.URL.RawQuery,
				"headers":      r.Header,
				"error":        map[string]any{"message": "rejected " + string(body) + " for " + r.Header.Get("Authorization")},
			})
		}
	}))
	tb.Cleanup(srv.Close)
	return srv
}

func TestRecordPlantedNeverWritten(t *testing.T) {
	up := echoProvider(t)
	dir := filepath.Join(t.TempDir(), "planted")
	_, base := startRecorder(t, dir, up.URL, testKey, Options{Credential: planted.live})
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("user:"+planted.basicPass))
	headers := map[string]string{
		"X-Goog-Api-Key": planted.googKey, "X-Custom-Token": planted.headerTok,
		"Cookie": "session=" + planted.cookie, "Proxy-Authorization": basic,
	}
	query := "?refresh_token=" + planted.queryRefresh + "&note=" + planted.queryCard + "&email=" + url.QueryEscape(planted.queryEmail) + "&limit=2"
	form := "password=" + planted.formPass + "&card[number]=" + planted.formCard + "&email=" + url.QueryEscape(planted.formEmail) + "&grant_type=password"
	jsonBody, _ := json.Marshal(map[string]any{
		"user":   map[string]any{"password": planted.jsonPass, "credentials": map[string]any{"api_key": planted.jsonKey}},
		"emails": []string{planted.jsonEmail1, planted.jsonEmail2},
		"phones": []string{planted.jsonPhone1, planted.jsonPhone2},
		"card":   planted.jsonCard, "note": "pay with " + planted.noteCard,
		"max_tokens": 100,
	})
	for _, c := range []struct{ method, path, ctype, body string }{
		{"POST", "/v1/echo" + query, "application/json", string(jsonBody)},
		{"POST", "/v1/echo" + query, "application/x-www-form-urlencoded", form},
		{"POST", "/oauth/token", "application/x-www-form-urlencoded", form},
		{"POST", "/oauth/form", "application/x-www-form-urlencoded", form},
		{"GET", "/authorize" + query, "", ""},
		{"POST", "/text", "application/json", string(jsonBody)},
	} {
		resp, got := call(t, base, c.method, c.path, c.ctype, c.body, headers)
		if resp.Header.Get(ExchangeHeader) == "" {
			t.Fatalf("%s %s: want a recorded exchange, have %d %s", c.method, c.path, resp.StatusCode, got)
		}
	}

	values := []string{
		planted.live, planted.googKey, planted.headerTok, planted.cookie, planted.basicPass,
		planted.queryRefresh, planted.queryCard, planted.queryEmail,
		planted.formPass, planted.formCard, planted.formEmail,
		planted.jsonPass, planted.jsonKey, planted.jsonEmail1, planted.jsonEmail2, planted.jsonPhone1, planted.jsonPhone2,
		planted.jsonCard, planted.noteCard, planted.access, planted.refresh, planted.idToken,
		planted.locTok, planted.locID, planted.formAccess, planted.textCard, planted.ghTok,
	}
	var forms []string
	for _, v := range values {
		forms = append(forms, v, url.QueryEscape(v))
	}
	for _, enc := range []string{
		base64.StdEncoding.EncodeToString([]byte(planted.live)),
		base64.StdEncoding.EncodeToString([]byte("user:" + planted.basicPass)),
	} {
		forms = append(forms, enc)
	}
	files := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		for _, f := range forms {
			if strings.Contains(string(b), f) {
				t.Errorf("%s: holds the planted value %q:\n%s", path, f, b)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 7 { // twin.toml and six exchanges
		t.Errorf("want twin.toml and 6 exchanges scanned, have %d files", files)
	}
}

// TestWriteRefusesLiveCredential: the last check before the disk refuses
// an exchange that still holds the live key in any form, and writes
// nothing.
func TestWriteRefusesLiveCredential(t *testing.T) {
	up := echoProvider(t)
	for _, held := range []string{
		planted.live,
		base64.StdEncoding.EncodeToString([]byte(planted.live + ":")),
		base64.RawURLEncoding.EncodeToString([]byte(planted.live)),
	} {
		dir := filepath.Join(t.TempDir(), "refuse")
		rec, _ := startRecorder(t, dir, up.URL, testKey, Options{Credential: planted.live})
		ex := &format.Exchange{Format: format.Version, Request: format.Request{Method: "GET", Path: "/x"},
			Response: format.Response{Status: 200, BodyText: "echo " + held}}
		if _, err := rec.write(ex); !errors.Is(err, errLiveCredential) {
			t.Errorf("write with %q: want errLiveCredential, have %v", held, err)
		}
		entries, _ := os.ReadDir(rec.Dir())
		if len(entries) != 0 {
			t.Errorf("write with %q: want nothing written, have %d files", held, len(entries))
		}
	}
}
