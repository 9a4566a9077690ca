package engine

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/wraithdev/wraith/ipc"
)

var nextLink = regexp.MustCompile(`<([^>]+)>; rel="next"`)

// TestLinkKeepsPathSession: a client that names its session by the path
// prefix and follows the Link header's next page, or an entity's url,
// stays in its session, as it does with a header.
func TestLinkKeepsPathSession(t *testing.T) {
	srv := startGitHub(t, NotFound)
	base := srv.URL + "/__s/agent1"
	send := func(method, url, body string) (*http.Response, []byte) {
		t.Helper()
		req, err := http.NewRequest(method, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b
	}
	if resp, b := send(http.MethodPost, base+"/user/repos", `{"name":"r"}`); resp.StatusCode != http.StatusCreated {
		t.Fatalf("create a repository: %d %s", resp.StatusCode, b)
	}
	for range 3 {
		if resp, b := send(http.MethodPost, base+"/repos/wraith-user/r/issues", `{"title":"t"}`); resp.StatusCode != http.StatusCreated {
			t.Fatalf("create an issue: %d %s", resp.StatusCode, b)
		}
	}

	var numbers []int
	url := base + "/repos/wraith-user/r/issues?per_page=1"
	for url != "" && len(numbers) < 10 {
		resp, b := send(http.MethodGet, url, "")
		var page []struct {
			Number int    `json:"number"`
			URL    string `json:"url"`
		}
		if err := json.Unmarshal(b, &page); err != nil || resp.StatusCode != http.StatusOK || len(page) != 1 {
			t.Fatalf("GET %s: want one issue, have %d %s", url, resp.StatusCode, b)
		}
		if have := resp.Header.Get(ipc.SessionHeader); have != "agent1" {
			t.Fatalf("GET %s: served in session %q, want agent1", url, have)
		}
		numbers = append(numbers, page[0].Number)
		if want := base + "/repos/wraith-user/r/issues/"; !strings.HasPrefix(page[0].URL, want) {
			t.Errorf("issue url %q: want it under %s", page[0].URL, want)
		}
		if i := len(numbers); i == 1 {
			// The entity's own url leads back to it in the session.
			if resp, b := send(http.MethodGet, page[0].URL, ""); resp.StatusCode != http.StatusOK || resp.Header.Get(ipc.SessionHeader) != "agent1" {
				t.Errorf("GET the issue's url %s: %d in session %q %s", page[0].URL, resp.StatusCode, resp.Header.Get(ipc.SessionHeader), b)
			}
		}
		url = ""
		if m := nextLink.FindStringSubmatch(resp.Header.Get("Link")); m != nil {
			url = m[1]
			if !strings.HasPrefix(url, base+"/") {
				t.Fatalf("next link %q: want it under %s", url, base)
			}
		}
	}
	if len(numbers) != 3 || numbers[0] != 3 || numbers[2] != 1 {
		t.Errorf("following next links: want issues 3, 2, 1, have %v", numbers)
	}

	// With the header, links carry no prefix, as before.
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/repos/wraith-user/r/issues?per_page=1", nil)
	req.Header.Set(ipc.SessionHeader, "agent1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if m := nextLink.FindStringSubmatch(resp.Header.Get("Link")); m == nil || !strings.HasPrefix(m[1], srv.URL+"/repos/") {
		t.Errorf("with the header: want a next link under %s/repos/, have %q", srv.URL, resp.Header.Get("Link"))
	}
}

// TestLinksTakeTheForwardedScheme: behind a proxy that ended the client's
// TLS (X-Forwarded-Proto: https, as wraith run's router sends it), the
// URLs the twin writes (an entity's url, a Link header) are https://, as
// the client's request was; without the header they are the twin's own.
func TestLinksTakeTheForwardedScheme(t *testing.T) {
	srv := startGitHub(t, NotFound)
	for _, tc := range []struct {
		proto, want string
	}{
		{"https", "https://"},
		{"", "http://"},
		{"ftp", "http://"},
	} {
		t.Run("proto="+tc.proto, func(t *testing.T) {
			sess := "fwd" + tc.proto
			do := func(method, path, body string) (*http.Response, []byte) {
				req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
				req.Header.Set(ipc.SessionHeader, sess)
				req.Header.Set("Content-Type", "application/json")
				if tc.proto != "" {
					req.Header.Set("X-Forwarded-Proto", tc.proto)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				return resp, b
			}
			do(http.MethodPost, "/user/repos", `{"name":"r"}`)
			do(http.MethodPost, "/repos/wraith-user/r/issues", `{"title":"a"}`)
			resp, b := do(http.MethodPost, "/repos/wraith-user/r/issues", `{"title":"b"}`)
			var issue struct{ URL string }
			if err := json.Unmarshal(b, &issue); err != nil || !strings.HasPrefix(issue.URL, tc.want) {
				t.Fatalf("issue url: want %s..., have %d %s", tc.want, resp.StatusCode, b)
			}
			resp, _ = do(http.MethodGet, "/repos/wraith-user/r/issues?per_page=1", "")
			if m := nextLink.FindStringSubmatch(resp.Header.Get("Link")); m == nil || !strings.HasPrefix(m[1], tc.want) {
				t.Errorf("Link: want the next page at %s..., have %q", tc.want, resp.Header.Get("Link"))
			}
		})
	}
}
