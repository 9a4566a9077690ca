package engine_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/engine"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/scrub"
)

// gate is the toy dialect whose behaviour may refuse a write the engine
// made (dialect.Restater) and answers some writes itself naming what it
// ignored (Answer.Ignored): a widget labelled "bad" is kept but refused
// with 402; one labelled "mine" is the dialect's own answer. No provider
// speaks it.
type gate struct{ toy }

var (
	_ dialect.Handler  = gate{}
	_ dialect.Restater = gate{}
)

func (gate) Handles(route string) bool { return route == "POST /widgets" }

func (gate) Handle(c *dialect.Call) (dialect.Answer, bool) {
	if label, _ := c.Params["label"].(string); label != "mine" {
		return dialect.Answer{}, false
	}
	return dialect.Answer{Status: http.StatusOK, Body: []byte(`{"id":"own","label":"mine","size":0}`), Ignored: []string{"colour"}}, true
}

func (gate) Follows(route string) bool { return route == "POST /widgets" }

func (gate) Answered(c *dialect.Call, status int, body []byte) []byte {
	var made struct{ Label string }
	if json.Unmarshal(body, &made) != nil || made.Label != "bad" {
		return nil
	}
	return []byte(`{"error":{"message":"refused after it was made"}}`)
}

func (gate) Restate(body []byte) int {
	if bytes.HasPrefix(body, []byte(`{"error":`)) {
		return http.StatusPaymentRequired
	}
	return 0
}

// TestDialectRestates: a body Answered returns may carry the status the
// dialect says (402), the entity the engine made kept; a body it does not
// restate keeps the engine's 201; a Handler's own answer reports the
// parameters it names ignored in X-Wraith-Ignored-Params.
func TestDialectRestates(t *testing.T) {
	tw, err := format.Load(fstest.MapFS{"twin.toml": {Data: []byte(toyTwin)}}, "toys")
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(tw, engine.Options{
		Dialect:       gate{},
		UnknownEntity: engine.NotFound,
		Scrubber:      scrub.New(scrub.DeriveKey([]byte(tw.Digest)), scrub.Policy{}),
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(e)
	defer srv.Close()
	send := func(method, path, form string) (*http.Response, string) {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(form))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Wraith-Session", "gate")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	for _, c := range []struct {
		form, status, ignored string
	}{
		{"label=bad", "402 Payment Required", ""},
		{"label=good", "201 Created", ""},
		{"label=mine&colour=red", "200 OK", "colour"},
	} {
		resp, body := send("POST", "/widgets", c.form)
		if resp.Status != c.status || resp.Header.Get("X-Wraith-Ignored-Params") != c.ignored {
			t.Errorf("POST /widgets %s: want %s ignoring %q, have %s ignoring %q: %s", c.form, c.status, c.ignored, resp.Status, resp.Header.Get("X-Wraith-Ignored-Params"), body)
		}
	}
	if _, body := send("GET", "/widgets", ""); !strings.Contains(body, `"label":"bad"`) || !strings.Contains(body, `"label":"good"`) {
		t.Errorf("widgets: want the refused one kept beside the other, have %s", body)
	}
}
