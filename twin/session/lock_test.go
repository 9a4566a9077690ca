package session

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/wraithdev/wraith/twin/world"
)

// TestDoContextGivesUp: a request waiting for a session that another
// request holds returns when its context ends, without running, and the
// lock still works afterwards.
func TestDoContextGivesUp(t *testing.T) {
	s := New("s", Settings{}, world.NewBuilder().Build(), false)
	held, release := make(chan struct{}), make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Do(func(*State) {
			close(held)
			<-release
		})
	}()
	<-held

	ctx, cancel := context.WithCancel(context.Background())
	waited := make(chan error, 1)
	ran := false
	go func() { waited <- s.DoContext(ctx, func(*State) { ran = true }) }()
	cancel()
	select {
	case err := <-waited:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("want context.Canceled, have %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("DoContext still waiting 10 s after its context ended")
	}
	if ran {
		t.Error("fn ran although the context ended first")
	}
	close(release)
	<-done
	if err := s.DoContext(context.Background(), func(*State) { ran = true }); err != nil || !ran {
		t.Errorf("after release: want fn run and no error, have ran=%v err=%v", ran, err)
	}
}
