package ui_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestViewerNamesCannotSteerControlPaths drives the viewer's reset, in
// headless Chromium, for sessions whose names hold characters a URL
// treats specially (a:b, x.y) and for the names "." and "..", which the
// twin refuses but a URL (#/s/..) can still ask the page for. Each valid
// name's reset calls its own session's endpoint and resets only it; a dot
// name is refused in the page before any call. Before, the reset of ".."
// was POST /__wraith/reset, which reset every session, and that of "."
// POST /__wraith/session/reset, which provisioned a session called reset.
func TestViewerNamesCannotSteerControlPaths(t *testing.T) {
	t.Parallel()
	b := newBrowser(t, 90*time.Second)
	tw := serve(t, "checkout")
	c := newClient(tw.URL, "")
	names := []string{"a:b", "bystander", "x.y"} // as the control plane lists them, sorted
	for _, name := range names {
		c.control(t, "POST", "/__wraith/session", map[string]any{"session": name}, 201)
		if s := c.send(t, name, step{Method: "GET", Path: "/v1/balance"}); s.Status != 200 {
			t.Fatalf("GET /v1/balance in %s: want 200, have %d", name, s.Status)
		}
	}
	for _, name := range []string{".", ".."} {
		c.control(t, "POST", "/__wraith/session", map[string]any{"session": name}, 400)
	}

	b.do(t, "open the viewer", chromedp.Navigate(tw.URL+"/__wraith/ui"))
	b.until(t, "the session table", `document.getElementById('view-sessions').dataset.state === 'ready'`)
	for _, tc := range []struct {
		name, hash string
		reset      string // the URL the reset must call; "" for none
		status     string // what the page says after it
	}{
		{"a:b", "a%3Ab", "/__wraith/session/a%3Ab/reset", "Session a:b was reset."},
		{"x.y", "x.y", "/__wraith/session/x.y/reset", "Session x.y was reset."},
		{"..", "..", "", "invalid-session"},
		{".", ".", "", "invalid-session"},
		{"encoded ..", "%2E%2e", "", "invalid-session"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(b.Requests())
			b.do(t, "open "+tc.hash,
				chromedp.Evaluate[chromedp.Void](`document.getElementById('session-name').textContent = ''`),
				chromedp.Navigate(tw.URL+"/__wraith/ui#/s/"+tc.hash))
			b.until(t, "the session view", fmt.Sprintf(`document.body.dataset.view === 'view-session' && document.getElementById('session-name').textContent === decodeURIComponent(%q)`, tc.hash))
			b.do(t, "reset it",
				chromedp.Evaluate[chromedp.Void](`document.getElementById('status').textContent = ''`),
				chromedp.Click(chromedp.ID("action-reset")), chromedp.WaitVisible(chromedp.ID("confirm-ok")), chromedp.Click(chromedp.ID("confirm-ok")),
				chromedp.WaitNotVisible(chromedp.ID("confirm-ok")))
			b.until(t, "the reset's outcome", `document.getElementById('status').textContent !== ''`)
			if have := eval[string](t, b, `document.getElementById('status').textContent`); !strings.Contains(have, tc.status) {
				t.Errorf("status: want %q in it, have %q", tc.status, have)
			}
			var resets []string
			for _, r := range b.Requests()[before:] {
				if strings.HasSuffix(r.url, "/reset") {
					resets = append(resets, strings.TrimPrefix(r.url, tw.URL))
				}
			}
			want := []string{tc.reset}
			if tc.reset == "" {
				want = nil
			}
			if strings.Join(resets, " ") != strings.Join(want, " ") {
				t.Errorf("the page's reset calls: want %q, have %q", want, resets)
			}
		})
	}

	// Only a:b and x.y were reset; the bystander kept its request, and no
	// session appeared.
	list := c.control(t, "GET", "/__wraith/session", nil, 200)["sessions"].([]any)
	var listed []string
	for _, s := range list {
		listed = append(listed, s.(map[string]any)["session"].(string))
	}
	if strings.Join(listed, ",") != strings.Join(names, ",") {
		t.Errorf("sessions: want %v, have %v", names, listed)
	}
	for name, want := range map[string]int{"a:b": 0, "x.y": 0, "bystander": 1} {
		if have := len(c.control(t, "GET", "/__wraith/session/"+name+"/journal", nil, 200)["entries"].([]any)); have != want {
			t.Errorf("journal of %s: want %d entries, have %d", name, want, have)
		}
	}
	b.checkOwnOrigin(t, tw.URL)
}
