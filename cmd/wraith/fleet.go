package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/wraithdev/wraith/manifest"
)

// fleetActions are what `wraith fleet` fans out, with the control call
// each one sends to every replica.
var fleetActions = map[string]struct{ method, path string }{
	"sessions": {http.MethodGet, "/__wraith/session"},
	"reset":    {http.MethodPost, "/__wraith/reset"},
	"coverage": {http.MethodGet, "/__wraith/coverage"},
	"metrics":  {http.MethodGet, "/__wraith/metrics"},
}

// fleetOptions is what `wraith fleet` runs with.
type fleetOptions struct {
	Action          string
	Sessions        []string // fork's SRC and NEW
	Proxy           string   // fork's way into the fleet
	Replicas        []string
	File            string
	Format          string
	Timeout         time.Duration
	ControlTokenEnv string
	f               *factory
}

func newFleetCmd(f *factory, runF func(context.Context, *fleetOptions) error) *cobra.Command {
	opts := &fleetOptions{f: f}
	cmd := &cobra.Command{
		Use:   "fleet sessions|reset|coverage|metrics | fleet fork SRC NEW --proxy URL",
		Short: "Send a control call to every replica of a sharded fleet and merge the answers",
		Long: `Send one control call to every replica of a fleet (several wraith serve
processes behind nginx, sharded by session: docs/fleet.md) at once, and
merge the answers:

  sessions  every replica's sessions, each with the replica it lives on
  reset     resets every session everywhere; the counts are summed
  coverage  route hits summed per method and route, misses merged by method and path
  metrics   one Prometheus text document, each sample labelled replica="URL"

Replicas are --replicas, or the twins of the project wraith up runs in this
folder, each asked with its own control token. A replica that does not
answer in --timeout is reported on standard error and the command exits 1,
after printing what the others answered.

  fork SRC NEW  copies session SRC into a new session NEW through the
                fleet's proxy (--proxy): GET SRC's snapshot, PUT it at NEW's
                path, so that NEW is made on the replica NEW's requests
                hash to. (POST /__wraith/session/SRC/fork through the proxy
                would make NEW on SRC's replica.)`,
		Example: `  wraith fleet sessions --replicas http://10.0.0.1:8081,http://10.0.0.2:8081 --control-token-env WRAITH_TOKEN
  wraith fleet reset --format json
  wraith fleet metrics --replicas http://127.0.0.1:8081,http://127.0.0.1:8082
  wraith fleet fork agent-1 agent-1-try2 --proxy http://127.0.0.1:8080`,
		ValidArgs: []string{"sessions", "reset", "coverage", "metrics", "fork"},
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 && args[0] == "fork" {
				if len(args) != 3 {
					return usagef("%s fork takes two sessions: SRC, and the NEW one to copy it into", cmd.CommandPath())
				}
				return checkForkArgs(args[1], args[2])
			}
			if len(args) != 1 {
				return usagef("%s takes one action: sessions, reset, coverage or metrics (or fork SRC NEW)", cmd.CommandPath())
			}
			if _, ok := fleetActions[args[0]]; !ok {
				return usagef("unknown action %q: want sessions, reset, coverage, metrics or fork", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Action = args[0]
			if opts.Action == "fork" {
				opts.Sessions = args[1:]
			}
			if err := opts.check(); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			if opts.Action == "fork" {
				return runFleetFork(cmd.Context(), opts)
			}
			return runFleet(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringSliceVar(&opts.Replicas, "replicas", nil, "the replicas' base `URLS`, comma-separated (default: the twins of the project wraith up runs here)")
	cmd.Flags().StringVarP(&opts.File, "file", "f", "", "project manifest, to find the project whose twins are the replicas (default ./"+manifest.DefaultFile+")")
	cmd.Flags().StringVar(&opts.Format, "format", "text", "output `FORMAT`: text or json")
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", 5*time.Second, "how long (a `DURATION`) each replica has to answer")
	cmd.Flags().StringVar(&opts.ControlTokenEnv, "control-token-env", "", "name of the environment variable `VAR` holding the replicas' control token")
	cmd.Flags().StringVar(&opts.Proxy, "proxy", "", "fork: the fleet's proxy, as a base `URL` (nginx in front of the replicas)")
	return cmd
}

func (o *fleetOptions) check() error {
	if err := checkFormat(o.Format); err != nil {
		return err
	}
	if o.Timeout <= 0 {
		return usagef("--timeout must be positive, got %s", o.Timeout)
	}
	if o.Action == "fork" {
		if o.Proxy == "" || len(o.Replicas) > 0 || o.File != "" {
			return usagef("fleet fork goes through the fleet's proxy: give --proxy URL (and no --replicas or --file), since only the proxy knows which replica a new session's name hashes to")
		}
		u, err := baseURL("--proxy", o.Proxy)
		if err != nil {
			return err
		}
		o.Proxy = u
		return checkTokenEnv(o.f, o.ControlTokenEnv)
	}
	if o.Proxy != "" {
		return usagef("--proxy is for fleet fork only: %s goes to every replica (--replicas)", o.Action)
	}
	seen := map[string]bool{}
	for i, r := range o.Replicas {
		u, err := baseURL("--replicas", r)
		if err != nil {
			return err
		}
		if seen[u] {
			return usagef("--replicas names %s twice: list each replica once", u)
		}
		o.Replicas[i], seen[u] = u, true
	}
	return checkTokenEnv(o.f, o.ControlTokenEnv)
}

// replicaAnswer is one replica's answer to the fanned-out call.
type replicaAnswer struct {
	Replica string `json:"replica"`
	Error   string `json:"error,omitempty"`
	body    []byte
}

func runFleet(ctx context.Context, opts *fleetOptions) error {
	replicas := urlTargets(opts.f, opts.Replicas, opts.ControlTokenEnv)
	if len(replicas) == 0 {
		// The project's twins, each with its own control token.
		var err error
		if replicas, err = projectTargets(opts.f, opts.File, opts.ControlTokenEnv, "--replicas"); err != nil {
			return err
		}
	}
	answers := fanOut(ctx, replicas, opts.Action, opts.Timeout)
	var merged any
	var err error
	switch opts.Action {
	case "sessions":
		merged, err = mergeSessions(answers)
	case "reset":
		merged, err = mergeReset(answers)
	case "coverage":
		merged, err = mergeCoverage(answers)
	case "metrics":
		merged = mergeMetrics(answers)
	}
	if err != nil {
		return err
	}
	if opts.Format == "json" {
		if err := writeJSON(opts.f.Stdout, merged); err != nil {
			return err
		}
	} else {
		writeFleetText(opts.f.Stdout, merged)
	}
	failed := 0
	for _, a := range answers {
		if a.Error != "" {
			fmt.Fprintf(opts.f.Stderr, "wraith: replica %s: %s\n", a.Replica, a.Error)
			failed++
		}
	}
	if failed > 0 {
		fmt.Fprintf(opts.f.Stderr, "wraith: %d of %d replicas did not answer; the output above is from the others\n", failed, len(answers))
		return &silentError{code: exitRuntime}
	}
	return nil
}

// fanOut sends action's control call to every replica at once, each
// bounded by timeout, and returns the answers in the replicas' order.
func fanOut(ctx context.Context, replicas []controlTarget, action string, timeout time.Duration) []replicaAnswer {
	call := fleetActions[action]
	client := &http.Client{Timeout: timeout}
	answers := make([]replicaAnswer, len(replicas))
	var wg sync.WaitGroup
	for i, r := range replicas {
		answers[i].Replica = r.URL
		wg.Go(func() {
			body, err := controlCall(ctx, client, call.method, r.URL+call.path, r.token)
			if err != nil {
				answers[i].Error = err.Error()
				return
			}
			answers[i].body = body
		})
	}
	wg.Wait()
	return answers
}

// controlCall sends one control request and returns a 2xx answer's body;
// anything else is an error saying what the replica answered.
func controlCall(ctx context.Context, c *http.Client, method, u, token string) ([]byte, error) {
	return controlSend(ctx, c, method, u, token, nil)
}

// controlSend is controlCall with a JSON body, when body is not nil.
func controlSend(ctx context.Context, c *http.Client, method, u, token string, body []byte) ([]byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("unreachable: %v", err)
	}
	defer resp.Body.Close()
	// A snapshot may be as large as a replica takes one (1 GiB).
	const maxAnswer = 1 << 30
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s %s: %v", method, u, err)
	}
	if len(answer) > maxAnswer {
		return nil, fmt.Errorf("%s %s: the answer is larger than %d bytes", method, u, maxAnswer)
	}
	if resp.StatusCode/100 == 2 {
		return answer, nil
	}
	var e struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	json.Unmarshal(answer, &e)
	path := strings.TrimPrefix(u, strings.SplitN(u, "/__wraith", 2)[0])
	switch {
	case resp.StatusCode == http.StatusNotFound && e.Error.Code == "control-not-found":
		return nil, fmt.Errorf("%s %s is not a control endpoint of this replica (404 control-not-found): it runs an older wraith; upgrade it to one that serves %s", method, path, path)
	case resp.StatusCode == http.StatusUnauthorized:
		return nil, fmt.Errorf("401 %s: pass the replicas' control token with --control-token-env VAR", e.Error.Code)
	case e.Error.Code != "":
		return nil, fmt.Errorf("%s %s: %d %s: %s", method, path, resp.StatusCode, e.Error.Code, e.Error.Message)
	}
	return nil, fmt.Errorf("%s %s: %s", method, path, resp.Status)
}
