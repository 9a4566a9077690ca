#!/usr/bin/env bash
# bench/run.sh: Wraith against the plain net/http ceiling, stripe-mock,
# WireMock and Mountebank, side by side in one run (issue 6). Installs what
# it needs through the registries (wrk from Debian, stripe-mock with go
# install, WireMock and Mountebank from npm) into bench/.cache, builds Wraith,
# the ceiling and the harness, then lets bench/harness start each server in
# turn and drive bounded wrk loads. Writes bench/out/results-<date>.md and
# bench/RESULTS.md. A peer that cannot be installed is reported as such.
#
# Settings (environment):
#   BENCH_DURATION  length of each measured load, whole seconds (10s)
#   PASSES          passes; the report gives medians (5, as issue 6 measured)
#   BENCH_WARMUP    unmeasured GET load before each server's loads (5s)
#   BENCH_CONNS     keep-alive connection counts (32,256)
#   BENCH_SERVERS   servers to run (ceiling,wraith,wraith-10k,stripe-mock,wiremock,mountebank)
#   BENCH_SESSIONS  sessions alive in the wraith-10k run (10000)
#   BENCH_QUIET_WAIT  before each load, wait up to this long for the machine's
#                   other processes to keep fewer than 0.2 cores busy (10s)
#   BENCH_RETRIES   measure a load again this many times when other processes
#                   kept more than 0.25 cores busy during it (1)
#   BENCH_PROFILE   1 adds CPU profiles of Wraith serving the GET and create
#                   loads, and of the engine's benchmarks (1)
#   BENCH_GOBENCH   go test -bench output already taken (make bench sets it)
#   STRIPE_MOCK_VERSION (latest), WIREMOCK_VERSION (3.13.2), MOUNTEBANK_VERSION (2.9.1)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"

DURATION=${BENCH_DURATION:-10s}
PASSES=${PASSES:-5}
WARMUP=${BENCH_WARMUP:-5s}
CONNS=${BENCH_CONNS:-32,256}
SERVERS=${BENCH_SERVERS:-ceiling,wraith,wraith-10k,stripe-mock,wiremock,mountebank}
SESSIONS=${BENCH_SESSIONS:-10000}
PROFILE=${BENCH_PROFILE:-1}
GOBENCH=${BENCH_GOBENCH:-}
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

# --- wrk (required) -------------------------------------------------------
if ! command -v wrk >/dev/null; then
	say "installing wrk from Debian"
	apt-get update -qq >/dev/null && apt-get install -y -qq wrk >/dev/null
fi
meta+=("$( (wrk -v 2>&1 || true) | head -1 | cut -d' ' -f1-2)")

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
meta+=("Wraith $rev ($(basename "$WRAITH"))" "$(go version | cut -d' ' -f3)")

# --- stripe-mock ------------------------------------------------------------
STRIPE_MOCK=$BIN/stripe-mock
if [ ! -x "$STRIPE_MOCK" ]; then
	say "installing stripe-mock@${STRIPE_MOCK_VERSION:-latest} with go install"
	if ! GOBIN="$PWD/$BIN" go install "github.com/stripe/stripe-mock@${STRIPE_MOCK_VERSION:-latest}" >"$OUT/logs/install-stripe-mock.log" 2>&1; then
		missing+=("-missing" "stripe-mock=go install failed: $(tail -1 "$OUT/logs/install-stripe-mock.log")")
		STRIPE_MOCK=
	fi
fi
[ -n "$STRIPE_MOCK" ] && meta+=("stripe-mock $(go version -m "$STRIPE_MOCK" | awk '$1=="mod"{print $3}')")

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
		meta+=("WireMock $(npm_version wiremock) on $("$JAVA" -version 2>&1 | head -1)")
	fi
else
	missing+=("-missing" "wiremock=npm install failed: $(tail -1 "$OUT/logs/install-wiremock.log")")
fi
MB=
if [ -z "$NODE" ] || ! command -v npm >/dev/null; then
	missing+=("-missing" "mountebank=no node or npm on this machine")
elif npm_get mountebank "${MOUNTEBANK_VERSION:-2.9.1}"; then
	MB=$CACHE/npm/node_modules/mountebank/bin/mb
	meta+=("Mountebank $(npm_version mountebank) on node $("$NODE" -v)")
else
	missing+=("-missing" "mountebank=npm install failed: $(tail -1 "$OUT/logs/install-mountebank.log")")
fi

# --- figures from go test -----------------------------------------------------
# gobench_or_run FILE PATTERN PACKAGE: the lines of an earlier go test -bench
# run when it has them, else a run of just that benchmark.
gobench_or_run() {
	if [ -n "$GOBENCH" ] && grep -q "^$2" "$GOBENCH" 2>/dev/null; then
		{ grep -m1 '^cpu:' "$GOBENCH" || true; grep -E "^$2" "$GOBENCH"; } >"$1"
	else
		say "go test -bench $2 $3"
		go test -run '^$' -bench "^$2\$" ${4:+-benchtime "$4"} "$3" >"$1" 2>&1 || say "$2 failed: see $1"
	fi
}
gobench_or_run "$OUT/sessionmem.txt" BenchmarkSessionMemory ./twin/engine
up10=
if [ "$(basename "$WRAITH")" = wraith ]; then
	gobench_or_run "$OUT/up10.txt" BenchmarkUp10Twins ./cmd/wraith 3x
	up10=$OUT/up10.txt
fi
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
# served_profile TITLE MODE: a CPU profile of the whole Wraith process
# (bench/wraithprof) while wrk sends the benchmark's MODE load at c=256,
# and a profile of the heap it holds once the load is over.
served_profile() {
	if [ -x "$BIN/wraithprof" ] && run_harness profile -wraithprof "$BIN/wraithprof" -out "$OUT" \
		-lua bench/load.lua -mode "$2" -conns 256 -duration "$DURATION" -sessions 256 \
		-cpuprofile "$OUT/served-$2.prof" -memprofile "$OUT/served-$2-heap.prof" >"$OUT/logs/served-$2.txt" 2>&1; then
		printf '%s (bench/wraithprof: Wraith serving checkout with a CPU profile of the whole process, under wrk -t2 -c256 for %s; `go tool pprof -top -cum`):\n\n```\n' "$1" "$DURATION"
		cat "$OUT/logs/served-$2.txt"
		go tool pprof -top -cum -nodecount 40 "$BIN/wraithprof" "$OUT/served-$2.prof" 2>/dev/null | sed -n '/^Showing nodes/,$p'
		printf '```\n\n'
		printf 'What the process held once that load was over (`go tool pprof -sample_index=inuse_space -top`, live objects after a GC):\n\n```\n'
		go tool pprof -sample_index=inuse_space -top -nodecount 12 "$BIN/wraithprof" "$OUT/served-$2-heap.prof" 2>/dev/null | sed -n '/^Showing nodes/,$p'
		printf '```\n\n'
	else
		printf '%s: no profile, see %s.\n\n' "$1" "$OUT/logs/served-$2.txt"
	fi
}
profile=
if [ "$PROFILE" = 1 ]; then
	say "CPU profiles of Wraith serving the GET and create loads, and of the engine's benchmarks"
	{
		served_profile "Served recorded GET" get
		served_profile "Served create" post
		profile_one "The engine alone, recorded GET, 256 sessions, in parallel" '^BenchmarkRecordedGetParallel$'
		profile_one "The engine alone, create, 10,000 sessions alive" '^BenchmarkCreate$/^sessions=10000$'
	} >"$OUT/profile.md"
	profile=$OUT/profile.md
fi

# --- the run --------------------------------------------------------------
say "running: passes=$PASSES duration=$DURATION servers=$SERVERS"
args=(bench -out "$OUT" -results bench/RESULTS.md -lua bench/load.lua
	-duration "$DURATION" -passes "$PASSES" -warmup "$WARMUP" -conns "$CONNS"
	-servers "$SERVERS" -sessions "$SESSIONS" -quiet-wait "${BENCH_QUIET_WAIT:-10s}" -retries "${BENCH_RETRIES:-1}"
	-wraith "$WRAITH" -ceiling "$BIN/ceiling"
	-stripe-mock "$STRIPE_MOCK" -wiremock-jar "$WIREMOCK_JAR" -mountebank "$MB"
	-java "$JAVA" -node "$NODE"
	-session-mem "$OUT/sessionmem.txt" -up10 "$up10" -profile "$profile")
[ -n "$GOBENCH" ] && args+=(-gobench "$GOBENCH")
for m in "${meta[@]}"; do args+=(-meta "$m"); done
args+=("${missing[@]}")
run_harness "${args[@]}"
