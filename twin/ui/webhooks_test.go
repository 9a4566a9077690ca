package ui_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestViewerShowsDeliveries: the timeline shows a webhook delivery the
// twin made after the request whose event it carries, with its event,
// attempt, endpoint and why it failed.
func TestViewerShowsDeliveries(t *testing.T) {
	t.Parallel()
	b := newBrowser(t, 60*time.Second)
	posted := make(chan struct{}, 1)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusServiceUnavailable)
		posted <- struct{}{}
	}))
	defer hook.Close()
	tw := serve(t, "stripe", "--clock", "fixed")
	c := newClient(tw.URL, "")
	c.send(t, "hooks", step{Method: "POST", Path: "/v1/webhook_endpoints", Form: "url=" + url.QueryEscape(hook.URL+"/hook") + "&enabled_events[]=customer.created"})
	c.send(t, "hooks", step{Method: "POST", Path: "/v1/customers", Form: "email=hook%40example.com"})
	<-posted

	// The attempt is journaled once its answer is read, just after the
	// endpoint saw it: wait for it in the journal, then open the page.
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(fmt.Sprint(c.control(t, "GET", "/__wraith/session/hooks/journal?provenance=webhook", nil, 200)["entries"]), "attempt") {
		if time.Now().After(deadline) {
			t.Fatal("no delivery in the journal")
		}
		time.Sleep(5 * time.Millisecond) // polls a condition, within the deadline
	}
	b.do(t, "open the session", chromedp.Navigate(tw.URL+"/__wraith/ui#/s/hooks"))
	b.until(t, "the timeline", `document.getElementById('view-session').dataset.state === 'ready' && document.querySelectorAll('#journal tbody tr').length === 3`)
	type row struct{ Route, Path, Status, Provenance, Fault string }
	rows := eval[[]row](t, b, `[...document.querySelectorAll('#journal tbody tr')].map(tr => ({
		route: tr.cells[3].textContent, path: tr.cells[4].textContent, status: tr.cells[5].textContent,
		provenance: tr.cells[6].textContent, fault: tr.cells[7].textContent}))`)
	if len(rows) != 3 {
		t.Fatalf("want the two requests and the delivery, have %+v", rows)
	}
	d := rows[2]
	if !strings.HasPrefix(d.Route, "webhook evt_") || !strings.HasSuffix(d.Route, " #1") || d.Path != hook.URL+"/hook" || d.Status != "503" || d.Provenance != "webhook" {
		t.Errorf("want the delivery of an event, attempt 1, to the endpoint, answered 503; have %+v", d)
	}
	if !strings.Contains(d.Fault, "the endpoint answered 503") || !strings.Contains(d.Fault, "retry at ") {
		t.Errorf("want why it failed and when it is retried, have %q", d.Fault)
	}
}
