package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// dockerStage is one FROM ... stage of the Dockerfile.
type dockerStage struct {
	from, name string
	lines      []string // instructions after FROM, continuations joined
}

func parseDockerfile(tb testing.TB, path string) []dockerStage {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var stages []dockerStage
	var cur string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if cur == "" && (line == "" || strings.HasPrefix(line, "#")) {
			continue
		}
		if strings.HasSuffix(line, "\\") {
			cur += strings.TrimSuffix(line, "\\") + " "
			continue
		}
		cur += line
		fields := strings.Fields(cur)
		if strings.EqualFold(fields[0], "FROM") {
			st := dockerStage{from: fields[1]}
			if len(fields) == 4 && strings.EqualFold(fields[2], "AS") {
				st.name = fields[3]
			}
			stages = append(stages, st)
		} else if len(stages) > 0 {
			stages[len(stages)-1].lines = append(stages[len(stages)-1].lines, cur)
		} else {
			tb.Fatalf("%s: instruction before the first FROM: %s", path, cur)
		}
		cur = ""
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return stages
}

// TestDockerfile checks what docs/docker.md promises of the image, since no
// Docker daemon runs where the tests do: a multi-stage build of a static
// binary, a run stage without the toolchain, a non-root user, and serve on
// all interfaces only with a control token.
func TestDockerfile(t *testing.T) {
	t.Parallel()
	stages := parseDockerfile(t, filepath.Join("..", "..", "Dockerfile"))
	if len(stages) < 2 {
		t.Fatalf("want a multi-stage build, have %d stage(s)", len(stages))
	}
	build, final := stages[0], stages[len(stages)-1]
	var built bool
	for _, l := range build.lines {
		if strings.HasPrefix(l, "RUN ") && strings.Contains(l, "go build") {
			built = true
			if !strings.Contains(l, "CGO_ENABLED=0") {
				t.Errorf("the go build is not static (no CGO_ENABLED=0): %s", l)
			}
			for _, pkg := range []string{"./cmd/wraith", "./cmd/wraith-twin"} {
				if !strings.Contains(l, pkg) {
					t.Errorf("the image does not build %s: %s", pkg, l)
				}
			}
		}
	}
	if !built {
		t.Errorf("the first stage (%s) runs no go build", build.from)
	}
	goVersion := regexp.MustCompile(`^golang:(\d+\.\d+)`).FindStringSubmatch(build.from)
	mod, err := os.ReadFile(filepath.Join("..", "..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	modGo := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(mod)
	if goVersion == nil || modGo == nil || goVersion[1] != string(modGo[1]) {
		t.Errorf("build stage %s: want the golang image of go.mod's Go (%s)", build.from, modGo)
	}
	if strings.HasPrefix(final.from, "golang") {
		t.Errorf("the run stage ships the Go toolchain (%s)", final.from)
	}

	var user string
	var entry []string
	var copied bool
	for _, l := range final.lines {
		kw, rest, _ := strings.Cut(l, " ")
		switch strings.ToUpper(kw) {
		case "USER":
			user = strings.TrimSpace(rest)
		case "ENTRYPOINT":
			if err := json.Unmarshal([]byte(rest), &entry); err != nil {
				t.Errorf("ENTRYPOINT is not the exec (JSON) form, so signals would not reach wraith: %s", rest)
			}
		case "COPY":
			copied = copied || strings.Contains(rest, "--from="+build.name)
		}
	}
	if !copied {
		t.Errorf("the run stage copies nothing from the %q stage", build.name)
	}
	if uid, _, _ := strings.Cut(user, ":"); uid == "" || uid == "0" || uid == "root" {
		t.Errorf("the image runs as root (USER %q); want a non-root user", user)
	}
	joined := " " + strings.Join(entry, " ") + " "
	for _, want := range []string{"wraith serve ", " --host 0.0.0.0 ", " --control-token-env WRAITH_CONTROL_TOKEN "} {
		if !strings.Contains(strings.Replace(joined, "/usr/local/bin/wraith", "wraith", 1), want) {
			t.Errorf("ENTRYPOINT %q lacks %q", entry, strings.TrimSpace(want))
		}
	}
}

// TestDockerBuild builds and runs the image where a Docker daemon answers,
// as CI does; elsewhere it says why it skips.
func TestDockerBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an image")
	}
	if _, err := exec.LookPath("docker"); err != nil {
		t.Skip("no docker client on PATH: the image is built only where a Docker daemon runs (docs/docker.md)")
	}
	if err := exec.Command("docker", "info").Run(); err != nil {
		t.Skipf("no Docker daemon answers (docker info: %v): the image is built only where one runs (docs/docker.md)", err)
	}
	tag := "wraith-test:" + strings.ToLower(t.Name())
	build := exec.Command("docker", "build", "-t", tag, "../..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("docker build: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command("docker", "rmi", "-f", tag).Run() })
	out, err := exec.Command("docker", "run", "--rm", "--entrypoint", "/usr/local/bin/wraith", tag, "version", "--format", "json").Output()
	if err != nil {
		t.Fatalf("docker run wraith version: %v\n%s", err, out)
	}
	// Without a token the image refuses to listen beyond loopback: exit 2.
	err = exec.Command("docker", "run", "--rm", tag).Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitUsage {
		t.Errorf("docker run without WRAITH_CONTROL_TOKEN: want exit %d, have %v", exitUsage, err)
	}
}
