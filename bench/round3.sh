#!/usr/bin/env bash
# bench/round3.sh: this round's figures (issue 29), side by side in one
# run, as ratios with benchstat's intervals. Each pass runs, one after the
# other so that the machine's load falls on every side alike:
#   BenchmarkServedValidation         creates, reads and list reads of the
#                                     stripe and checkout twins, --validate
#                                     strict and off
#   BenchmarkServedStripeFlow         a PaymentIntent created, confirmed
#                                     (charged) and refunded, per op, on the
#                                     stripe twin: strict and off, in memory
#                                     and with --state-dir
#   BenchmarkServedGitPush            one commit pushed over smart HTTP to
#                                     the github twin
#   BenchmarkServedCreateState{,Stripe}  creates in memory and with
#                                     --state-dir, on checkout and on stripe
# Lines go to bench/out/round3.txt; benchstat's tables, each a ratio of
# two columns of the same run, to bench/out/round3.md, a section of the
# report that bench/run.sh appends to bench/RESULTS.md.
#
# Settings (environment): PASSES (6: benchstat's intervals need 6),
# BENCHTIME (1s: each sub-benchmark's -test.benchtime; a pass then takes
# about a minute), BENCHSTAT (the benchstat to use; else bench/.cache/bin's,
# which bench/run.sh installs, then one on PATH or in $(go env GOPATH)/bin).
set -euo pipefail
cd "$(dirname "$0")/.."
PASSES=${PASSES:-6}
BENCHTIME=${BENCHTIME:-1s}
out=bench/out
mkdir -p "$out/bin"
go test -c -o "$out/bin/server.test" ./twin/server
lines=$out/round3.txt
: >"$lines"
# bench NAME: one benchmark of twin/server, its lines into $lines.
bench() {
	(cd twin/server && "../../$out/bin/server.test" -test.run X -test.benchmem \
		-test.bench "^$1\$" -test.benchtime "$BENCHTIME") | grep -E '^(Benchmark|goos|goarch|pkg|cpu)' >>"$lines"
}
t0=$SECONDS
for pass in $(seq "$PASSES"); do
	echo "round3: pass $pass of $PASSES" >&2
	for b in BenchmarkServedValidation BenchmarkServedStripeFlow BenchmarkServedGitPush \
		BenchmarkServedCreateState BenchmarkServedCreateStateStripe; do
		bench "$b"
	done
done
took=$((SECONDS - t0))

benchstat_bin=${BENCHSTAT:-}
for c in bench/.cache/bin/benchstat "$(command -v benchstat || true)" "$(go env GOPATH)/bin/benchstat"; do
	[ -z "$benchstat_bin" ] && [ -n "$c" ] && [ -x "$c" ] && benchstat_bin=$c
done
if [ -z "$benchstat_bin" ]; then
	echo "benchstat is not installed (go install golang.org/x/perf/cmd/benchstat@latest): the lines are in $lines" >&2
	exit 1
fi
# The durable creates of the two twins as one benchmark with a twin key,
# so that benchstat sets the twins side by side.
named=$out/round3.named.txt
sed -e 's|^BenchmarkServedCreateState/store=|BenchmarkServedCreateState/twin=checkout/store=|' \
	-e 's|^BenchmarkServedCreateStateStripe/store=|BenchmarkServedCreateState/twin=stripe/store=|' "$lines" >"$named"
# table TITLE FILE BENCHSTAT-ARGS...: one benchstat table in the fragment.
table() {
	local title=$1 file=$2
	shift 2
	printf '%s (`benchstat %s`):\n\n```\n' "$title" "$*"
	"$benchstat_bin" "$@" "$file" | grep -v '^\(goos\|goarch\|pkg\|cpu\):'
	printf '```\n\n'
}
# ratios PAIRS FILE: each pass's own ratio of two sub-benchmarks (the pass
# is the n-th line of a name), ns/op and cpu-ns/op where reported, then
# their median: the figure least moved by load that drifts between
# passes. PAIRS: a line "label|numerator|denominator" per ratio.
ratios() {
	awk -v pairs="$1" '
	/^Benchmark/ {
		name = $1; sub(/^Benchmark/, "", name); sub(/-[0-9]+$/, "", name)
		p = ++seen[name]; ns[name, p] = $3
		for (i = 4; i < NF; i++) if ($(i + 1) == "cpu-ns/op") cpu[name, p] = $i
	}
	function median(a, n,   i, j, t) {
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j] < a[j - 1]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	END {
		n = split(pairs, pair, "\n")
		for (k = 1; k <= n; k++) {
			split(pair[k], f, "|"); label = f[1]; a = f[2]; b = f[3]
			for (unit = 1; unit <= 2; unit++) {
				line = ""; m = 0; delete r
				for (q = 1; q <= seen[a] && q <= seen[b]; q++) {
					x = unit == 1 ? ns[a, q] : cpu[a, q]; y = unit == 1 ? ns[b, q] : cpu[b, q]
					if (x == "" || y == "" || y == 0) continue
					r[++m] = x / y; line = line sprintf(" %.2f", x / y)
				}
				if (m) printf "%-44s %-9s median %.2f  passes%s\n", label, unit == 1 ? "ns/op" : "cpu-ns/op", median(r, m), line
				delete r
			}
		}
	}' "$2"
}
rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
[ -n "$(git status --porcelain -- . ':!bench' 2>/dev/null)" ] && rev="$rev+changes"
{
	printf '## Round three: validation, behaviour, git, durable writes\n\n'
	printf '%s, wraith %s, %s, %s passes of `go test -bench -benchtime %s` in twin/server (bench/round3.sh, %d s). ' \
		"$(date -u +%Y-%m-%dT%H:%MZ)" "$rev" "$(go version | cut -d' ' -f3)" "$PASSES" "$BENCHTIME" "$took"
	printf 'Each table sets two columns of the same passes side by side, its ratio with benchstat'"'"'s 95%% interval; on a machine other work shares, sec/op moves with it, and the ratio within the run, and cpu-ns/op (the test process'"'"'s CPU time, server and client, per op), are the figures to read. Lines: bench/out/round3.txt.\n\n'
	printf 'Each pass'"'"'s own ratios, the two sides measured seconds apart (ns/op, and cpu-ns/op where the benchmark reports it), and their median:\n\n```\n'
	ratios "validation create, stripe: strict / off|ServedValidation/twin=stripe/op=create/validate=strict|ServedValidation/twin=stripe/op=create/validate=off
validation create, checkout: strict / off|ServedValidation/twin=checkout/op=create/validate=strict|ServedValidation/twin=checkout/op=create/validate=off
stripe flow, memory: strict / off|ServedStripeFlow/twin=stripe/store=memory/validate=strict|ServedStripeFlow/twin=stripe/store=memory/validate=off
stripe flow, strict: state-dir / memory|ServedStripeFlow/twin=stripe/store=state-dir/validate=strict|ServedStripeFlow/twin=stripe/store=memory/validate=strict
creates, checkout: state-dir / memory|ServedCreateState/twin=checkout/store=state-dir|ServedCreateState/twin=checkout/store=memory
creates, stripe: state-dir / memory|ServedCreateState/twin=stripe/store=state-dir|ServedCreateState/twin=stripe/store=memory
validation create, strict: stripe / checkout|ServedValidation/twin=stripe/op=create/validate=strict|ServedValidation/twin=checkout/op=create/validate=strict
creates, memory: stripe / checkout|ServedCreateState/twin=stripe/store=memory|ServedCreateState/twin=checkout/store=memory" "$named"
	printf '```\n\n'
	table "Validation, strict beside off, on the stripe and checkout twins" "$lines" \
		-filter .name:ServedValidation -col '/validate@(off strict)'
	table "The imported stripe twin beside the recorded checkout, validation strict and off" "$lines" \
		-filter .name:ServedValidation -col '/twin@(checkout stripe)'
	table "A Stripe flow with its behaviour (create, confirm, refund: one op), strict beside off" "$lines" \
		-filter .name:ServedStripeFlow -col '/validate@(off strict)'
	table "The same flow, durable (--state-dir) beside memory" "$lines" \
		-filter .name:ServedStripeFlow -col '/store@(memory state-dir)'
	table "A git push of one commit to the github twin, by go-git's encodings over net/http" "$lines" \
		-filter .name:ServedGitPush
	table "Creates, durable (--state-dir) beside memory, on checkout and on stripe" "$named" \
		-filter .name:ServedCreateState -col '/store@(memory state-dir)'
	table "Creates, stripe beside checkout, in memory and durable" "$named" \
		-filter .name:ServedCreateState -col '/twin@(checkout stripe)'
} >"$out/round3.md"
echo "round3: $out/round3.md" >&2
