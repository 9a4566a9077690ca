#!/usr/bin/env bash
# bench/soak.sh: a bounded soak of `wraith serve checkout` (make soak).
# 256 keep-alive connections send a mix of recorded GETs and creates over
# 256 sessions for SOAK_ROUNDS rounds of SOAK_DURATION (2 × 15 s), every
# session reset between rounds. Fails (exit 1) on any 5xx, 4xx or socket
# error, on idle RSS or thread growth from the first round to the last, on
# more goroutines at the end than in an idle fresh process (from
# /__wraith/info, or from a SIGQUIT stack dump where info has no count), or
# if the server stops answering. Report: stdout and bench/out/soak-<date>.md.
#
# Settings (environment): SOAK_DURATION (15s), SOAK_ROUNDS (2),
# SOAK_CONNS (256), SOAK_SESSIONS (256), SOAK_POST_EVERY (5).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
BIN=bench/.cache/bin
OUT=bench/out
mkdir -p "$BIN" "$OUT/logs"

harness_pid=
cleanup() {
	if [ -n "$harness_pid" ] && kill -0 "$harness_pid" 2>/dev/null; then
		kill -TERM "$harness_pid" 2>/dev/null || true
		wait "$harness_pid" 2>/dev/null || true
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if ! command -v wrk >/dev/null; then
	echo "== installing wrk from Debian" >&2
	apt-get update -qq >/dev/null && apt-get install -y -qq wrk >/dev/null
fi
go build -o "$BIN/" ./bench/harness ./cmd/wraith-twin
WRAITH=$BIN/wraith
if ! go build -o "$BIN/" ./cmd/wraith 2>"$OUT/logs/build-wraith.log"; then
	echo "== cmd/wraith does not build: soaking wraith-twin, which serves identically" >&2
	WRAITH=$BIN/wraith-twin
fi

"$BIN/harness" soak -out "$OUT" -lua bench/load.lua -wraith "$WRAITH" \
	-duration "${SOAK_DURATION:-15s}" -rounds "${SOAK_ROUNDS:-2}" \
	-conns "${SOAK_CONNS:-256}" -sessions "${SOAK_SESSIONS:-256}" \
	-post-every "${SOAK_POST_EVERY:-5}" &
harness_pid=$!
status=0
wait "$harness_pid" || status=$?
harness_pid=
exit "$status"
