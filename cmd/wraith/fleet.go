package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
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
		Use:   "fleet sessions|reset|coverage|metrics",
		Short: "Send a control call to every replica of a sharded fleet and merge the answers",
		Long: `Send one control call to every replica of a fleet (several wraith serve
processes behind nginx, sharded by session: docs/fleet.md) at once, and
merge the answers:

  sessions  every replica's sessions, each with the replica it lives on
  reset     resets every session everywhere; the counts are summed
  coverage  route hits summed per method and route, misses merged by method and path
  metrics   one Prometheus text document, each sample labelled replica="URL"

Replicas are --replicas, or the twins of the project wraith up runs in this
folder. A replica that does not answer in --timeout is reported on standard
error and the command exits 1, after printing what the others answered.`,
		Example: `  wraith fleet sessions --replicas http://10.0.0.1:8081,http://10.0.0.2:8081 --control-token-env WRAITH_TOKEN
  wraith fleet reset --format json
  wraith fleet metrics --replicas http://127.0.0.1:8081,http://127.0.0.1:8082`,
		ValidArgs: []string{"sessions", "reset", "coverage", "metrics"},
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("%s takes one action: sessions, reset, coverage or metrics", cmd.CommandPath())
			}
			if _, ok := fleetActions[args[0]]; !ok {
				return usagef("unknown action %q: want sessions, reset, coverage or metrics", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Action = args[0]
			if err := opts.check(); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runFleet(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringSliceVar(&opts.Replicas, "replicas", nil, "the replicas' base `URLS`, comma-separated (default: the twins of the project wraith up runs here)")
	cmd.Flags().StringVarP(&opts.File, "file", "f", "", "project manifest, to find the project whose twins are the replicas (default ./"+manifest.DefaultFile+")")
	cmd.Flags().StringVar(&opts.Format, "format", "text", "output `FORMAT`: text or json")
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", 5*time.Second, "how long (a `DURATION`) each replica has to answer")
	cmd.Flags().StringVar(&opts.ControlTokenEnv, "control-token-env", "", "name of the environment variable `VAR` holding the replicas' control token")
	return cmd
}

func (o *fleetOptions) check() error {
	if err := checkFormat(o.Format); err != nil {
		return err
	}
	if o.Timeout <= 0 {
		return usagef("--timeout must be positive, got %s", o.Timeout)
	}
	seen := map[string]bool{}
	for i, r := range o.Replicas {
		u, err := url.Parse(r)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
			return usagef("--replicas: %q is not a replica's base URL: want http://HOST:PORT, as the ready JSON's serve.url", r)
		}
		o.Replicas[i] = strings.TrimSuffix(r, "/")
		if seen[o.Replicas[i]] {
			return usagef("--replicas names %s twice: list each replica once", o.Replicas[i])
		}
		seen[o.Replicas[i]] = true
	}
	if o.ControlTokenEnv != "" && o.f.Getenv(o.ControlTokenEnv) == "" {
		return usagef("--control-token-env %s: the variable is empty or unset; export the replicas' control token in it", o.ControlTokenEnv)
	}
	return nil
}

// replicaAnswer is one replica's answer to the fanned-out call.
type replicaAnswer struct {
	Replica string `json:"replica"`
	Error   string `json:"error,omitempty"`
	body    []byte
}

func runFleet(ctx context.Context, opts *fleetOptions) error {
	replicas := opts.Replicas
	if len(replicas) == 0 {
		st, err := probeProject(opts.f, opts.File)
		if err != nil {
			return fmt.Errorf("no --replicas given, and no project to take them from: %w", err)
		}
		for _, t := range st.Twins {
			if u := t.Ready.Serve.URL; u != "" {
				replicas = append(replicas, u)
			}
		}
		if len(replicas) == 0 {
			return errors.New("the project wraith up runs here has no ready twins yet: wait for wraith status to show them, or pass --replicas")
		}
	}
	token := ""
	if opts.ControlTokenEnv != "" {
		token = opts.f.Getenv(opts.ControlTokenEnv)
	}
	answers := fanOut(ctx, replicas, opts.Action, token, opts.Timeout)
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
func fanOut(ctx context.Context, replicas []string, action, token string, timeout time.Duration) []replicaAnswer {
	call := fleetActions[action]
	client := &http.Client{Timeout: timeout}
	answers := make([]replicaAnswer, len(replicas))
	var wg sync.WaitGroup
	for i, r := range replicas {
		answers[i].Replica = r
		wg.Go(func() {
			body, err := controlCall(ctx, client, call.method, r+call.path, token)
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
	req, err := http.NewRequestWithContext(ctx, method, u, nil)
	if err != nil {
		return nil, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("unreachable: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("reading %s %s: %v", method, u, err)
	}
	if resp.StatusCode/100 == 2 {
		return body, nil
	}
	var e struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	json.Unmarshal(body, &e)
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
