#!/usr/bin/env bash
# bench/durable.sh: the figures of durable sessions (--state-dir, issue 27,
# docs/durable.md), side by side in one run. Each pass runs, one after the
# other so that the machine's load falls on both alike:
#   BenchmarkServedCreateState  creates at 32 connections, in memory and
#                               with --state-dir (ns/op, p99-ns, writes/sync, sync-us)
#   BenchmarkRecover            100,000 customers over 256 sessions: recover-ms,
#                               recover-cpu-ms, B/entity
#   BenchmarkCheckpointStall    a small write's p99 and max while checkpoints run
#   BenchmarkCommit             the journal's group commit alone
# and prints each pass's durable/memory create ratio, then benchstat's
# medians. Lines go to bench/out/durable.txt.
#
# Settings (environment): PASSES (6), RECOVER_ROUNDS (3 recoveries per pass).
set -euo pipefail
cd "$(dirname "$0")/.."
PASSES=${PASSES:-6}
RECOVER_ROUNDS=${RECOVER_ROUNDS:-3}
out=bench/out
mkdir -p "$out/bin"
go test -c -o "$out/bin/server.test" ./twin/server
go test -c -o "$out/bin/durable.test" ./twin/durable
lines=$out/durable.txt
: >"$lines"
for pass in $(seq "$PASSES"); do
	echo "pass $pass of $PASSES" >&2
	(cd twin/server && "../../$out/bin/server.test" -test.run X -test.benchmem \
		-test.bench 'ServedCreateState' | grep '^Benchmark') | tee -a "$lines" |
		awk '/store=memory/ {m=$3} /store=state-dir/ {d=$3} END {if (m && d) printf "pass ratio durable/memory creates/s: %.2f\n", m/d}' >&2
	(cd twin/server && "../../$out/bin/server.test" -test.run X \
		-test.bench 'Recover' -test.benchtime "${RECOVER_ROUNDS}x" | grep '^Benchmark') >>"$lines"
	(cd twin/durable && "../../$out/bin/durable.test" -test.run X \
		-test.bench 'CheckpointStall|Commit$' -test.benchtime 5000x | grep '^Benchmark') >>"$lines"
done
benchstat_bin=$(command -v benchstat || true)
if [ -z "$benchstat_bin" ] && [ -x "$(go env GOPATH)/bin/benchstat" ]; then
	benchstat_bin=$(go env GOPATH)/bin/benchstat
fi
if [ -n "$benchstat_bin" ]; then
	"$benchstat_bin" "$lines"
else
	echo "benchstat is not installed (go install golang.org/x/perf/cmd/benchstat@latest): the lines are in $lines" >&2
fi
