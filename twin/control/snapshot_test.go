package control_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// blockingWriter is a client that takes the first byte of its answer and
// then stops reading until released.
type blockingWriter struct {
	*httptest.ResponseRecorder
	writing chan struct{}
	release chan struct{}
}

func (b *blockingWriter) Write(p []byte) (int, error) {
	close(b.writing)
	<-b.release
	return b.ResponseRecorder.Write(p)
}

// TestSnapshotsOneAtATime: a snapshot document is the whole session
// materialised, so a process writes one at a time. A second snapshot asked
// for while the first is being written waits, and gives up with its
// request; after the first is written the next is served. Without the gate,
// concurrent snapshots of forks of a large session ran a twin out of
// memory, and the second call here answered 200 at once.
func TestSnapshotsOneAtATime(t *testing.T) {
	h, _ := newCheckout(t)
	provision := httptest.NewRecorder()
	h.ServeHTTP(provision, httptest.NewRequest(http.MethodPost, "/__wraith/session", strings.NewReader(`{"session":"s"}`)))
	if provision.Code != http.StatusCreated {
		t.Fatalf("provision: want 201, have %d: %s", provision.Code, provision.Body)
	}
	get := func(ctx context.Context, w http.ResponseWriter) {
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/__wraith/session/s/snapshot", nil).WithContext(ctx))
	}

	first := &blockingWriter{httptest.NewRecorder(), make(chan struct{}), make(chan struct{})}
	done := make(chan struct{})
	go func() { defer close(done); get(context.Background(), first) }()
	<-first.writing

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	second := httptest.NewRecorder()
	get(ctx, second)
	if second.Code != http.StatusServiceUnavailable || !strings.Contains(second.Body.String(), `"request-canceled"`) {
		t.Errorf("a snapshot asked for while another is written, its request gone: want 503 request-canceled, have %d: %s", second.Code, second.Body)
	}

	close(first.release)
	<-done
	if first.Code != http.StatusOK {
		t.Errorf("first snapshot: want 200, have %d", first.Code)
	}
	third := httptest.NewRecorder()
	get(context.Background(), third)
	if third.Code != http.StatusOK || !strings.Contains(third.Body.String(), `"format":1`) {
		t.Errorf("a snapshot after the first was written: want 200 with the document, have %d: %.200s", third.Code, third.Body)
	}
}
