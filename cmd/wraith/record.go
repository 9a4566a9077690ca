package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/wraithdev/wraith/ipc"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/hostguard"
	"github.com/wraithdev/wraith/twin/record"
	"github.com/wraithdev/wraith/twin/scrub"
)

// recordOptions is what `wraith record` runs with.
type recordOptions struct {
	Dir       string
	Upstream  string
	AuthEnv   string
	Name      string
	Host      string
	Port      int
	TokenEnv  string
	ReadyJSON string
	MaxBody   int64
	Grace     time.Duration
	f         *factory
	now       func() time.Time
}

func newRecordCmd(f *factory, runF func(context.Context, *recordOptions) error) *cobra.Command {
	opts := &recordOptions{f: f, now: time.Now}
	cmd := &cobra.Command{
		Use:   "record TWIN_DIR --upstream URL",
		Short: "Record a live provider into a twin folder through a scrubbing proxy",
		Long: `Run a recording proxy (on 127.0.0.1 unless --host says otherwise) in front
of the live provider. Point your client at it: every request goes to --upstream, with the credential from
--auth-env injected, and every completed exchange is appended to
TWIN_DIR/recordings/NAME/<n>.json, scrubbed before it is written
(credentials removed, PII replaced by HMAC tokens keyed by WRAITH_HMAC_KEY).
Each exchange is synced to disk before its answer goes back, so a killed
recorder loses only the exchanges in flight. Indices continue after the
files already there: nothing recorded is ever overwritten.

On loopback the recorder refuses requests a web page could send (a
non-loopback Host, another site's Origin, Referer or Sec-Fetch-Site), so a
page in your browser cannot spend the credential. Off loopback it needs
--token-env, and every request must carry that token.

A TWIN_DIR without twin.toml gets a minimal one (format 1, the folder's
name, --upstream). Stop with Ctrl-C (SIGINT) or SIGTERM. See
docs/recording.md.`,
		Example: `  export WRAITH_HMAC_KEY=$(cat ~/.wraith-hmac-key) STRIPE_KEY=sk_test_...
  wraith record twins/payments --upstream https://api.stripe.com \
    --auth-env STRIPE_KEY --name checkout-flow --ready-json /tmp/rec.json
  STRIPE_API_BASE=$(jq -r .record.url /tmp/rec.json) ./run-my-flow.sh`,
		Args: exactArgs(1, "TWIN_DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = args[0]
			if err := opts.check(); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runRecord(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Upstream, "upstream", "", "the provider's base URL (default: upstream in TWIN_DIR/twin.toml)")
	fl.StringVar(&opts.AuthEnv, "auth-env", "", "environment variable holding the credential sent upstream as Authorization: Bearer (never written)")
	fl.StringVar(&opts.Name, "name", "", "recording name, the folder under recordings/ (default: today's date, UTC)")
	fl.StringVar(&opts.Host, "host", "127.0.0.1", "address to bind; a non-loopback address needs --token-env")
	fl.IntVar(&opts.Port, "port", 0, "port to bind; 0 picks a free one (read it from --ready-json)")
	fl.StringVar(&opts.TokenEnv, "token-env", "", "environment variable holding a token every request must carry in "+record.TokenHeader+" (or, with --auth-env, as its bearer); required off loopback")
	fl.StringVar(&opts.ReadyJSON, "ready-json", "", "write the recorder's address here once it listens (temp file + rename)")
	fl.Int64Var(&opts.MaxBody, "max-body", record.DefaultMaxBody, "largest body recorded, in bytes, each way")
	fl.DurationVar(&opts.Grace, "shutdown-grace", 5*time.Second, "how long in-flight exchanges may finish on SIGINT/SIGTERM")
	return cmd
}

// check validates flags that need no outside world.
func (o *recordOptions) check() error {
	if o.Upstream != "" {
		if err := checkUpstream(o.Upstream); err != nil {
			return err
		}
	}
	if o.Name == "" {
		o.Name = o.now().UTC().Format("2006-01-02")
	}
	if !format.ValidName(o.Name) {
		return usagef("--name %q: recording names match %s", o.Name, format.NamePattern)
	}
	if o.Port < 0 || o.Port > 65535 {
		return usagef("--port must be 0-65535, got %d", o.Port)
	}
	if o.TokenEnv != "" && !hostguard.ValidEnvName(o.TokenEnv) {
		return usagef("--token-env: want the name of an environment variable (letters, digits, _), not the token itself")
	}
	if o.MaxBody <= 0 {
		return usagef("--max-body must be positive, got %d", o.MaxBody)
	}
	if o.Grace <= 0 {
		return usagef("--shutdown-grace must be positive, got %s", o.Grace)
	}
	return nil
}

func checkUpstream(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return usagef("--upstream %q is not a URL: %v", raw, err)
	case u.Scheme != "http" && u.Scheme != "https" || u.Host == "":
		return usagef("--upstream %q: want http:// or https:// and a host, like https://api.stripe.com", raw)
	case u.User != nil:
		return usagef("--upstream must not carry credentials: put them in an environment variable and name it with --auth-env")
	case u.RawQuery != "" || u.Fragment != "":
		return usagef("--upstream %q: want a base URL without query or fragment", raw)
	}
	return nil
}

// recordReady is the document --ready-json writes.
type recordReady struct {
	Version       int        `json:"wraith_record_version"`
	WraithVersion string     `json:"wraith_version"`
	Record        recordInfo `json:"record"`
}

type recordInfo struct {
	URL          string `json:"url"`
	Host         string `json:"host"`
	Port         int    `json:"port"`
	PID          int    `json:"pid"`
	Upstream     string `json:"upstream"`
	TwinDir      string `json:"twin_dir"`
	Recording    string `json:"recording"`
	NextIndex    int    `json:"next_index"`
	StableTokens bool   `json:"stable_tokens"`
	// Auth is "token" when requests need the recorder's token, else "none".
	Auth string `json:"record_auth"`
}

func runRecord(ctx context.Context, opts *recordOptions) error {
	f := opts.f
	log := newLogger(f, "wraith", "text", "info", false).Named("record")
	wd, err := f.Getwd()
	if err != nil {
		return err
	}
	dir := opts.Dir
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(wd, dir)
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return usagef("TWIN_DIR %s is a file; record into a twin folder (pack it afterwards with wraith pack)", opts.Dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "twin.toml")); err != nil && opts.Upstream == "" {
		return usagef("%s has no twin.toml: give --upstream, the provider's base URL, to start a new twin there", opts.Dir)
	}
	var credential string
	if opts.AuthEnv != "" {
		if credential = f.Getenv(opts.AuthEnv); credential == "" {
			return usagef("--auth-env %s: the variable is empty or unset; export the provider credential in it", opts.AuthEnv)
		}
	}
	loopback, token, err := recordAccess(opts, f.Getenv)
	if err != nil {
		return err
	}
	key, stable, err := scrub.KeyFromEnv(f.Getenv)
	if err != nil {
		return &usageError{err}
	}

	t, created, err := record.Prepare(dir, opts.Upstream)
	if err != nil {
		return err
	}
	if created {
		log.Info("created a minimal twin.toml; declare resources there (docs/twin-format.md)", "path", filepath.Join(dir, "twin.toml"))
	}
	upstream := opts.Upstream
	if upstream == "" {
		upstream = t.Manifest.Upstream
		if upstream == "" {
			return usagef("%s/twin.toml names no upstream: give --upstream", opts.Dir)
		}
		if err := checkUpstream(upstream); err != nil {
			return usagef("upstream in %s/twin.toml: %v", opts.Dir, err)
		}
	}
	if !stable {
		fmt.Fprintln(f.Stderr, "wraith: WARNING: WRAITH_HMAC_KEY is not set: this recording's PII tokens come from a random key and will not match any other run's; set a stable key (openssl rand -hex 32) before recording")
	}
	u, _ := url.Parse(upstream)
	rec, err := record.New(record.Options{
		Dir:        dir,
		Name:       opts.Name,
		Upstream:   u,
		Credential: credential,
		Scrubber:   scrub.New(key, scrub.Policy{Fields: t.Manifest.PII.Fields, Verbatim: t.Manifest.PII.Verbatim}),
		MaxBody:    opts.MaxBody,
		Logger:     log,
		// The proxy adds a live credential to whatever reaches it: on
		// loopback it refuses web pages, elsewhere it needs the token.
		OffLoopback: !loopback,
		Token:       token,
	})
	if err != nil {
		return err
	}

	ln, err := net.Listen("tcp", hostguard.ListenAddr(opts.Host, opts.Port))
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return fmt.Errorf("port %d on %s is in use: pick another port, or use --port 0 for any free port", opts.Port, opts.Host)
		}
		return err
	}
	if bound := ln.Addr().(*net.TCPAddr).IP; loopback && !bound.IsLoopback() {
		ln.Close()
		return usagef("--host %s resolved to loopback but bound %s: bind --host 127.0.0.1", opts.Host, bound)
	}
	srv := rec.Server()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	addr := ln.Addr().(*net.TCPAddr)
	info := recordInfo{
		URL:          "http://" + addr.String(),
		Host:         addr.IP.String(),
		Port:         addr.Port,
		PID:          os.Getpid(),
		Upstream:     upstream,
		TwinDir:      dir,
		Recording:    opts.Name,
		NextIndex:    rec.Next(),
		StableTokens: stable,
		Auth:         "none",
	}
	if token != "" {
		info.Auth = "token"
	}
	if opts.ReadyJSON != "" {
		b, _ := json.Marshal(recordReady{Version: 1, WraithVersion: f.Version, Record: info})
		if err := ipc.WriteFileAtomic(opts.ReadyJSON, append(b, '\n'), 0o644); err != nil {
			srv.Close()
			return err
		}
	}
	log.Info("recording", "url", info.URL, "upstream", upstream, "into", rec.Dir(), "from_index", info.NextIndex, "auth", authNote(opts.AuthEnv))

	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), opts.Grace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		log.Warn("in-flight exchanges did not finish within the grace period; they are not recorded", "grace", opts.Grace)
		srv.Close()
	}
	fmt.Fprintf(f.Stderr, "wraith: recorded %d exchanges into %s\n", rec.Count(), rec.Dir())
	return nil
}

// recordAccess decides how the recorder is guarded: whether --host is
// loopback (then web pages are refused), and the token from --token-env,
// which a non-loopback bind requires. The rules are serve's (package
// hostguard), so a recorder is never more open than a twin.
func recordAccess(opts *recordOptions, getenv func(string) string) (loopback bool, token string, err error) {
	loopback, err = hostguard.LoopbackBind(opts.Host, hostguard.SystemResolver)
	if err != nil {
		return false, "", usagef("--host %q: %v", opts.Host, err)
	}
	if opts.TokenEnv != "" {
		if token, err = hostguard.TokenFromEnv("--token-env", opts.TokenEnv, getenv); err != nil {
			return false, "", &usageError{err}
		}
	}
	if !loopback && token == "" {
		host := opts.Host
		if host == "" {
			host = "every interface"
		}
		return false, "", usagef("--host %s is not a loopback address, so anyone who can reach it could send requests upstream with the live credential: set --token-env VAR (with a token in the environment variable VAR that every client sends in %s), or bind --host 127.0.0.1", host, record.TokenHeader)
	}
	return loopback, token, nil
}

// authNote says where the upstream credential comes from, never what it is.
func authNote(env string) string {
	if env == "" {
		return "the client's own Authorization header"
	}
	return "Bearer from $" + env
}
