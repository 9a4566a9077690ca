package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"github.com/wraithdev/wraith/twin/session"
)

// A fork in a sharded fleet cannot be one POST /__wraith/session/{src}/fork:
// the proxy routes that call by {src}, so the new session would be made on
// the source's replica while its own requests hash to another. `wraith
// fleet fork` copies it through the proxy instead: GET the source's
// snapshot (routed by the source's name), PUT it at the new session's path
// (routed by the new name). Only the proxy knows where a name hashes, so
// the fork goes through it and never to replicas directly.

// fleetFork is `wraith fleet fork`'s answer.
type fleetFork struct {
	Session  string `json:"session"`
	From     string `json:"from"`
	Entities int    `json:"entities"`
	Digest   string `json:"digest"`
}

func checkForkArgs(from, to string) error {
	for _, name := range []string{from, to} {
		if err := session.ValidateName(name); err != nil {
			return usagef("session %q: %v: a session name is 1 to 128 characters of A-Z a-z 0-9 . _ : -", name, err)
		}
	}
	if from == to {
		return usagef("fork %s into itself: name a new session", from)
	}
	return nil
}

func runFleetFork(ctx context.Context, opts *fleetOptions) error {
	token := ""
	if opts.ControlTokenEnv != "" {
		token = opts.f.Getenv(opts.ControlTokenEnv)
	}
	client := &http.Client{Timeout: opts.Timeout}
	from, to := opts.Sessions[0], opts.Sessions[1]
	snap, err := controlCall(ctx, client, http.MethodGet, opts.Proxy+"/__wraith/session/"+url.PathEscape(from)+"/snapshot", token)
	if err != nil {
		return fmt.Errorf("snapshot of %s through %s: %w", from, opts.Proxy, err)
	}
	var src struct {
		Digest string `json:"digest"`
	}
	if err := json.Unmarshal(snap, &src); err != nil {
		return fmt.Errorf("snapshot of %s through %s: not a snapshot document: %v", from, opts.Proxy, err)
	}
	put, err := controlSend(ctx, client, http.MethodPut, opts.Proxy+"/__wraith/session/"+url.PathEscape(to)+"/snapshot", token, snap)
	if err != nil {
		return fmt.Errorf("restore of %s's snapshot as %s through %s: %w", from, to, opts.Proxy, err)
	}
	out := fleetFork{From: from}
	if err := json.Unmarshal(put, &out); err != nil {
		return fmt.Errorf("restore of %s as %s: not a restore answer: %v", from, to, err)
	}
	if out.Digest != src.Digest {
		return fmt.Errorf("%s restored with digest %s, but %s's snapshot has %s: the replicas serve different twins or wraith versions", to, out.Digest, from, src.Digest)
	}
	if opts.Format == "json" {
		return writeJSON(opts.f.Stdout, out)
	}
	fmt.Fprintf(opts.f.Stdout, "forked %s into %s: %d entities, %s\n", from, to, out.Entities, out.Digest)
	return nil
}
