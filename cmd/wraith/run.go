package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/wraithdev/wraith/internal/egress/netns"
	"github.com/wraithdev/wraith/twin/session"
)

// Isolation modes of wraith run.
const (
	isolationAuto  = "auto"  // a network namespace where the system allows, else proxy variables
	isolationNetns = "netns" // a network namespace, or fail
	isolationProxy = "proxy" // proxy variables only
)

// runOptions is what `wraith run` runs with.
type runOptions struct {
	Session   string
	Twins     []string
	File      string
	Isolation string
	Argv      []string
	f         *factory
}

func newRunCmd(f *factory, runF func(context.Context, *runOptions) error) *cobra.Command {
	opts := &runOptions{f: f}
	cmd := &cobra.Command{
		Use:   "run [--session S] [--twin NAME]... [-f wraith-project.toml] -- CMD [ARGS...]",
		Short: "Run a command whose calls to the providers reach the twins, and nothing else",
		Long: `Run CMD in the egress sandbox (docs/sandbox.md): its HTTPS and HTTP calls to
the hosts the twins stand in for (api.stripe.com, api.github.com, github.com
for git, or those of twin.toml and [proxy]) reach the twins in session S,
over TLS from the project's local CA, which CMD is told to trust
(SSL_CERT_FILE, REQUESTS_CA_BUNDLE, NODE_EXTRA_CA_CERTS, CURL_CA_BUNDLE,
GIT_SSL_CAINFO). Every other connection fails at the connection, and is
logged in .wraith/egress-misses.jsonl.

On Linux, CMD runs in a network namespace of its own where those hosts
resolve to the sandbox and nothing else is reachable, so programs that
ignore proxy variables are confined too. Where the system refuses the
namespaces (--isolation auto, the default), CMD gets HTTPS_PROXY and
HTTP_PROXY instead and wraith run says on stderr what it cannot enforce.

The twins are the running project's (wraith up; sessions outlive the
run), else the --twin twins started for the run and stopped after it.
wraith run exits with CMD's status (128+N if a signal N ended it), and
passes on the signals it gets.`,
		Example: `  wraith run --session agent-17 -- curl https://api.stripe.com/v1/customers -u sk_test_x:
  wraith run --twin stripe --twin github --session ci-42 -- python3 agent.py
  wraith run --session s1 -- npx @modelcontextprotocol/server-github`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("wraith run needs a command: wraith run [flags] -- CMD [ARGS...]")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Argv = args
			if err := opts.check(); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	// Flags end at CMD: wraith run curl -s ... leaves -s to curl.
	fl.SetInterspersed(false)
	fl.StringVar(&opts.Session, "session", "", "the `SESSION` CMD's calls are in (default: the sessions its requests name themselves, else the twin's default)")
	fl.StringArrayVar(&opts.Twins, "twin", nil, "a twin `NAME` to route to (repeatable; default: every twin of the running project; without one, the twins to start for the run)")
	fl.StringVarP(&opts.File, "file", "f", "", "project manifest, to find the project's folder (default ./wraith-project.toml)")
	fl.StringVar(&opts.Isolation, "isolation", isolationAuto, "auto (a network namespace where allowed, else proxy variables), netns (fail without one) or proxy (proxy variables only)")
	return cmd
}

func (o *runOptions) check() error {
	switch o.Isolation {
	case isolationAuto, isolationNetns, isolationProxy:
	default:
		return usagef("--isolation must be auto, netns or proxy, got %q", o.Isolation)
	}
	if o.Session != "" {
		if err := session.ValidateName(o.Session); err != nil {
			return usagef("--session: %v", err)
		}
	}
	return nil
}

func runRun(ctx context.Context, opts *runOptions) error {
	f := opts.f
	log := newLogger(f, "wraith.run", "text", "warn", false)
	// The command, not wraith run, decides when the run ends: a signal is
	// passed on to it, and the twins are stopped only once it has exited.
	base := context.WithoutCancel(ctx)
	plan, err := planSandbox(base, f, opts.File, opts.Twins, log)
	if err != nil {
		return err
	}
	if plan.stop != nil {
		defer plan.stop()
	}
	router, closeRouter, err := sandboxRouter(plan, nil, log)
	if err != nil {
		return err
	}
	defer closeRouter()
	wd, err := f.Getwd()
	if err != nil {
		return err
	}
	cfg := netns.Config{
		Argv: opts.Argv, Dir: wd, Hosts: router.Table().Hosts(),
		Stdin: f.Stdin, Stdout: f.Stdout, Stderr: f.Stderr,
	}
	env := childEnv(os.Environ(), router.CA().CertFile, opts.Session)

	// Caught from before the command starts: a signal that came between
	// its start and the wait would otherwise end only wraith run's context
	// and never reach the command.
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGWINCH)
	defer signal.Stop(sigs)

	var sb *netns.Sandbox
	if opts.Isolation != isolationProxy {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("find the wraith executable for the sandbox helper: %w", err)
		}
		cfg.Helper, cfg.Env = []string{exe, sandboxHelperCmd}, env
		sb, err = netns.Start(cfg)
		switch {
		case err == nil:
			go router.ServeTLS(sb.TLS, opts.Session)
			go router.ServeDNS(sb.DNS, opts.Session)
			hs := &http.Server{Handler: router.ServeHTTP(opts.Session), ReadHeaderTimeout: 30 * time.Second}
			go hs.Serve(sb.HTTP)
			defer hs.Close()
		case errors.Is(err, netns.ErrUnavailable) && opts.Isolation == isolationAuto:
			fmt.Fprintf(f.Stderr, "wraith run: %v\n", err)
			fmt.Fprintf(f.Stderr, "wraith run: falling back: %s\n", fallbackWarning)
		case errors.Is(err, netns.ErrUnavailable):
			return fmt.Errorf("--isolation netns: %w: allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or user.max_user_namespaces > 0), or use --isolation proxy", err)
		default:
			return err
		}
	}
	if sb == nil {
		if opts.Isolation == isolationProxy {
			fmt.Fprintf(f.Stderr, "wraith run: --isolation proxy: %s\n", fallbackWarning)
		}
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return fmt.Errorf("listen for the sandbox's proxy: %w", err)
		}
		srv := startProxy(router, l, opts.Session, log)
		defer srv.Close()
		cfg.Env = withVars(env, proxyVars("http://"+l.Addr().String(), opts.Session)...)
		if sb, err = netns.StartPlain(cfg); err != nil {
			return fmt.Errorf("start %s: %w", opts.Argv[0], err)
		}
	}
	return waitChild(sb, sigs, onTerminal(f.Stdin))
}

// onTerminal reports whether r is a terminal: then a Ctrl-C or Ctrl-\
// reaches the command directly, from the terminal, as it reaches
// wraith run, and passing it on would deliver it twice.
func onTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// fallbackWarning says what proxy variables cannot enforce.
const fallbackWarning = "the command reaches the twins only through proxy variables (HTTPS_PROXY, HTTP_PROXY); a program that ignores them (Node's https and fetch, raw sockets, a hard-coded address) connects wherever it likes, and nothing here can stop it"

// waitChild waits for the command, passing on the signals wraith run gets
// (but the terminal's own, when the terminal sends them to both), and
// returns its exit status as wraith run's.
func waitChild(sb *netns.Sandbox, sigs <-chan os.Signal, terminal bool) error {
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				if terminal && (s == syscall.SIGINT || s == syscall.SIGQUIT || s == syscall.SIGWINCH) {
					continue
				}
				sb.Signal(s)
			case <-done:
				return
			}
		}
	}()
	st, err := sb.Wait()
	close(done)
	if err != nil {
		return err
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return &silentError{code: 128 + int(ws.Signal())}
	}
	if code := st.ExitCode(); code != 0 {
		return &silentError{code: code}
	}
	return nil
}

// childEnv is the command's environment: the caller's, less any proxy
// settings (in a namespace they would point nowhere; under the fallback
// they are replaced), plus the CA variables and WRAITH_SESSION.
func childEnv(base []string, caFile, sess string) []string {
	drop := map[string]bool{}
	for _, kv := range proxyVars("", "") {
		drop[kv[0]] = true
	}
	drop["ALL_PROXY"], drop["all_proxy"] = true, true
	var env []string
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if !drop[k] {
			env = append(env, kv)
		}
	}
	vars := caVars(caFile)
	if sess != "" {
		vars = append(vars, [2]string{"WRAITH_SESSION", sess})
	}
	return withVars(env, vars...)
}

// withVars sets vars in env, replacing earlier values.
func withVars(env []string, vars ...[2]string) []string {
	set := map[string]bool{}
	for _, kv := range vars {
		set[kv[0]] = true
	}
	out := make([]string, 0, len(env)+len(vars))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !set[k] {
			out = append(out, kv)
		}
	}
	for _, kv := range vars {
		out = append(out, kv[0]+"="+kv[1])
	}
	return out
}

// sandboxHelperCmd is the hidden command that wraith run starts inside
// the namespaces (package netns).
const sandboxHelperCmd = "sandbox-helper"

func newSandboxHelperCmd() *cobra.Command {
	var hosts, resolv string
	cmd := &cobra.Command{
		Use:    sandboxHelperCmd + " --hosts FILE --resolv FILE -- CMD [ARGS...]",
		Short:  "Set up wraith run's network namespace and become CMD (started by wraith run)",
		Hidden: true,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 || hosts == "" || resolv == "" {
				return usagef("%s is started by wraith run, which passes --hosts, --resolv and the command", sandboxHelperCmd)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			err := netns.Helper(hosts, resolv, args, os.Environ())
			// Only a failure returns; wraith run has been told why.
			return &silentError{code: helperFailed(err)}
		},
	}
	cmd.Flags().SetInterspersed(false)
	cmd.Flags().StringVar(&hosts, "hosts", "", "hosts file to bind over /etc/hosts")
	cmd.Flags().StringVar(&resolv, "resolv", "", "resolv.conf to bind over /etc/resolv.conf")
	return cmd
}

// helperFailed is the helper's exit status when it could not become the
// command, as env(1) and container runtimes use it.
func helperFailed(error) int { return 125 }
