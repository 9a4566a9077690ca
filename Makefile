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

bench:
	$(GO) test -run='^$$' -bench=. -benchmem $(PKGS)
	bash bench/run.sh

soak:
	bash bench/soak.sh

clean:
	rm -rf bin
