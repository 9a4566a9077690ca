package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/go-hclog"
	"github.com/pelletier/go-toml/v2"

	"github.com/wraithdev/wraith/internal/egress"
	"github.com/wraithdev/wraith/manifest"
	"github.com/wraithdev/wraith/supervisor"
	"github.com/wraithdev/wraith/twin/embedded"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/resolve"
)

// The egress sandbox's files in the project's state folder: the CA (key
// mode 0600, folder 0700; never served), the log of refused connections,
// and the proxy `wraith up` runs for [proxy].
var (
	caDir      = filepath.Join(supervisor.StateDir, "ca")
	missesFile = filepath.Join(supervisor.StateDir, "egress-misses.jsonl")
	proxyState = filepath.Join(supervisor.StateDir, "proxy.json")
)

// sandboxPlan is what the sandbox routes to, found before anything runs.
type sandboxPlan struct {
	dir   string        // the project's folder: state lives in dir/.wraith
	twins []egress.Twin // where each twin listens and the hosts it takes
	proj  *manifest.Project
	// stop stops the twins started for this sandbox; nil when they are
	// the running project's.
	stop func()
}

// planSandbox finds the twins: the running project's in the folder of -f
// FILE (or the working folder), those of --twin when named; without a
// running project, the --twin twins are started here and plan.stop stops
// them.
func planSandbox(ctx context.Context, f *factory, file string, names []string, log hclog.Logger) (*sandboxPlan, error) {
	path, err := manifestPath(f, file)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(path)
	st, probeErr := supervisor.Probe(dir)
	var notUp *supervisor.NotUpError
	var stale *supervisor.StaleError
	switch {
	case probeErr == nil:
		return planFromProject(f, dir, st, names)
	case errors.As(probeErr, &notUp) || errors.As(probeErr, &stale):
		if len(names) == 0 {
			return nil, usagef("no wraith project is up in %s and no --twin was named: run wraith up, or name the twins to start for this run with --twin (e.g. --twin stripe)", dir)
		}
		return startSandboxTwins(ctx, f, dir, names, log)
	}
	return nil, probeErr
}

func planFromProject(f *factory, dir string, st supervisor.State, names []string) (*sandboxPlan, error) {
	var proj *manifest.Project
	if st.Manifest != "" {
		p, err := manifest.Load(st.Manifest)
		if err != nil {
			return nil, fmt.Errorf("read the running project's manifest: %w", err)
		}
		proj = p
	}
	have := map[string]bool{}
	for _, t := range st.Twins {
		have[t.Name] = true
	}
	for _, n := range names {
		if !have[n] {
			return nil, usagef("--twin %s: the running project has no twin %s; it has %s", n, n, strings.Join(sortedKeys(have), ", "))
		}
	}
	plan := &sandboxPlan{dir: dir, proj: proj}
	for _, t := range st.Twins {
		if len(names) > 0 && !slices.Contains(names, t.Name) {
			continue
		}
		arg := t.Ready.Serve.Twin
		if proj != nil {
			for _, mt := range proj.Twins {
				if mt.Name == t.Name {
					arg = mt.Twin
				}
			}
		}
		hosts, err := twinHosts(f, dir, arg)
		if err != nil {
			return nil, fmt.Errorf("twin %s: %w", t.Name, err)
		}
		if proj != nil && proj.Proxy != nil {
			hosts = append(hosts, proj.Proxy.HostsOf(t.Name)...)
		}
		plan.twins = append(plan.twins, egress.Twin{Name: t.Name, URL: t.Ready.Serve.URL, Hosts: hosts})
	}
	return plan, nil
}

// startSandboxTwins starts one wraith-twin per name, on free loopback
// ports, supervised as `wraith up` supervises a project's.
func startSandboxTwins(ctx context.Context, f *factory, dir string, names []string, log hclog.Logger) (*sandboxPlan, error) {
	exe, _ := os.Executable()
	bin, err := supervisor.FindBinary(exe, exec.LookPath, f.Getenv)
	if err != nil {
		return nil, err
	}
	plan := &sandboxPlan{dir: dir}
	hostsOf := map[string][]string{}
	var children []supervisor.Child
	for _, n := range names {
		hosts, err := twinHosts(f, dir, n)
		if err != nil {
			return nil, &usageError{fmt.Errorf("--twin %s: %w", n, err)}
		}
		hostsOf[n] = hosts
		children = append(children, supervisor.Child{Name: n, Twin: n, Host: manifest.DefaultHost})
	}
	ready := make(chan supervisor.State, 1)
	sup, err := supervisor.New(supervisor.Config{
		Binary: bin, Children: children, Dir: dir, Logger: log.Named("twins"),
		OnState: func(st supervisor.State) error {
			select {
			case ready <- st:
			default:
			}
			return nil
		},
	})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- sup.Run(ctx) }()
	select {
	case st := <-ready:
		for _, t := range st.Twins {
			plan.twins = append(plan.twins, egress.Twin{Name: t.Name, URL: t.Ready.Serve.URL, Hosts: hostsOf[t.Name]})
		}
		plan.stop = func() { cancel(); <-done }
		return plan, nil
	case err := <-done:
		cancel()
		return nil, fmt.Errorf("start the twins for the run: %w", err)
	}
}

// twinHosts reads the hosts a twin stands in for from its twin.toml:
// hosts, else upstream's host. Only those two keys are read, leniently:
// the twin itself is loaded and checked by the process that serves it.
func twinHosts(f *factory, dir, arg string) ([]string, error) {
	src, err := resolve.New(dir, f.Getenv("WRAITH_TWINS_PATH"), embedded.FS()).Resolve(arg)
	if err != nil {
		return nil, err
	}
	raw, err := fs.ReadFile(src.FS, "twin.toml")
	if err != nil {
		return nil, fmt.Errorf("%s: no twin.toml: %w", src.Where, err)
	}
	var m format.Manifest
	if err := toml.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("%s/twin.toml: %w", src.Where, err)
	}
	if len(m.Hosts) > 0 {
		return m.Hosts, nil
	}
	return egress.DefaultHosts(m.Upstream), nil
}

// sandboxRouter builds the routing table, the CA and the router.
func sandboxRouter(plan *sandboxPlan, passthrough []string, log hclog.Logger) (*egress.Router, func(), error) {
	table, err := egress.NewTable(plan.twins, passthrough)
	if err != nil {
		var claim *egress.ClaimError
		if errors.As(err, &claim) {
			return nil, nil, &usageError{err}
		}
		return nil, nil, err
	}
	if len(table.Hosts()) == 0 {
		return nil, nil, usagef("no twin names a host to stand in for (no hosts or upstream in their twin.toml): add hosts = [\"api.example.com\"] to twin.toml")
	}
	if err := supervisor.EnsureStateDir(filepath.Join(plan.dir, supervisor.StateDir)); err != nil {
		return nil, nil, err
	}
	ca, err := egress.LoadCA(filepath.Join(plan.dir, caDir), nil)
	if err != nil {
		return nil, nil, err
	}
	mf, err := os.OpenFile(filepath.Join(plan.dir, missesFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("open the misses log: %w", err)
	}
	r := egress.NewRouter(egress.Config{Table: table, CA: ca, Misses: egress.NewMisses(mf, log, nil), Logger: log})
	return r, func() { r.Close(); mf.Close() }, nil
}

// caVars are the variables through which programs trust the sandbox's CA.
func caVars(certFile string) [][2]string {
	var vs [][2]string
	for _, k := range []string{"SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "NODE_EXTRA_CA_CERTS", "CURL_CA_BUNDLE", "GIT_SSL_CAINFO"} {
		vs = append(vs, [2]string{k, certFile})
	}
	return vs
}

// noProxy keeps direct calls to the twins' own URLs off the proxy.
const noProxy = "localhost,127.0.0.1,::1"

// proxyVars point a program at the proxy, in session when one is named.
func proxyVars(proxyURL, session string) [][2]string {
	u := proxyURL
	if session != "" {
		u = strings.Replace(proxyURL, "http://", "http://"+session+":x@", 1)
	}
	return [][2]string{
		{"HTTPS_PROXY", u}, {"HTTP_PROXY", u}, {"https_proxy", u}, {"http_proxy", u},
		{"NO_PROXY", noProxy}, {"no_proxy", noProxy},
	}
}

func sortedKeys(m map[string]bool) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
