#!/usr/bin/env bash
# bench/run.sh: Wraith against the plain net/http ceiling, stripe-mock,
# WireMock and Mountebank, side by side in one run (issues 6 and 16), with
# Wraith under two shapes of load: every request in one session, and
# requests spread over 256 sessions. Installs what it needs through the
# registries (wrk from Debian, stripe-mock with go install, WireMock and
# Mountebank from npm, benchstat from the Go module proxy) into
# bench/.cache, builds Wraith, the ceiling and the harness, then lets
# bench/harness start the servers and drive bounded loads. The harness
# prints Go benchmark lines (bench/out/load.txt); benchstat computes the
# medians, intervals and ratios; `harness report` writes them with the
# targets of issues 16 and 6 to bench/RESULTS.md. A peer that cannot be
# installed is reported as such and skipped.
#
# Settings (environment):
#   BENCH_SMOKE     1: a quick check that the whole run works (1 pass of 2 s
#                   loads, 1 s warm-up, 1,000 sessions, 20,000 creates in the
#                   memory load, no profiles, no go test -bench of every
#                   package), reported to bench/out/RESULTS-smoke.md
#   BENCH_DURATION  length of each measured load, whole seconds (10s)
#   PASSES          passes, one benchmark line each (3: issue 16's medians;
#                   benchstat's confidence intervals need 6)
#   BENCH_WARMUP    unmeasured GET load before each server's loads (3s)
#   BENCH_CONNS     keep-alive connection counts (32,256)
#   BENCH_SERVERS   servers to run (ceiling,wraith-one,wraith-256s,wraith-10k,stripe-mock,wiremock,mountebank)
#   BENCH_TWINS     twins whose start, wraith serve TWIN, is timed alone (checkout,stripe,github)
#   BENCH_SESSIONS  sessions alive in the wraith-10k run (10000)
#   BENCH_HOLD      creates of the memory load, per shape and pass (500000; 0 for none)
#   BENCH_HOLD_TIMEOUT  bound of each memory load (2m)
#   BENCH_QUIET_WAIT  before each load, wait up to this long for the machine's
#                   other processes to keep fewer than 0.2 cores busy (10s)
#   BENCH_RETRIES   measure a load again this many times when other processes
#                   kept more than 0.25 cores busy during it (1)
#   BENCH_SLACK     the most time a run spends waiting for a quiet machine (past
#                   the first second of each wait) and measuring again (2m)
#   BENCH_PROFILE   1 adds CPU profiles of Wraith serving the GET load (on a
#                   fresh process and on a filled one) and the create load,
#                   and of the engine's benchmarks (1)
#   BENCH_PROFILE_FILL  creates that fill the process before the second GET
#                   profile (125000)
#   BENCH_GOBENCH   1 runs go test -bench of every package first, into
#                   bench/out/gobench.txt (1; make bench fails if it fails)
#   BENCH_RESULTS   the report to write (bench/RESULTS.md)
#   BENCH_ROUND3    1 runs bench/round3.sh after the report and appends its
#                   section, "Round three: validation, behaviour, git, durable
#                   writes", to it (1; 0 for none; make bench fails if it fails)
#   BENCH_ROUND3_PASSES  its passes (6; 1 under BENCH_SMOKE)
#   BENCH_ROUND3_BENCHTIME  its -test.benchtime per sub-benchmark (1s; 100x
#                   under BENCH_SMOKE)
#   BENCHSTAT_VERSION  golang.org/x/perf version benchstat is installed from
#   STRIPE_MOCK_VERSION (latest), WIREMOCK_VERSION (3.13.2), MOUNTEBANK_VERSION (2.9.1)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"

if [ "${BENCH_SMOKE:-0}" = 1 ]; then
	: "${BENCH_DURATION:=2s}" "${PASSES:=1}" "${BENCH_WARMUP:=1s}" "${BENCH_SESSIONS:=1000}"
	: "${BENCH_HOLD:=20000}" "${BENCH_HOLD_TIMEOUT:=30s}"
	: "${BENCH_PROFILE:=0}" "${BENCH_GOBENCH:=0}" "${BENCH_QUIET_WAIT:=2s}" "${BENCH_RETRIES:=0}"
	: "${BENCH_RESULTS:=bench/out/RESULTS-smoke.md}"
	SMOKE_BENCHTIME=100x
	: "${BENCH_ROUND3_PASSES:=1}" "${BENCH_ROUND3_BENCHTIME:=$SMOKE_BENCHTIME}"
	TITLE="a SMOKE run (BENCH_SMOKE=1: $PASSES pass of $BENCH_DURATION loads, $BENCH_SESSIONS sessions, $BENCH_HOLD creates in the memory load), which proves the run works and measures nothing worth quoting"
fi
DURATION=${BENCH_DURATION:-10s}
PASSES=${PASSES:-3}
WARMUP=${BENCH_WARMUP:-3s}
CONNS=${BENCH_CONNS:-32,256}
SERVERS=${BENCH_SERVERS:-ceiling,wraith-one,wraith-256s,wraith-10k,stripe-mock,wiremock,mountebank}
TWINS=${BENCH_TWINS-checkout,stripe,github}
SESSIONS=${BENCH_SESSIONS:-10000}
HOLD=${BENCH_HOLD:-500000}
HOLD_TIMEOUT=${BENCH_HOLD_TIMEOUT:-2m}
PROFILE=${BENCH_PROFILE:-1}
PROFILE_FILL=${BENCH_PROFILE_FILL:-125000}
GOBENCH=${BENCH_GOBENCH:-1}
RESULTS=${BENCH_RESULTS:-bench/RESULTS.md}
ROUND3=${BENCH_ROUND3:-1}
ROUND3_PASSES=${BENCH_ROUND3_PASSES:-6}
ROUND3_BENCHTIME=${BENCH_ROUND3_BENCHTIME:-1s}
TITLE=${TITLE:-"a full run: $PASSES passes of $DURATION loads"}
# Pinned: benchstat's output, which RESULTS.md quotes, changes between versions.
BENCHSTAT_VERSION=${BENCHSTAT_VERSION:-v0.0.0-20260908200009-22c9c6c9d4da}
CACHE=bench/.cache
OUT=bench/out
BIN=$CACHE/bin
mkdir -p "$BIN" "$CACHE/npm" "$OUT/logs"

harness_pid=
# run_harness ARGS: the harness in the background, so that the EXIT trap
# can stop it by its pid, then its exit status.
run_harness() {
	"$BIN/harness" "$@" &
	harness_pid=$!
	local status=0
	wait "$harness_pid" || status=$?
	harness_pid=
	return "$status"
}
cleanup() {
	# The harness stops every server it started (by process group) when it
	# gets SIGTERM; this only reaches the harness itself, by its pid.
	if [ -n "$harness_pid" ] && kill -0 "$harness_pid" 2>/dev/null; then
		kill -TERM "$harness_pid" 2>/dev/null || true
		wait "$harness_pid" 2>/dev/null || true
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say() { printf '== %s\n' "$*" >&2; }
missing=()
meta=()

# --- how long this will take --------------------------------------------------
# An estimate from the settings: each load takes its duration and about a
# second of waiting for a quiet machine; each start its warm-up and about
# three seconds; each memory load about 20,000 creates a second; go test
# -bench as long as it took last time (4 minutes when it never ran here).
seconds() { case $1 in *m) echo $((${1%m} * 60)) ;; *s) echo "${1%s}" ;; *) echo "$1" ;; esac; }
estimate() {
	local d w nconns loads=0 starts=0 holds=0 seed=0 twins=0 s pass total
	d=$(seconds "$DURATION") w=$(seconds "$WARMUP")
	nconns=$(($(tr -cd , <<<"$CONNS" | wc -c) + 1))
	for s in ${SERVERS//,/ }; do
		starts=$((starts + 1))
		case $s in
		wraith-10k) loads=$((loads + nconns + 1)) seed=$((SESSIONS / 2000 + 2)) ;;
		wraith-one | wraith-256s) loads=$((loads + 2 * nconns)) holds=$((holds + (HOLD > 0))) ;;
		*) loads=$((loads + 2 * nconns)) ;;
		esac
	done
	[ -n "$TWINS" ] && twins=$(($(tr -cd , <<<"$TWINS" | wc -c) + 1))
	pass=$((twins * 3 + starts * (w + 3) + seed + loads * (d + 1) + holds * (HOLD / 20000 + 5)))
	total=$((PASSES * pass + 30))
	[ "$PROFILE" = 1 ] && total=$((total + 3 * (d + 5) + PROFILE_FILL / 15000 + 60))
	# bench/round3.sh: about a minute a pass (a few seconds under smoke).
	[ "$ROUND3" = 1 ] && total=$((total + $(cat "$CACHE/round3-$ROUND3_PASSES-$ROUND3_BENCHTIME.seconds" 2>/dev/null || echo $((ROUND3_PASSES * 75)))))
	if [ "$GOBENCH" = 1 ]; then
		total=$((total + $(cat "$CACHE/gobench.seconds" 2>/dev/null || echo 240)))
	else
		total=$((total + 60))
	fi
	echo "$total $pass"
}
mkdir -p "$CACHE"
read -r est est_pass < <(estimate)
say "estimate: about $(((est + 59) / 60)) min, of which $(((est_pass + 59) / 60)) min per pass × $PASSES; waiting for a quiet machine and measuring disturbed loads again may add up to ${BENCH_SLACK:-2m}"
run_t0=$SECONDS

# --- wrk (required) -------------------------------------------------------
if ! command -v wrk >/dev/null; then
	say "installing wrk from Debian"
	apt-get update -qq >/dev/null && apt-get install -y -qq wrk >/dev/null
fi
meta+=("wrk: $( (wrk -v 2>&1 || true) | head -1 | cut -d' ' -f2)")

# --- Wraith, the ceiling and the harness -----------------------------------
say "building wraith, the ceiling and the harness"
go build -o "$BIN/" ./bench/ceiling ./bench/harness ./cmd/wraith-twin
go build -o "$BIN/" ./bench/wraithprof 2>"$OUT/logs/build-wraithprof.log" || rm -f "$BIN/wraithprof"
WRAITH=$BIN/wraith
if ! go build -o "$BIN/" ./cmd/wraith 2>"$OUT/logs/build-wraith.log"; then
	say "cmd/wraith does not build (see $OUT/logs/build-wraith.log): using wraith-twin, which serves identically"
	WRAITH=$BIN/wraith-twin
	rm -f "$BIN/wraith"
fi
rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
[ -n "$(git status --porcelain -- . ':!bench' 2>/dev/null)" ] && rev="$rev+changes"
meta+=("wraith: $rev ($(basename "$WRAITH"))" "go: $(go version | cut -d' ' -f3)")

# --- stripe-mock ------------------------------------------------------------
STRIPE_MOCK=$BIN/stripe-mock
if [ ! -x "$STRIPE_MOCK" ]; then
	say "installing stripe-mock@${STRIPE_MOCK_VERSION:-latest} with go install"
	if ! GOBIN="$PWD/$BIN" go install "github.com/stripe/stripe-mock@${STRIPE_MOCK_VERSION:-latest}" >"$OUT/logs/install-stripe-mock.log" 2>&1; then
		missing+=("-missing" "stripe-mock=go install failed: $(tail -1 "$OUT/logs/install-stripe-mock.log")")
		STRIPE_MOCK=
	fi
fi
[ -n "$STRIPE_MOCK" ] && meta+=("stripe-mock: $(go version -m "$STRIPE_MOCK" | awk '$1=="mod"{print $3}')")

# --- WireMock and Mountebank from npm ----------------------------------------
npm_get() { # package version
	if [ ! -f "$CACHE/npm/node_modules/$1/package.json" ]; then
		say "installing $1@$2 from npm"
		npm install --prefix "$CACHE/npm" --no-audit --no-fund "$1@$2" >"$OUT/logs/install-$1.log" 2>&1
	fi
}
npm_version() { node -p "require('./$CACHE/npm/node_modules/$1/package.json').version"; }
JAVA=$(command -v java || true)
NODE=$(command -v node || true)
WIREMOCK_JAR=
if [ -z "$JAVA" ]; then
	missing+=("-missing" "wiremock=no java on this machine")
elif ! command -v npm >/dev/null; then
	missing+=("-missing" "wiremock=no npm on this machine")
elif npm_get wiremock "${WIREMOCK_VERSION:-3.13.2}"; then
	WIREMOCK_JAR=$(ls "$CACHE"/npm/node_modules/wiremock/build/wiremock-standalone-*.jar 2>/dev/null | head -1 || true)
	if [ -z "$WIREMOCK_JAR" ]; then
		missing+=("-missing" "wiremock=the npm package ships no standalone jar")
	else
		meta+=("wiremock: $(npm_version wiremock) on $("$JAVA" -version 2>&1 | head -1)")
	fi
else
	missing+=("-missing" "wiremock=npm install failed: $(tail -1 "$OUT/logs/install-wiremock.log")")
fi
MB=
if [ -z "$NODE" ] || ! command -v npm >/dev/null; then
	missing+=("-missing" "mountebank=no node or npm on this machine")
elif npm_get mountebank "${MOUNTEBANK_VERSION:-2.9.1}"; then
	MB=$CACHE/npm/node_modules/mountebank/bin/mb
	meta+=("mountebank: $(npm_version mountebank) on node $("$NODE" -v)")
else
	missing+=("-missing" "mountebank=npm install failed: $(tail -1 "$OUT/logs/install-mountebank.log")")
fi

# --- benchstat, pinned, from the Go module proxy ------------------------------
BENCHSTAT=$BIN/benchstat
if [ "$(cat "$BIN/benchstat.version" 2>/dev/null)" != "$BENCHSTAT_VERSION" ]; then
	say "installing benchstat@$BENCHSTAT_VERSION with go install"
	GOFLAGS= GOBIN="$PWD/$BIN" go install "golang.org/x/perf/cmd/benchstat@$BENCHSTAT_VERSION"
	echo "$BENCHSTAT_VERSION" >"$BIN/benchstat.version"
fi

# --- go test -bench -------------------------------------------------------------
# Every package's benchmarks (bench/out/gobench.txt), unless BENCH_GOBENCH=0;
# a failure is remembered and fails the run at the end, after the report.
status=0
if [ "$GOBENCH" = 1 ]; then
	say "go test -bench . -benchmem ./..."
	t0=$SECONDS
	go test -run='^$' -bench=. -benchmem ./... 2>&1 | tee "$OUT/gobench.txt" || {
		status=1
		say "go test -bench failed; going on with the side-by-side run"
	}
	echo $((SECONDS - t0)) >"$CACHE/gobench.seconds" # the next run's estimate
fi
# The two targets measured by go test: from the run above, or run alone.
gostat=$OUT/gotargets.txt
{
	if [ "$GOBENCH" = 1 ]; then
		grep -E '^(goos|goarch|pkg|cpu):|^Benchmark(SessionMemory|Up10Twins)' "$OUT/gobench.txt" || true
	else
		say "go test -bench BenchmarkSessionMemory, BenchmarkUp10Twins"
		go test -run '^$' -bench '^BenchmarkSessionMemory$' ${SMOKE_BENCHTIME:+-benchtime "$SMOKE_BENCHTIME"} ./twin/engine 2>&1 || say "BenchmarkSessionMemory failed"
		go test -run '^$' -bench '^BenchmarkUp10Twins$' -benchtime 3x ./cmd/wraith 2>&1 || say "BenchmarkUp10Twins failed"
	fi
} >"$gostat"

# profile_one TITLE BENCH: a CPU profile of one engine benchmark (the engine
# alone: no sockets, no net/http), as markdown for the report.
profile_one() {
	local name=${2//[^A-Za-z0-9]/_}
	if go test -run '^$' -bench "$2" -benchtime 3s -o "$OUT/engine.test" \
		-cpuprofile "$OUT/$name.prof" ./twin/engine >"$OUT/logs/$name.log" 2>&1; then
		printf '%s (`go test -bench %s ./twin/engine`, then `go tool pprof -top -cum -focus Engine.ServeHTTP`, leaving out the benchmark loop itself):\n\n```\n' "$1" "'$2'"
		grep '^Benchmark' "$OUT/logs/$name.log"
		go tool pprof -top -cum -nodecount 20 -focus 'Engine..ServeHTTP$' "$OUT/engine.test" "$OUT/$name.prof" 2>/dev/null | sed -n '/^Showing nodes/,$p'
		printf '```\n\n'
	else
		printf '%s: the benchmark failed, see %s.\n\n' "$1" "$OUT/logs/$name.log"
	fi
}
# served_profile TITLE MODE FILL: a CPU profile of the Wraith process
# (bench/wraithprof) while wrk sends the benchmark's MODE load at c=256,
# every request in one session, on a fresh process (FILL 0) or on one that
# FILL creates in that session filled first. harness profile opens the
# profile as the load starts and closes it as the load ends, so it holds
# the load alone, and prints what garbage collection cost meanwhile; then
# a profile of the heap the process holds once the load is over.
served_profile() {
	local name=served-$2 on="a fresh process"
	if [ "$3" -gt 0 ]; then
		name=$name-filled on="a process that $3 creates in that session filled first"
	fi
	if [ -x "$BIN/wraithprof" ] && run_harness profile -wraithprof "$BIN/wraithprof" -out "$OUT" \
		-lua bench/load.lua -mode "$2" -conns 256 -duration "$DURATION" -sessions 1 -fill "$3" \
		-cpuprofile "$OUT/$name.prof" -memprofile "$OUT/$name-heap.prof" >"$OUT/logs/$name.txt" 2>&1; then
		printf '%s (`%s.prof`: bench/wraithprof, Wraith serving checkout, on %s, with a CPU profile of the whole process during the load alone, wrk -t2 -c256 for %s, every request in one session; the GC figures from runtime/metrics over the same window are in `%s.prof.gc.json`):\n\n```\n' \
			"$1" "$name" "$on" "$DURATION" "$name"
		cat "$OUT/logs/$name.txt"
		# The GC's share by the profile's own samples: those under its goroutines.
		go tool pprof -top -nodefraction 0 -nodecount 100000 -focus '^runtime\.(gcBgMarkWorker|gcAssistAlloc|bgsweep|bgscavenge)$' \
			"$BIN/wraithprof" "$OUT/$name.prof" 2>/dev/null |
			sed -n 's/^Showing nodes accounting for \(.*\)/GC in the CPU profile (samples under gcBgMarkWorker, gcAssistAlloc, bgsweep, bgscavenge): \1/p'
		printf '\n`go tool pprof -top`, where the CPU time itself is spent:\n\n'
		go tool pprof -top -nodecount 15 "$BIN/wraithprof" "$OUT/$name.prof" 2>/dev/null | sed -n '/^Showing nodes/,$p'
		printf '\n`go tool pprof -top -cum`:\n\n'
		go tool pprof -top -cum -nodecount 40 "$BIN/wraithprof" "$OUT/$name.prof" 2>/dev/null | sed -n '/^Showing nodes/,$p'
		printf '```\n\n'
		printf 'What the process held once that load was over (`go tool pprof -sample_index=inuse_space -top`, live objects after a GC):\n\n```\n'
		go tool pprof -sample_index=inuse_space -top -nodecount 12 "$BIN/wraithprof" "$OUT/$name-heap.prof" 2>/dev/null | sed -n '/^Showing nodes/,$p'
		printf '```\n\n'
	else
		printf '%s: no profile, see %s.\n\n' "$1" "$OUT/logs/$name.txt"
	fi
}
profile=
if [ "$PROFILE" = 1 ]; then
	say "CPU profiles of Wraith serving the GET load (fresh, and after $PROFILE_FILL creates) and the create load, and of the engine's benchmarks"
	{
		served_profile "Served recorded GET, fresh process" get 0
		[ "$PROFILE_FILL" -gt 0 ] && served_profile "Served recorded GET, after $PROFILE_FILL creates" get "$PROFILE_FILL"
		served_profile "Served create" post 0
		profile_one "The engine alone, recorded GET, 256 sessions, in parallel" '^BenchmarkRecordedGetParallel$'
		profile_one "The engine alone, create, 10,000 sessions alive" '^BenchmarkCreate$/^sessions=10000$'
	} >"$OUT/profile.md"
	profile=$OUT/profile.md
fi

# --- the run --------------------------------------------------------------
say "running: passes=$PASSES duration=$DURATION servers=$SERVERS"
args=(bench -out "$OUT" -lua bench/load.lua
	-duration "$DURATION" -passes "$PASSES" -warmup "$WARMUP" -conns "$CONNS"
	-servers "$SERVERS" -twins "$TWINS" -sessions "$SESSIONS" -hold "$HOLD" -hold-timeout "$HOLD_TIMEOUT"
	-quiet-wait "${BENCH_QUIET_WAIT:-10s}" -retries "${BENCH_RETRIES:-1}" -slack "${BENCH_SLACK:-2m}"
	-wraith "$WRAITH" -ceiling "$BIN/ceiling"
	-stripe-mock "$STRIPE_MOCK" -wiremock-jar "$WIREMOCK_JAR" -mountebank "$MB"
	-java "$JAVA" -node "$NODE")
for m in "${meta[@]}"; do args+=(-meta "$m"); done
args+=("${missing[@]}")
run_harness "${args[@]}" >"$OUT/load.txt"

# --- benchstat, then the report ---------------------------------------------
# One column per server, the ceiling first: benchstat's "vs base" is then
# each server against the ceiling of the same run.
starts=
[ -n "$TWINS" ] && starts=" serve-${TWINS//,/ serve-}"
cols="/server@(${SERVERS//,/ }$starts)"
"$BENCHSTAT" -col "$cols" "$OUT/load.txt" >"$OUT/load.stat.txt"
"$BENCHSTAT" -col "$cols" -format csv "$OUT/load.txt" >"$OUT/load.stat.csv" 2>/dev/null
"$BENCHSTAT" "$gostat" >"$OUT/gotargets.stat.txt"
"$BENCHSTAT" -format csv "$gostat" >"$OUT/gotargets.stat.csv" 2>/dev/null
report=(report -o "$RESULTS" -title "$TITLE" -sessions "$SESSIONS" -hold "$HOLD" -lines "$OUT/load.txt"
	-stat "$OUT/load.stat.txt" -stat-csv "$OUT/load.stat.csv"
	-go-stat "$OUT/gotargets.stat.txt" -go-stat-csv "$OUT/gotargets.stat.csv" -profile "$profile")
[ "$GOBENCH" = 1 ] && report+=(-gobench "$OUT/gobench.txt")
run_harness "${report[@]}"

# --- this round's figures (issue 29), after the report -----------------------
# bench/round3.sh writes its section as markdown (bench/out/round3.md); the
# report is whole by now, so the section is appended to it. A failure (a
# benchmark whose checks failed) is said in the report and fails the run.
if [ "$ROUND3" = 1 ]; then
	say "bench/round3.sh: validation, a Stripe flow, a git push, durable writes ($ROUND3_PASSES passes of $ROUND3_BENCHTIME)"
	t0=$SECONDS
	if PASSES=$ROUND3_PASSES BENCHTIME=$ROUND3_BENCHTIME BENCHSTAT=$BENCHSTAT \
		bash bench/round3.sh >"$OUT/logs/round3.log" 2>&1; then
		{ echo; cat "$OUT/round3.md"; } >>"$RESULTS"
		echo $((SECONDS - t0)) >"$CACHE/round3-$ROUND3_PASSES-$ROUND3_BENCHTIME.seconds" # the next run's estimate
	else
		status=1
		say "bench/round3.sh failed, see $OUT/logs/round3.log"
		printf '\n## Round three: validation, behaviour, git, durable writes\n\nbench/round3.sh failed: see %s.\n' "$OUT/logs/round3.log" >>"$RESULTS"
	fi
fi
cp "$OUT/load.txt" "$OUT/load-$(date -u +%Y-%m-%dT%H%MZ).txt"
took=$((SECONDS - run_t0))
say "took $((took / 60)) min $((took % 60)) s (estimated about $(((est + 59) / 60)) min)"
exit "$status"
