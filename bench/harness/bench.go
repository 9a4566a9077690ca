package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wraithdev/wraith/ipc"
)

// benchConfig is everything `harness bench` is told.
type benchConfig struct {
	out, lua           string
	duration, warmup   time.Duration
	passes, wrkThreads int
	conns              []int
	servers            []string
	sessions           int           // sessions alive in the wraith-10k run
	seedEntities       int           // creates per seeded session
	twins              []string      // twins whose `wraith serve` start is timed alone
	hold               int           // creates of the memory load; 0 for none
	holdConns          int           // connections of the memory load
	holdTimeout        time.Duration // bound of the memory load
	quietWait          time.Duration // longest wait for the machine to quiet down before a load
	quietCores         float64       // "quiet": other processes keep fewer cores than this busy
	retries            int           // measurements again of a disturbed load
	slack              *slack        // time left for waiting and measuring again, shared by the whole run
	peers              peers
	meta               []string // "key: value" configuration lines for the output's header
}

// loadSpec is one measured load.
type loadSpec struct {
	mode  string // get or post
	conns int
}

func (l loadSpec) String() string { return fmt.Sprintf("%s-c%d", l.mode, l.conns) }

// loadResult is one load in one pass.
type loadResult struct {
	Server, Load   string
	Requests       int64
	RPS, P50, P99  float64 // requests/s; µs
	Non2xx, Errors int64   // status > 399; socket errors
	CPUPerReq      float64 // µs of the server's CPU time per request
	PeakRSS        int64   // KiB, VmHWM during this load
	OtherCores     float64 // cores that neither the server nor wrk kept busy
	Disturbed      bool    // OtherCores > disturbedCores
}

// startResult is one server start in one pass.
type startResult struct {
	Server         string
	Pass           int
	Ready, Answer  time.Duration
	IdleRSS        int64 // KiB, after start and a second idle
	SeededRSS      int64 // KiB, after seeding sessions (wraith-10k)
	Seed           time.Duration
	SameBytes      bool // first answer equals Wraith's recorded body
	Compare        bool // the first answer should be Wraith's recorded body
	Err            string
	PeakIsLifetime bool // clear_refs refused: peaks are since start
}

func parseBenchFlags(args []string) (benchConfig, error) {
	var c benchConfig
	fs := flag.NewFlagSet("harness bench", flag.ContinueOnError)
	fs.StringVar(&c.out, "out", "bench/out", "folder for logs and the servers' scratch folders")
	fs.StringVar(&c.lua, "lua", "bench/load.lua", "wrk script")
	fs.DurationVar(&c.duration, "duration", 10*time.Second, "length of each measured load (whole seconds)")
	fs.DurationVar(&c.warmup, "warmup", 5*time.Second, "unmeasured GET load before the measured ones; 0 for none")
	fs.IntVar(&c.passes, "passes", 3, "interleaved passes over all servers: one line per server, load and pass")
	fs.IntVar(&c.wrkThreads, "threads", 2, "wrk threads")
	fs.DurationVar(&c.quietWait, "quiet-wait", 10*time.Second, "before each load, wait up to this long for other processes to quiet down")
	fs.Float64Var(&c.quietCores, "quiet-cores", 0.2, "quiet means everything else keeps fewer than this many cores busy")
	fs.IntVar(&c.retries, "retries", 1, "measure a disturbed load again up to this many times")
	slackTime := fs.Duration("slack", 2*time.Minute, "the most time the whole run may spend waiting for a quiet machine (past the first second of each wait) and measuring disturbed loads again, so a busy machine cannot stretch it")
	conns := fs.String("conns", "32,256", "keep-alive connection counts")
	servers := fs.String("servers", strings.Join(allServers, ","), "servers to run, in order")
	twins := fs.String("twins", "checkout,stripe,github", "twins whose start (wraith serve TWIN) is timed alone each pass; empty for none")
	fs.IntVar(&c.sessions, "sessions", 10000, "sessions alive in the wraith-10k run")
	fs.IntVar(&c.seedEntities, "seed-entities", 3, "entities each of those sessions holds")
	fs.IntVar(&c.hold, "hold", 500_000, "creates of the memory load, against a fresh Wraith per shape; 0 for none")
	fs.IntVar(&c.holdConns, "hold-conns", 32, "connections of the memory load")
	fs.DurationVar(&c.holdTimeout, "hold-timeout", 2*time.Minute, "bound of each memory load")
	fs.StringVar(&c.peers.wraith, "wraith", "", "wraith or wraith-twin binary")
	fs.StringVar(&c.peers.ceiling, "ceiling", "", "ceiling binary (bench/ceiling)")
	fs.StringVar(&c.peers.stripeMock, "stripe-mock", "", "stripe-mock binary")
	fs.StringVar(&c.peers.wiremockJar, "wiremock-jar", "", "WireMock standalone jar")
	fs.StringVar(&c.peers.mountebank, "mountebank", "", "Mountebank's bin/mb script")
	fs.StringVar(&c.peers.java, "java", "java", "java binary")
	fs.StringVar(&c.peers.node, "node", "node", "node binary")
	var missing, meta listFlag
	fs.Var(&missing, "missing", "NAME=why a peer is not installed (repeatable)")
	fs.Var(&meta, "meta", "KEY: VALUE configuration line printed before the results (repeatable)")
	if err := fs.Parse(args); err != nil {
		return c, usageError{err.Error()}
	}
	for _, s := range strings.Split(*conns, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return c, usageError{fmt.Sprintf("-conns %q: want a comma list of positive counts", *conns)}
		}
		c.conns = append(c.conns, n)
	}
	for _, s := range strings.Split(*servers, ",") {
		if s = strings.TrimSpace(s); s != "" {
			if !slices.Contains(allServers, s) {
				return c, usageError{fmt.Sprintf("-servers: unknown server %q: want some of %s", s, strings.Join(allServers, ","))}
			}
			c.servers = append(c.servers, s)
		}
	}
	for _, t := range strings.Split(*twins, ",") {
		if t = strings.TrimSpace(t); t != "" {
			c.twins = append(c.twins, t)
		}
	}
	if c.sessions < 1 || c.hold < 0 || c.holdConns < 1 {
		return c, usageError{"-sessions and -hold-conns: want at least 1; -hold: want 0 or more"}
	}
	if c.duration < time.Second || c.duration%time.Second != 0 {
		return c, usageError{fmt.Sprintf("-duration %s: want whole seconds, at least 1s", c.duration)}
	}
	if c.passes < 1 {
		return c, usageError{"-passes: want at least 1"}
	}
	c.peers.missing = map[string]string{}
	for _, m := range missing {
		k, v, _ := strings.Cut(m, "=")
		c.peers.missing[k] = v
	}
	c.meta = meta
	c.slack = &slack{left: *slackTime}
	// Servers run in their own scratch folders: every path must be absolute.
	for _, p := range []*string{&c.out, &c.lua, &c.peers.wraith, &c.peers.ceiling, &c.peers.stripeMock,
		&c.peers.wiremockJar, &c.peers.mountebank, &c.peers.java, &c.peers.node} {
		if err := absolute(p); err != nil {
			return c, err
		}
	}
	return c, nil
}

// absolute makes a path absolute; a bare command name is looked up in PATH.
func absolute(p *string) error {
	if *p == "" {
		return nil
	}
	var err error
	if !strings.ContainsRune(*p, os.PathSeparator) {
		if lp, lerr := exec.LookPath(*p); lerr == nil {
			*p = lp
		}
	}
	*p, err = filepath.Abs(*p)
	return err
}

func (c benchConfig) loads() []loadSpec {
	var ls []loadSpec
	for _, mode := range []string{"get", "post"} {
		for _, n := range c.conns {
			ls = append(ls, loadSpec{mode, n})
		}
	}
	return ls
}

// runs reports whether a server runs a load. The wraith-10k run only
// compares GETs, and creates at the lowest connection count, with the
// other shapes: its other create load would only lengthen the run.
func (c benchConfig) runs(server string, l loadSpec) bool {
	return server != sWraith10k || l.mode == "get" || l.conns == c.conns[0]
}

func runBench(ctx context.Context, args []string) error {
	cfg, err := parseBenchFlags(args)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(cfg.out, "logs"), 0o755); err != nil {
		return err
	}
	out := newLines(os.Stdout)
	out.header(cfg)
	b, err := takeBodies(ctx, cfg)
	if err != nil {
		return fmt.Errorf("take Wraith's answers for the other servers: %w", err)
	}
	for pass := 1; pass <= cfg.passes; pass++ {
		if err := runPass(ctx, cfg, pass, b, out); err != nil {
			return err
		}
	}
	return out.err
}

// takeBodies starts Wraith once and keeps its answers to the two routes,
// so the fixed-answer servers return exactly Wraith's bytes.
func takeBodies(ctx context.Context, cfg benchConfig) (bodies, error) {
	var b bodies
	work := filepath.Join(cfg.out, "work", "bodies")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return b, err
	}
	s, err := specFor(sWraith1, cfg.peers, b, work, cfg.sessions*2)
	if err != nil {
		return b, err
	}
	p, st, err := start(ctx, s, filepath.Join(cfg.out, "logs", "bodies-wraith.log"), time.Minute)
	if err != nil {
		return b, err
	}
	defer p.stop()
	c := &http.Client{Timeout: 5 * time.Second}
	session := shapeOf(sWraith1, cfg.sessions).name(0)
	get := getProbe()
	get.header[ipc.SessionHeader] = session
	got, err := fetch(c, p.url, get, nil)
	if err != nil || got.code != http.StatusOK {
		return b, fmt.Errorf("GET %s: %d %v %s", getPath, got.code, err, got.body)
	}
	if !bytes.Equal(got.body, st.Body) {
		return b, fmt.Errorf("GET %s answered other bytes in session %s than without a session", getPath, session)
	}
	created, err := fetch(c, p.url, createProbe(session), []byte(createBody))
	if err != nil || created.code != http.StatusOK {
		return b, fmt.Errorf("POST %s: %d %v %s", postPath, created.code, err, created.body)
	}
	b.get, b.post = got.body, created.body
	b.getFile, b.postFile = filepath.Join(work, "customer.json"), filepath.Join(work, "created.json")
	b.getHeaders, b.postHeaders = filepath.Join(work, "customer.headers"), filepath.Join(work, "created.headers")
	for _, f := range []struct {
		path string
		data []byte
	}{
		{b.getFile, b.get}, {b.postFile, b.post},
		{b.getHeaders, headerLines(got.header)}, {b.postHeaders, headerLines(created.header)},
	} {
		if err := os.WriteFile(f.path, f.data, 0o644); err != nil {
			return b, err
		}
	}
	return b, nil
}

// headerLines writes h as "Name: value" lines, leaving out what net/http
// writes itself (Date, Content-Length), so the ceiling answers with the
// same header bytes as the server they were taken from.
func headerLines(h http.Header) []byte {
	var out []byte
	for _, k := range slices.Sorted(maps.Keys(h)) {
		if k == "Date" || k == "Content-Length" {
			continue
		}
		for _, v := range h[k] {
			out = fmt.Appendf(out, "%s: %s\n", k, v)
		}
	}
	return out
}

// runPass first times the start of each twin of cfg.twins alone, then
// starts every server, one after the other, then runs each load on every
// server in turn before the next load: the figures a ratio compares are
// taken seconds apart, under the same conditions of a shared machine,
// rather than minutes apart. Idle servers wait meanwhile; what they use
// counts among the "others" of each load. Every server is stopped when its
// loads are over; the memory loads come last, each against a fresh Wraith.
func runPass(ctx context.Context, cfg benchConfig, pass int, b bodies, out *lines) error {
	for _, twin := range cfg.twins {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		fmt.Fprintf(os.Stderr, "== pass %d/%d: timing the start of %s\n", pass, cfg.passes, twin)
		ls := startServer(ctx, cfg, startPrefix+twin, pass, b)
		ls.p.stop()
		if ls.st.Err != "" {
			out.note("%s, pass %d: %s", ls.st.Server, pass, ls.st.Err)
			continue
		}
		out.start(*ls.st)
	}
	if err := runLoads(ctx, cfg, pass, b, out); err != nil {
		return err
	}
	if cfg.hold == 0 {
		return nil
	}
	for _, name := range cfg.servers {
		if name != sWraith1 && name != sWraith256 {
			continue
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		fmt.Fprintf(os.Stderr, "== pass %d/%d: %d creates against a fresh %s\n", pass, cfg.passes, cfg.hold, name)
		r, err := holdLoad(ctx, cfg, name, pass, b)
		if err != nil {
			out.note("%s, pass %d, memory load: %v", name, pass, err)
			continue
		}
		out.hold(r)
		if r.Entities < int64(cfg.hold) {
			out.note("%s, pass %d, memory load: %d of %d creates answered 200 within %s", name, pass, r.Entities, cfg.hold, cfg.holdTimeout)
		}
	}
	return nil
}

// runLoads starts the servers of cfg.servers and runs their loads.
func runLoads(ctx context.Context, cfg benchConfig, pass int, b bodies, out *lines) error {
	var live []*liveServer
	defer func() {
		for _, ls := range live {
			ls.p.stop()
		}
	}()
	for _, name := range cfg.servers {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		fmt.Fprintf(os.Stderr, "== pass %d/%d: starting %s\n", pass, cfg.passes, name)
		ls := startServer(ctx, cfg, name, pass, b)
		if ls.p != nil {
			live = append(live, ls)
		}
		if ls.st.Err != "" {
			out.note("%s, pass %d: %s", name, pass, ls.st.Err)
			continue
		}
		out.start(*ls.st)
	}
	for _, l := range cfg.loads() {
		for _, ls := range live {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if ls.st.Err != "" || !cfg.runs(ls.st.Server, l) {
				continue
			}
			r, ok := ls.run(ctx, cfg, l)
			if !ok {
				out.note("%s, pass %d: %s", ls.st.Server, pass, ls.st.Err)
				continue
			}
			out.load(r)
		}
	}
	return nil
}

// slack is the time the run may still spend beyond its plan: waiting for
// a quiet machine past the first second of each wait, and measuring
// disturbed loads again. Once it is spent, loads run as the machine is.
type slack struct{ left time.Duration }

// liveServer is a started server of a pass, with what its loads send.
type liveServer struct {
	p       *proc
	st      *startResult // errors of later loads are added to it
	logPath string
	shape   shape
}

// startServer starts one server and measures its start and idle memory,
// seeds sessions for wraith-10k and warms it up (not a serve-TWIN server,
// which is only timed). On failure, st.Err says why and p is stopped (nil
// when it never started).
func startServer(ctx context.Context, cfg benchConfig, name string, pass int, b bodies) *liveServer {
	_, onlyStart := strings.CutPrefix(name, startPrefix)
	st := &startResult{Server: name, Pass: pass, Compare: name != sStripeMock && (!onlyStart || name == startPrefix+"checkout")}
	ls := &liveServer{st: st, shape: shapeOf(name, cfg.sessions)}
	work, err := filepath.Abs(filepath.Join(cfg.out, "work", name))
	if err == nil {
		err = os.MkdirAll(work, 0o755)
	}
	if err != nil {
		st.Err = err.Error()
		return ls
	}
	s, err := specFor(name, cfg.peers, b, work, cfg.sessions*2)
	if err != nil {
		st.Err = err.Error()
		return ls
	}
	ls.logPath = filepath.Join(cfg.out, "logs", fmt.Sprintf("%s-pass%d.log", name, pass))
	waitQuiet(ctx, cfg)
	p, su, err := start(ctx, s, ls.logPath, 2*time.Minute)
	if err != nil {
		st.Err = "did not start: " + err.Error()
		return ls
	}
	ls.p = p
	st.Ready, st.Answer = su.Ready, su.Answer
	st.SameBytes = bytes.Equal(su.Body, b.get)
	sleep(ctx, time.Second)
	if m, err := procStatus(p.pid); err == nil {
		st.IdleRSS = m["VmRSS"]
	}
	if onlyStart {
		return ls
	}
	if name == sWraith10k {
		t0 := time.Now()
		if err := seedSessions(ctx, p.url, ls.shape, cfg.seedEntities); err != nil {
			st.Err = "seeding sessions: " + err.Error()
			return ls
		}
		st.Seed = time.Since(t0)
		sleep(ctx, time.Second)
		if m, err := procStatus(p.pid); err == nil {
			st.SeededRSS = m["VmRSS"]
		}
	}
	if cfg.warmup > 0 {
		w := wrkRun{url: p.url, threads: cfg.wrkThreads, conns: cfg.conns[0], duration: cfg.warmup.Round(time.Second), lua: cfg.lua, env: ls.env("get")}
		if _, err := w.run(ctx); err != nil {
			st.Err = "warm-up: " + err.Error()
		}
	}
	return ls
}

// env is bench/load.lua's settings for a load of this server's shape.
func (ls *liveServer) env(mode string) []string {
	return []string{"WRK_MODE=" + mode, "WRK_SESSIONS=" + strconv.Itoa(ls.shape.n),
		"WRK_SESSION_PREFIX=" + ls.shape.prefix, "WRK_SESSION_WIDTH=" + strconv.Itoa(ls.shape.width),
		"WRK_AUTH=" + authHeader, "WRK_BODY=" + createBody, "WRK_GET_PATH=" + getPath, "WRK_POST_PATH=" + postPath}
}

// run measures one load. A load that other processes disturbed is
// measured again, up to cfg.retries times while the run's slack lasts; the least disturbed attempt is kept, and the failures of every
// attempt count. ok is false when the server failed; st.Err says how.
func (ls *liveServer) run(ctx context.Context, cfg benchConfig, l loadSpec) (kept loadResult, ok bool) {
	w := wrkRun{url: ls.p.url, threads: cfg.wrkThreads, conns: l.conns, duration: cfg.duration, lua: cfg.lua, env: ls.env(l.mode)}
	var non2xx, errs int64
	for attempt := 0; attempt <= cfg.retries; attempt++ {
		if ctx.Err() != nil || !ls.p.alive() {
			ls.st.Err = fmt.Sprintf("stopped before %s: %v%s", l, ls.p.err, tail(ls.logPath))
			return kept, false
		}
		waitQuiet(ctx, cfg)
		r, err := measure(ctx, w, ls.p, ls.st)
		if err != nil {
			ls.st.Err = err.Error()
			return kept, false
		}
		r.Server, r.Load = ls.st.Server, l.String()
		non2xx, errs = non2xx+r.Non2xx, errs+r.Errors
		if attempt == 0 || r.OtherCores < kept.OtherCores {
			kept = r
		}
		if !kept.Disturbed {
			break
		}
		again := attempt < cfg.retries && cfg.slack.left >= cfg.duration
		fmt.Fprintf(os.Stderr, "   %s disturbed: other processes kept %.2f cores busy%s\n", l, r.OtherCores,
			map[bool]string{true: ", measuring again", false: ""}[again])
		if !again {
			break
		}
		cfg.slack.left -= cfg.duration
	}
	kept.Non2xx, kept.Errors = non2xx, errs
	return kept, true
}

// measure runs one load and reads the server's CPU time and peak RSS
// around it, and how busy the rest of the machine was meanwhile.
func measure(ctx context.Context, w wrkRun, p *proc, st *startResult) (loadResult, error) {
	var r loadResult
	if err := resetPeak(p.pid); err != nil {
		st.PeakIsLifetime = true
	}
	c0, _ := cpuTicks(p.pid)
	b0, _ := busyTicks()
	res, err := w.run(ctx)
	c1, _ := cpuTicks(p.pid)
	b1, _ := busyTicks()
	if err != nil {
		return r, err
	}
	r = loadResult{RPS: res.rps(), P50: res.P50US, P99: res.P99US,
		Requests: res.Requests, Non2xx: res.Status, Errors: res.socketErrors()}
	if wall := res.Wall.Seconds(); wall > 0 {
		r.OtherCores = max(0, (time.Duration(b1-b0-(c1-c0))*clockTick-res.CPU).Seconds()/wall)
	}
	r.Disturbed = r.OtherCores > disturbedCores
	if res.Requests > 0 {
		r.CPUPerReq = float64(time.Duration(c1-c0)*clockTick/time.Microsecond) / float64(res.Requests)
	}
	if m, err := procStatus(p.pid); err == nil {
		r.PeakRSS = m["VmHWM"]
	}
	return r, nil
}

// disturbedCores: a load during which other processes kept more cores
// than this busy is disturbed and measured again.
const disturbedCores = 0.25

// waitQuiet waits, up to cfg.quietWait, for a second in which the
// machine's other processes keep fewer than cfg.quietCores cores busy: on
// a shared machine, loads then start in the gaps between other work. Every
// second past the first is taken from the run's slack, and the wait ends
// when the slack is spent. The report shows how busy the others were
// during each load anyway.
func waitQuiet(ctx context.Context, cfg benchConfig) {
	t0 := time.Now()
	for {
		b0, err := busyTicks()
		if err != nil {
			return
		}
		sleep(ctx, time.Second)
		b1, _ := busyTicks()
		busy := float64(time.Duration(b1-b0)*clockTick) / float64(time.Second)
		if busy < cfg.quietCores || ctx.Err() != nil {
			return
		}
		waited := time.Since(t0)
		if waited+time.Second > cfg.quietWait || cfg.slack.left < time.Second {
			fmt.Fprintf(os.Stderr, "   the machine is still busy (%.2f cores): measuring anyway\n", busy)
			return
		}
		cfg.slack.left -= time.Second
	}
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
