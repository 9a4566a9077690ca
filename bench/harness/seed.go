package main

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/wraithdev/wraith/ipc"
)

// seedSessions provisions the sessions of a shape through the control
// plane and gives each `entities` created customers, with a few workers so
// that seeding 10,000 sessions takes seconds. It stops at the first failure.
func seedSessions(ctx context.Context, base string, sh shape, entities int) error {
	const workers = 8
	tr := &http.Transport{MaxIdleConnsPerHost: workers}
	defer tr.CloseIdleConnections()
	c := &http.Client{Timeout: 10 * time.Second, Transport: tr}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan int)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := seedOne(c, base, sh.name(i), entities); err != nil {
					errs <- err
					cancel()
					return
				}
			}
		}()
	}
feed:
	for i := range sh.n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return ctx.Err()
	}
}

func seedOne(c *http.Client, base, session string, entities int) error {
	pr := probe{method: "POST", path: "/__wraith/session", header: map[string]string{"Content-Type": "application/json"}}
	code, body, err := do(c, base, pr, []byte(`{"session":"`+session+`"}`))
	if err != nil || (code != http.StatusCreated && code != http.StatusOK) {
		return fmt.Errorf("provision %s: %d %v %s", session, code, err, body)
	}
	pr = createProbe(session)
	for range entities {
		code, body, err := do(c, base, pr, []byte(createBody))
		if err != nil || code != http.StatusOK {
			return fmt.Errorf("create in %s: %d %v %s", session, code, err, body)
		}
	}
	return nil
}

// createProbe is a create in a session, with the headers every load sends.
func createProbe(session string) probe {
	return probe{method: "POST", path: postPath, header: map[string]string{
		"Authorization": authHeader, "Content-Type": "application/x-www-form-urlencoded", ipc.SessionHeader: session}}
}
