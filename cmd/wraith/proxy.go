package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/wraithdev/wraith/internal/egress"
	"github.com/wraithdev/wraith/ipc"
	"github.com/wraithdev/wraith/supervisor"
)

// proxyOptions is what `wraith proxy` runs with.
type proxyOptions struct {
	Port        int
	Twins       []string
	ReadyJSON   string
	Passthrough []string
	File        string
	LogFormat   string
	f           *factory
}

func newProxyCmd(f *factory, runF func(context.Context, *proxyOptions) error) *cobra.Command {
	opts := &proxyOptions{f: f}
	cmd := &cobra.Command{
		Use:   "proxy",
		Short: "Run an HTTP/HTTPS forward proxy that sends the providers' hosts to the twins and refuses every other host",
		Long: `Run the egress sandbox as a forward proxy on 127.0.0.1, for programs that
honour HTTPS_PROXY and HTTP_PROXY (docs/sandbox.md).

A request or CONNECT to a host a twin stands in for (api.stripe.com,
api.github.com, github.com, or the hosts of twin.toml and [proxy]) goes to
that twin; TLS is terminated with a certificate from the project's local CA
(.wraith/ca/ca.pem; its key never leaves that folder). The session is the
user name of the proxy credential: HTTPS_PROXY=http://agent-17:x@127.0.0.1:PORT.
Any other host gets 403 egress-refused and nothing is dialled, unless
--passthrough names it.

The twins are the running project's (wraith up), or, with no project up,
the --twin twins started for the proxy's lifetime. The ready document
(--ready-json) names the proxy's URL and the CA file.`,
		Example: `  wraith proxy --port 8080 --ready-json /tmp/proxy.json
  HTTPS_PROXY=http://agent-17:x@127.0.0.1:8080 SSL_CERT_FILE=.wraith/ca/ca.pem \
    curl https://api.stripe.com/v1/customers -u sk_test_x:`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Port < 0 || opts.Port > 65535 {
				return usagef("--port %d is out of range: use 1-65535, or 0 for a free port", opts.Port)
			}
			for _, h := range opts.Passthrough {
				if h == "" || strings.ContainsAny(h, "/:@ \t") {
					return usagef("--passthrough %q is not a host name: give the name alone, such as --passthrough pypi.org", h)
				}
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runProxy(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&opts.Port, "port", 0, "`PORT` to listen on, on 127.0.0.1 (0: a free port)")
	fl.StringArrayVar(&opts.Twins, "twin", nil, "a twin `NAME` to route to (repeatable; default: every twin of the running project)")
	fl.StringVar(&opts.ReadyJSON, "ready-json", "", "write the proxy's ready document (URL, CA file) to `FILE` once it listens")
	fl.StringArrayVar(&opts.Passthrough, "passthrough", nil, "a `HOST` reached directly, neither routed nor refused (repeatable)")
	fl.StringVarP(&opts.File, "file", "f", "", "project manifest, to find the project's folder (default ./wraith-project.toml)")
	fl.StringVar(&opts.LogFormat, "log-format", "text", "log format: text or json")
	return cmd
}

// ProxyReady is the proxy's ready document, as --ready-json and the
// proxy.json of `wraith up` hold it.
type ProxyReady struct {
	Version int    `json:"wraith_proxy_version"`
	URL     string `json:"url"`
	Host    string `json:"host"`
	Port    int    `json:"port"`
	PID     int    `json:"pid"`
	// CAFile is the CA certificate programs must trust.
	CAFile string `json:"ca_file"`
	// Hosts are the hosts routed to twins.
	Hosts []string `json:"hosts"`
}

// proxyReadyVersion is the version of ProxyReady.
const proxyReadyVersion = 1

func runProxy(ctx context.Context, opts *proxyOptions) error {
	f := opts.f
	log := newLogger(f, "wraith.proxy", opts.LogFormat, "info", false)
	plan, err := planSandbox(ctx, f, opts.File, opts.Twins, log)
	if err != nil {
		return err
	}
	if plan.stop != nil {
		defer plan.stop()
	}
	pass := opts.Passthrough
	if plan.proj != nil && plan.proj.Proxy != nil {
		pass = append(pass, plan.proj.Proxy.Passthrough...)
	}
	router, closeRouter, err := sandboxRouter(plan, pass, log)
	if err != nil {
		return err
	}
	defer closeRouter()
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(opts.Port)))
	if err != nil {
		return fmt.Errorf("listen on 127.0.0.1:%d: %w: pick another --port, or 0 for a free one", opts.Port, err)
	}
	srv := startProxy(router, l, "", log)
	ready := proxyReady(l, router)
	if opts.ReadyJSON != "" {
		path, err := absPath(f, opts.ReadyJSON)
		if err != nil {
			return err
		}
		if err := writeProxyReady(path, ready); err != nil {
			return err
		}
		defer os.Remove(path)
	}
	fmt.Fprintf(f.Stderr, "wraith proxy: listening on %s for %v; trust %s\n", ready.URL, ready.Hosts, ready.CAFile)
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	srv.Shutdown(sctx)
	return nil
}

// startProxy serves the forward proxy on l until the server is shut down.
func startProxy(router *egress.Router, l net.Listener, session string, log hclog.Logger) *http.Server {
	srv := &http.Server{
		Handler:           &egress.Proxy{Router: router, Session: session},
		ReadHeaderTimeout: 30 * time.Second,
		ErrorLog:          log.StandardLogger(&hclog.StandardLoggerOptions{InferLevels: true}),
	}
	go func() {
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("proxy stopped", "error", err)
		}
	}()
	return srv
}

func proxyReady(l net.Listener, router *egress.Router) ProxyReady {
	addr := l.Addr().(*net.TCPAddr)
	return ProxyReady{
		Version: proxyReadyVersion, URL: "http://" + addr.String(), Host: addr.IP.String(), Port: addr.Port,
		PID: os.Getpid(), CAFile: router.CA().CertFile, Hosts: router.Table().Hosts(),
	}
}

func writeProxyReady(path string, r ProxyReady) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return ipc.WriteFileAtomic(path, append(b, '\n'), 0o644)
}

// readProxyReady reads a proxy ready document; a missing file is an
// error satisfying errors.Is(err, fs.ErrNotExist).
func readProxyReady(path string) (ProxyReady, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return ProxyReady{}, err
	}
	var r ProxyReady
	if err := json.Unmarshal(b, &r); err != nil {
		return ProxyReady{}, fmt.Errorf("%s is not valid: %w", path, err)
	}
	if r.Version != proxyReadyVersion {
		return ProxyReady{}, fmt.Errorf("%s has version %d, this build reads version %d", path, r.Version, proxyReadyVersion)
	}
	return r, nil
}

// startProjectProxy starts the forward proxy of the manifest's [proxy]
// table for the project `wraith up` runs, once its twins are ready, and
// writes .wraith/proxy.json for wraith env. stop shuts it down and removes
// the file.
func startProjectProxy(f *factory, dir string, st supervisor.State, log hclog.Logger) (stop func(), err error) {
	plan, err := planFromProject(f, dir, st, nil)
	if err != nil {
		return nil, fmt.Errorf("[proxy]: %w", err)
	}
	var pass []string
	if plan.proj != nil && plan.proj.Proxy != nil {
		pass = plan.proj.Proxy.Passthrough
	}
	router, closeRouter, err := sandboxRouter(plan, pass, log.Named("proxy"))
	if err != nil {
		return nil, fmt.Errorf("[proxy]: %w", err)
	}
	port := 0
	if plan.proj != nil && plan.proj.Proxy != nil {
		port = plan.proj.Proxy.Port
	}
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		closeRouter()
		return nil, fmt.Errorf("[proxy]: listen on 127.0.0.1:%d: %w: pick another port in [proxy], or 0 for a free one", port, err)
	}
	srv := startProxy(router, l, "", log.Named("proxy"))
	ready := proxyReady(l, router)
	path := filepath.Join(dir, proxyState)
	if err := writeProxyReady(path, ready); err != nil {
		srv.Close()
		closeRouter()
		return nil, err
	}
	log.Info("proxy ready", "url", ready.URL, "hosts", strings.Join(ready.Hosts, ","), "ca_file", ready.CAFile)
	return func() {
		os.Remove(path)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		closeRouter()
	}, nil
}

// projectProxy reads the proxy of the running project in dir, if it runs
// one; a proxy.json left by a process that is gone is not one.
func projectProxy(dir string, st supervisor.State) (*ProxyReady, error) {
	r, err := readProxyReady(filepath.Join(dir, proxyState))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if r.PID != st.SupervisorPID {
		return nil, nil // written by an earlier wraith up
	}
	return &r, nil
}
