package engine

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/wraithdev/wraith/twin/apierr"
	"github.com/wraithdev/wraith/twin/session"
)

// TestUnservedAnswers: a request that did not get its session is answered
// in Wraith's error shape, 503 request-canceled, when its client went away
// while it waited, instead of a dropped connection.
func TestUnservedAnswers(t *testing.T) {
	e := newCheckout(t, Options{})
	sess, err := e.Session("s")
	if err != nil {
		t.Fatal(err)
	}
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	release := make(chan struct{})
	held := make(chan struct{})
	go sess.Do(func(*session.State) { close(held); <-release })
	<-held
	canceled := sess.DoContext(ended, func(*session.State) {})
	close(release)
	for _, c := range []struct {
		name   string
		err    error
		status int
		code   string
	}{
		{"a client gone while it waited", canceled, http.StatusServiceUnavailable, string(apierr.RequestCanceled)},
	} {
		if c.err == nil {
			t.Fatalf("%s: no error to answer", c.name)
		}
		w := httptest.NewRecorder()
		apierr.Write(w, e.unserved(c.err))
		var doc struct {
			Error struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil || w.Code != c.status || doc.Error.Code != c.code || doc.Error.Message == "" {
			t.Errorf("%s: want %d %s in the error shape, have %d %s", c.name, c.status, c.code, w.Code, w.Body)
		}
	}
}
