# Wraith's tasks. `make run` serves the embedded checkout twin; `make test`
# is the whole default test run, the one CI runs.
GO       ?= go
FUZZTIME ?= 2m
PKGS     := ./...

# Stripe's OpenAPI description and fixtures come from the stripe-mock Go
# module, pinned in one place: [source] of twin/openapi/overlays/stripe.toml.
STRIPE_OVERLAY := twin/openapi/overlays/stripe.toml
stripe_source = $(shell sed -n 's/^$(1) = "\(.*\)"/\1/p' $(STRIPE_OVERLAY))

# GitHub's REST description comes from the npm package @octokit/openapi,
# pinned in one place: [source] of twin/openapi/overlays/github.toml. It is
# installed into .specs/ (git-ignored).
GITHUB_OVERLAY := twin/openapi/overlays/github.toml
github_source = $(shell sed -n 's/^$(1) = "\(.*\)"/\1/p' $(GITHUB_OVERLAY))
GITHUB_SPEC = .specs/node_modules/$(shell echo '$(call github_source,npm)' | sed 's/@[^@]*$$//')/$(call github_source,spec)

.PHONY: run test check build fuzz bench bench-durable bench-round3 soak clean specs twins nginx node-clients chromium fresh-modules sandbox-clients git-client kubecheck panel mcp-servers mcp sdk-suites

run:
	$(GO) run ./cmd/wraith serve checkout

test: check specs nginx node-clients chromium sandbox-clients git-client fresh-modules kubecheck
	$(GO) test -race -count=1 $(PKGS)

# The tests that build a module of their own (TestExternalModule) once more
# with an empty module cache, as on a fresh machine: a warm cache once hid a
# module that only such a module's graph needs. Bounded to those tests; the
# cache is removed afterwards (its files are read-only, hence go clean).
# Under CI=true it is skipped: CI's machine is fresh, so the default run's
# own TestExternalModule is already this check, and a second download of
# every module would only cost the run its time.
FRESH_TESTS := ./wraithtest
fresh-modules:
	@if [ "$$CI" = true ] && [ -z "$(FRESH_ON_CI)" ]; then \
	  echo "fresh-modules: CI runs on a fresh machine, whose module cache is empty before this run: TestExternalModule runs there with the other tests (FRESH_ON_CI=1 runs this check anyway)" >&2; exit 0; fi; \
	cache=$$(mktemp -d); trap 'GOMODCACHE="$$cache" $(GO) clean -modcache; rm -rf "$$cache"' EXIT; \
	echo "fresh-modules: go test -run TestExternalModule $(FRESH_TESTS) with an empty GOMODCACHE" >&2; \
	if ! GOMODCACHE="$$cache" $(GO) list -deps -test $(FRESH_TESTS) >/dev/null; then \
	  echo "fresh-modules: could not fetch the modules into an empty cache (offline?); skipping the fresh-machine check" >&2; \
	  if [ "$$CI" = true ]; then exit 1; fi; exit 0; fi; \
	GOMODCACHE="$$cache" $(GO) test -count=1 -run '^TestExternalModule$$' $(FRESH_TESTS)

# Download the pinned API descriptions into the module cache and print
# where they are. Offline, the tests that need them skip and say why;
# with CI=true (as CI sets it) a failed download fails here, and the
# tests fail too, so regeneration is always checked in CI.
SPECS_FAIL = if [ "$$CI" = true ]; then echo "specs: CI=true: failing, since the regeneration and conformance tests need it" >&2; exit 1; fi
specs:
	@if out=$$($(GO) mod download -json $(call stripe_source,module)); then echo "$$out" | sed -n 's/.*"Dir": "\(.*\)",*/\1/p'; \
	else echo "specs: could not download $(call stripe_source,module); the stripe regeneration and conformance tests will skip" >&2; $(SPECS_FAIL); fi
	@if ! command -v npm >/dev/null 2>&1; then echo "specs: npm is not installed; the github regeneration and conformance tests will skip" >&2; $(SPECS_FAIL); \
	elif grep -q '"$(call github_source,npm)"' .specs/installed 2>/dev/null && [ -f $(GITHUB_SPEC) ]; then :; \
	else mkdir -p .specs && npm install --prefix .specs --no-save --no-audit --no-fund --silent '$(call github_source,npm)' >/dev/null \
	  && echo '"$(call github_source,npm)"' > .specs/installed \
	  || { echo "specs: npm could not install $(call github_source,npm); the github regeneration and conformance tests will skip" >&2; $(SPECS_FAIL); }; fi

# The embedded twins recorded from Stripe, whose requests.json the twins
# target takes from Stripe's description.
RECORDED_STRIPE_TWINS := checkout billing

# Regenerate the embedded twins imported from API descriptions
# (docs/import.md); TestStripeRegenerates checks the committed result.
twins: specs
	@# Built before the old twins are removed: the binary embeds them.
	$(GO) build -o .specs/wraith ./cmd/wraith
	@set -e; dir=$$($(GO) mod download -json $(call stripe_source,module) | sed -n 's/.*"Dir": "\(.*\)",*/\1/p'); \
	rm -rf twin/embedded/stripe; \
	.specs/wraith import openapi "$$dir/$(call stripe_source,spec)" -o twin/embedded/stripe \
	  --fixtures "$$dir/$(call stripe_source,fixtures)" --overlay $(STRIPE_OVERLAY)
	@# The recorded Stripe twins are checked against Stripe's description
	@# too: requests.json of the operations each serves (docs/validation.md).
	@set -e; dir=$$($(GO) mod download -json $(call stripe_source,module) | sed -n 's/.*"Dir": "\(.*\)",*/\1/p'); \
	for t in $(RECORDED_STRIPE_TWINS); do \
	  .specs/wraith import openapi "$$dir/$(call stripe_source,spec)" --requests-for twin/embedded/$$t \
	    --fixtures "$$dir/$(call stripe_source,fixtures)" --overlay $(STRIPE_OVERLAY); done
	rm -rf twin/embedded/github
	.specs/wraith import openapi $(GITHUB_SPEC) -o twin/embedded/github --overlay $(GITHUB_OVERLAY)

# nginx for the fleet test (docs/fleet.md): installed from Debian's packages
# when missing, as root; a no-op when present. Where it cannot be installed
# (not root, no apt-get, offline) it says so and the fleet test skips.
NGINX ?= /usr/sbin/nginx
nginx:
	@if [ -x $(NGINX) ] || command -v nginx >/dev/null 2>&1; then exit 0; fi; \
	if [ "$$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then \
	  echo "nginx: not installed, and installing needs root and apt-get: apt-get install nginx; the fleet test will skip" >&2; exit 0; fi; \
	echo "nginx: installing Debian's nginx package for the fleet test" >&2; \
	export DEBIAN_FRONTEND=noninteractive; \
	{ apt-get update -qq && apt-get install -y -qq --no-install-recommends nginx >/dev/null; } \
	  || echo "nginx: apt-get could not install nginx; the fleet test will skip" >&2

# Chromium for the session viewer's browser test (docs/evaluation.md):
# installed from Debian's packages when missing, as root; a no-op when
# present. Where it cannot be installed (not root, no apt-get, offline) it
# says so and the browser test skips.
CHROMIUM ?= /usr/bin/chromium
chromium:
	@if [ -x $(CHROMIUM) ]; then exit 0; fi; \
	if [ "$$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then \
	  echo "chromium: not installed, and installing needs root and apt-get: apt-get install chromium; the browser test will skip" >&2; exit 0; fi; \
	echo "chromium: installing Debian's chromium package for the browser test" >&2; \
	export DEBIAN_FRONTEND=noninteractive; \
	{ apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium >/dev/null; } \
	  || echo "chromium: apt-get could not install chromium; the browser test will skip" >&2

# The official Node clients some tests drive (stripe-node, Octokit, and
# har-validator for the HAR export), pinned in testdata/node. Offline, the
# tests that need them skip and say why.
node-clients:
	@npm install --prefix testdata/node --no-audit --no-fund --loglevel=error >/dev/null \
	  || echo "node-clients: npm install failed; the stripe-node, Octokit and HAR validator tests will skip" >&2

# The unmodified programs wraith run's tests drive (docs/sandbox.md): curl
# and Python requests from Debian's packages, pinned; stripe-node comes
# from node-clients. Installed as root when missing, a no-op when present.
# Where they cannot be installed the tests that need them skip and say
# so; with CI=true that fails here, as the tests would.
SANDBOX_DEBS := python3-requests=2.28.1+dfsg-1 curl=7.88.1-10+deb12u14
sandbox-clients:
	@if /usr/bin/python3 -c 'import requests' 2>/dev/null && command -v curl >/dev/null 2>&1; then exit 0; fi; \
	if [ "$$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then \
	  echo "sandbox-clients: python3-requests or curl is missing, and installing needs root and apt-get: apt-get install $(SANDBOX_DEBS); the wraith run client tests will skip" >&2; \
	  if [ "$$CI" = true ]; then exit 1; fi; exit 0; fi; \
	echo "sandbox-clients: installing $(SANDBOX_DEBS) for the wraith run client tests" >&2; \
	export DEBIAN_FRONTEND=noninteractive; \
	{ apt-get update -qq && apt-get install -y -qq --no-install-recommends $(SANDBOX_DEBS) >/dev/null; } \
	  || { echo "sandbox-clients: apt-get could not install $(SANDBOX_DEBS); the wraith run client tests will skip" >&2; if [ "$$CI" = true ]; then exit 1; fi; }

# The real git client the git world's smart HTTP tests drive (clone,
# fetch, push against twin/gitworld; docs/git.md), from Debian's packages,
# pinned. A clean Debian image has no git. Installed as root when missing,
# a no-op when present; where it cannot be installed the tests skip and
# say so, and with CI=true that fails here, as the tests would.
GIT_DEB := git=1:2.39.5-0+deb12u3
git-client:
	@if command -v git >/dev/null 2>&1; then exit 0; fi; \
	if [ "$$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then \
	  echo "git-client: git is missing, and installing needs root and apt-get: apt-get install $(GIT_DEB); the git smart HTTP tests will skip" >&2; \
	  if [ "$$CI" = true ]; then exit 1; fi; exit 0; fi; \
	echo "git-client: installing $(GIT_DEB) for the git smart HTTP tests" >&2; \
	export DEBIAN_FRONTEND=noninteractive; \
	{ apt-get update -qq && apt-get install -y -qq --no-install-recommends $(GIT_DEB) >/dev/null; } \
	  || { echo "git-client: apt-get could not install $(GIT_DEB); the git smart HTTP tests will skip" >&2; if [ "$$CI" = true ]; then exit 1; fi; }

# The Kubernetes manifests decoded strictly into the Kubernetes API's types
# (docs/fleet.md): deploy/kubecheck is a module of its own, so that those
# types stay out of Wraith's module graph. Offline it says so and skips;
# with CI=true it fails.
kubecheck:
	@cd deploy/kubecheck && if ! $(GO) mod download >/dev/null 2>&1; then \
	  echo "kubecheck: could not download the Kubernetes API modules; the manifests are not checked against its types" >&2; \
	  if [ "$$CI" = true ]; then exit 1; fi; exit 0; fi; \
	$(GO) vet ./... && $(GO) test -count=1 ./...

# GitHub's and Stripe's MCP servers, pinned in testdata/mcp (a lock file
# with them), for the test that runs them unmodified under wraith run and
# drives them over stdio (docs/sandbox.md). Not part of make test: the
# install is some 125 MB. `make mcp` installs them and runs that test; once
# installed, make test runs it too.
mcp-servers:
	@npm install --prefix testdata/mcp --no-audit --no-fund --loglevel=error >/dev/null \
	  || { echo "mcp-servers: npm install failed; TestRunMCPServers will skip" >&2; if [ "$$CI" = true ]; then exit 1; fi; }

mcp: mcp-servers
	$(GO) test -race -count=1 -run '^TestRunMCPServers$$' -v ./cmd/wraith

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
# side-by-side run against the ceiling and the peers, summarised by
# benchstat into bench/RESULTS.md: bench/README.md. The side-by-side run
# goes on when a Go benchmark fails; make still fails.
# `make bench BENCH_SMOKE=1` is a quick check that it all works.
bench:
	bash bench/run.sh

# The figures of durable sessions (docs/durable.md) side by side: creates
# at 32 connections in memory and with --state-dir, recovery of 100,000
# entities, checkpoints beside writers, the group commit; PASSES=6.
bench-durable:
	bash bench/durable.sh

# This round's figures (issue 29) side by side: validation strict and off,
# a Stripe flow with its behaviour, a git push, durable writes, on the
# stripe and checkout twins; PASSES=6. make bench runs it last.
bench-round3:
	bash bench/round3.sh

# A bounded soak of wraith-twin (2 rounds of 15 s at 256 connections by
# default; e.g. SOAK_FLAGS="-duration 5s -rounds 3"): bench/README.md.
# Then the kill -9 soak of durable sessions: 64 agents, 20 SIGKILLs of a
# twin on a state folder (docs/durable.md), about 30 s. Then the guide's
# serve --detach sequence 20 times (5 in make test).
soak:
	$(GO) run ./bench/load $(SOAK_FLAGS)
	WRAITH_KILL_AGENTS=64 WRAITH_KILL_ROUNDS=20 $(GO) test -count=1 -run TestKillRecovers -v ./cmd/wraith-twin
	WRAITH_FLEET_KILLS=12 $(GO) test -race -count=1 -run '^TestNginxFleetKill$$' -v ./cmd/wraith
	WRAITH_GUIDE_RUNS=20 $(GO) test -race -count=1 -run '^TestGuideServeSequence$$' -v ./cmd/wraith

# The panel of real API descriptions (panel/descriptions.tsv, pinned by
# npm package, version and sha256) imported, served and driven through a
# flow and a validation sweep, with a table per description
# (docs/import.md), beside Prism's mock server (pinned here, installed
# with npm into .panel/prism) driven alike. Not in the default test run:
# it fetches about 50 MB of packages and Prism once into .panel/
# (git-ignored) and takes a few minutes. PANEL_ONLY=petstore,slack runs
# those descriptions only (into .panel/report.only.txt); PANEL_PRISM=false
# leaves Prism out.
PRISM := @stoplight/prism-cli@5.14.2
PANEL_PRISM := true
panel:
	@command -v npm >/dev/null 2>&1 || { echo "panel: npm is not installed: install Node.js and npm, which fetch the panel's packages" >&2; exit 1; }
	sh panel/fetch.sh .panel
	@if ! grep -qx '$(PRISM)' .panel/prism/installed 2>/dev/null; then echo "panel: npm install $(PRISM) into .panel/prism" >&2; \
	  mkdir -p .panel/prism && npm install --prefix .panel/prism --no-save --no-audit --no-fund --silent '$(PRISM)' >/dev/null \
	  && echo '$(PRISM)' > .panel/prism/installed \
	  || echo "panel: npm could not install $(PRISM): the table will have wraith's rows only" >&2; fi
	$(GO) test -tags panel -count=1 -v -run '^TestPanel$$' ./panel -args -panel.only='$(PANEL_ONLY)' -panel.prism=$(PANEL_PRISM)

# The official Stripe SDKs' own test suites, stripe-go's and
# stripe-python's, each run against stripe-mock and against
# `wraith serve stripe --compat stripe-mock`, side by side, into
# sdk/RESULTS.md and sdk/results.json (docs/compat.md). Versions are
# pinned in sdk/pins.go; sources, binaries and raw outputs go to .sdk/
# (git-ignored). Not in make test: it takes minutes. One suite, or one
# package, again: make sdk-suites SDK_FLAGS="-suite stripe-go -pkg ./customer"
# (a partial run reports under .sdk/out only).
sdk-suites:
	$(GO) run ./sdk $(SDK_FLAGS)

clean:
	rm -rf bin
