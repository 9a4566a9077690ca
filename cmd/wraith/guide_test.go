package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wraithdev/wraith/internal/testbin"
)

// shell runs script with bash -euo pipefail in dir, with the built
// binaries first on PATH and a tag every process it starts inherits. Any
// process still carrying the tag when the test ends is killed.
func shell(tb testing.TB, dir, script string, env ...string) (string, error) {
	tb.Helper()
	bin := filepath.Dir(bins.Path(tb, "./cmd/wraith"))
	bins.Path(tb, "./cmd/wraith-twin")
	tag := fmt.Sprintf("%s-%d", strings.ReplaceAll(tb.Name(), "/", "_"), time.Now().UnixNano())
	tb.Cleanup(func() {
		for _, pid := range testbin.Tagged(tb, "WRAITH_TEST_TAG", tag) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(testbin.Env(), "PATH="+bin+":"+os.Getenv("PATH"), "WRAITH_TEST_TAG="+tag)
	cmd.Env = append(cmd.Env, env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

func needTools(tb testing.TB, tools ...string) {
	tb.Helper()
	for _, t := range tools {
		if _, err := exec.LookPath(t); err != nil {
			tb.Skipf("this test runs the guide's shell commands, which need %s: install it (apt-get install %s)", t, t)
		}
	}
}

// TestGuideServeSequence runs the guide's "start the sandbox" sequence as
// a script, several times: serve --detach returns once serving, so the
// next line reads this run's URL at once, never an earlier run's. Each run
// starts with a stale ready file naming a dead server. Each run waits on
// the guide's kill -0 loop for the old server, which only ends once the
// orphan is reaped by the system's init: about a second on some machines.
// So 5 runs in the default test run, WRAITH_GUIDE_RUNS (make soak: 20) for
// a longer hunt.
func TestGuideServeSequence(t *testing.T) {
	t.Parallel()
	needTools(t, "bash", "jq", "curl")
	runs := 5
	if v, err := strconv.Atoi(os.Getenv("WRAITH_GUIDE_RUNS")); err == nil && v > 0 {
		runs = v
	}
	dir := t.TempDir()
	script := `
for i in $(seq 1 "$RUNS"); do
  echo '{"wraith_ready_version":1,"serve":{"url":"http://127.0.0.1:1","port":1,"pid":1}}' > ready.json
  wraith serve checkout --port 0 --ready-json ready.json \
    --unknown-entity not_found --fixture baseline --seed 42 \
    --clock deterministic --clock-epoch 1700000000 --detach > url.txt
  URL=$(jq -r .serve.url ready.json)
  SESSION_HEADER=$(jq -r .serve.wraith_session_header ready.json)
  [ "$URL" = "$(cat url.txt)" ] || { echo "run $i: ready file says $URL, serve printed $(cat url.txt)"; exit 1; }
  curl -sSf "$URL/v1/customers/cus_123" -H "$SESSION_HEADER: agent-$i" > /dev/null
  PID=$(jq -r .serve.pid ready.json)
  kill "$PID"
  while kill -0 "$PID" 2>/dev/null; do sleep 0.05; done
  [ ! -e ready.json ] || { echo "run $i: the ready file outlived its server"; exit 1; }
  echo "run $i ok"
done
`
	out, err := shell(t, dir, script, "RUNS="+strconv.Itoa(runs))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if n := strings.Count(out, " ok\n"); n != runs {
		t.Errorf("want %d runs ok, have %d:\n%s", runs, n, out)
	}
}

// TestGuideUpSequence runs the guide's multi-twin sequence as a script:
// its manifest (port 0 instead of 8081, so parallel runs do not collide),
// its token exported, then up; env --format json; down.
func TestGuideUpSequence(t *testing.T) {
	t.Parallel()
	needTools(t, "bash", "jq", "curl")
	dir := t.TempDir()
	script := `
cat > wraith-project.toml <<'TOML'
[[twins]]
name = "billing"
port = 0
fixture = "checkout:happy-path"
clock = "deterministic"
clock_epoch = 1700000000
control_token_env = "WRAITH_CONTROL_TOKEN"
TOML
export WRAITH_CONTROL_TOKEN=guide-token-0123456789
wraith up
wraith env --format json > env.json
URL=$(jq -r .twins.billing.url env.json)
curl -sSf "$URL/v1/customers" -H 'X-Wraith-Session: agent-1' > /dev/null
curl -sSf -X POST "$URL/__wraith/session/agent-1/reset" -H "Authorization: Bearer $WRAITH_CONTROL_TOKEN" > /dev/null
wraith down
wraith env --format json && { echo "env succeeded after down"; exit 1; } || true
echo done
`
	out, err := shell(t, dir, script)
	if err != nil || !strings.HasSuffix(out, "done\n") {
		t.Fatalf("%v\n%s", err, out)
	}
}
