# Wraith's tasks. `make run` serves the embedded checkout twin; `make test`
# is the whole default test run, the one CI runs.
GO       ?= go
FUZZTIME ?= 2m
PKGS     := ./...

.PHONY: run test check build fuzz bench soak clean

run:
	$(GO) run ./cmd/wraith serve checkout

test: check
	$(GO) test -race -count=1 $(PKGS)

check:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet $(PKGS)

build:
	$(GO) build -o bin/ ./cmd/wraith ./cmd/wraith-twin

# Every fuzz target, FUZZTIME each (go test -fuzz takes one target at a time).
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
	  for t in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$t ($(FUZZTIME))"; \
	    $(GO) test -run='^$$' -fuzz="^$$t$$" -fuzztime=$(FUZZTIME) $$pkg; \
	  done; \
	done

# Go benchmarks of every package (kept in bench/out/gobench.txt), then the
# side-by-side run against the ceiling and the peers: bench/README.md.
# The side-by-side run goes on when a Go benchmark fails; make still fails.
bench:
	@mkdir -p bench/out
	@status=0; \
	{ $(GO) test -run='^$$' -bench=. -benchmem $(PKGS) 2>&1; echo $$? >bench/out/gobench.status; } | tee bench/out/gobench.txt; \
	[ "$$(cat bench/out/gobench.status)" = 0 ] || { status=1; echo "== go test -bench failed; going on with bench/run.sh" >&2; }; \
	BENCH_GOBENCH=bench/out/gobench.txt bash bench/run.sh || status=$$?; \
	exit $$status

# A bounded soak of wraith serve (30 s of load by default): bench/README.md.
soak:
	bash bench/soak.sh

clean:
	rm -rf bin
