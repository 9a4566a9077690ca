// Command fakechild stands in for wraith-twin in the supervisor's tests. It
// speaks the same protocol (flags, ready line on --ready-fd, hclog JSON on
// stderr, SIGTERM and stdin end-of-file) and misbehaves on request:
//
//	FAKE_MODE=never-ready   log, then wait forever without a ready line
//	FAKE_MODE=exit-early    log an error and exit 3 before ready
//	FAKE_MODE=bad-ready     write a line that is not a ready document
//	FAKE_MODE=close-ready   close the ready descriptor without a line
//	FAKE_CRASH_AFTER=D      exit 3 D after ready
//	FAKE_CRASH_ONCE=PATH    with FAKE_CRASH_AFTER: crash only if PATH does not exist (creates it)
//	FAKE_EXIT_IF_EXISTS=P   behave as FAKE_MODE=exit-early when file P exists
//	FAKE_IGNORE_TERM=1      ignore SIGTERM and SIGINT
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/wraithdev/wraith/ipc"
)

func logf(level, msg string, kv ...any) {
	m := map[string]any{"@level": level, "@message": msg, "@module": "fakechild", "@timestamp": time.Now().Format("2006-01-02T15:04:05.000000Z07:00")}
	for i := 0; i+1 < len(kv); i += 2 {
		m[fmt.Sprint(kv[i])] = kv[i+1]
	}
	b, _ := json.Marshal(m)
	os.Stderr.Write(append(b, '\n'))
}

func main() {
	var twin string
	flags := map[string]string{}
	for _, a := range os.Args[1:] {
		if name, ok := strings.CutPrefix(a, "--"); ok {
			k, v, found := strings.Cut(name, "=")
			if !found {
				v = "true"
			}
			flags[k] = v
			continue
		}
		twin = a
	}
	if os.Getenv("FAKE_IGNORE_TERM") == "1" {
		signal.Ignore(syscall.SIGTERM, syscall.SIGINT)
	}
	sigs := make(chan os.Signal, 1)
	if os.Getenv("FAKE_IGNORE_TERM") != "1" {
		signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	}
	logf("info", "fake child starting", "twin", twin, "pid", os.Getpid())
	fmt.Fprintln(os.Stderr, "2024-01-01T00:00:00.000Z [WARN]  fakechild: a text line")

	fd, _ := strconv.Atoi(flags["ready-fd"])
	var ready *os.File
	if fd > 0 {
		ready = os.NewFile(uintptr(fd), "ready")
		// The supervisor's death closes our stdin.
		go func() {
			io.Copy(io.Discard, os.Stdin)
			logf("info", "stdin closed, parent is gone")
			os.Exit(0)
		}()
	}
	mode := os.Getenv("FAKE_MODE")
	if p := os.Getenv("FAKE_EXIT_IF_EXISTS"); p != "" {
		if _, err := os.Stat(p); err == nil {
			mode = "exit-early"
		}
	}
	switch mode {
	case "never-ready":
		logf("error", "stuck loading the twin", "twin", twin)
		select {}
	case "exit-early":
		logf("error", "cannot load twin", "twin", twin, "reason", "fixture not found")
		os.Exit(3)
	case "bad-ready":
		ready.Write([]byte("hello\n"))
		ready.Close()
		select {}
	case "close-ready":
		ready.Close()
		select {}
	}
	host := flags["host"]
	ln, err := net.Listen("tcp", net.JoinHostPort(host, flags["port"]))
	if err != nil {
		logf("error", "listen failed", "error", err.Error())
		os.Exit(1)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	mux := http.NewServeMux()
	mux.HandleFunc("/__wraith/health", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"status":"ok"}`))
	})
	mux.HandleFunc("/__wraith/info", func(w http.ResponseWriter, r *http.Request) {
		tokenVar := flags["control-token-env"]
		json.NewEncoder(w).Encode(map[string]any{
			"twin": twin, "pid": os.Getpid(), "flags": flags, "args": os.Args[1:],
			"token_set": tokenVar != "" && os.Getenv(tokenVar) != "",
		})
	})
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)

	url := fmt.Sprintf("http://%s", net.JoinHostPort(host, strconv.Itoa(port)))
	doc := ipc.Ready{WraithVersion: "fake", Serve: ipc.Serve{
		Twin: twin, URL: url, Host: host, Port: port, PID: os.Getpid(),
		SessionHeader: ipc.SessionHeader, Digest: "sha256:fake", ControlAuth: "none", Control: ipc.ControlPaths(),
	}}
	if ready != nil {
		if err := ipc.Write(ready, doc); err != nil {
			logf("error", "write ready", "error", err.Error())
			os.Exit(1)
		}
		ready.Close()
	}
	logf("info", "serving", "url", url)

	var crash <-chan time.Time
	if d, err := time.ParseDuration(os.Getenv("FAKE_CRASH_AFTER")); err == nil {
		once := os.Getenv("FAKE_CRASH_ONCE")
		if once == "" {
			crash = time.After(d)
		} else if _, err := os.Stat(once); errors.Is(err, os.ErrNotExist) {
			os.WriteFile(once, nil, 0o644)
			crash = time.After(d)
		}
	}
	select {
	case <-crash:
		logf("error", "simulated crash")
		os.Exit(3)
	case sig := <-sigs:
		logf("info", "draining", "signal", sig.String())
		srv.Close()
		os.Exit(0)
	}
}
