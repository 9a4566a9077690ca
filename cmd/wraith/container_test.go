package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.yaml.in/yaml/v4"

	"github.com/wraithdev/wraith/internal/testbin"
)

// k8sContainer is what the container test reads of the StatefulSet's
// container: what the kubelet uses to start it and to probe it.
type k8sContainer struct {
	Command []string `yaml:"command"`
	Args    []string `yaml:"args"`
	Env     []struct {
		Name      string `yaml:"name"`
		Value     string `yaml:"value"`
		ValueFrom *struct {
			SecretKeyRef *struct {
				Name string `yaml:"name"`
				Key  string `yaml:"key"`
			} `yaml:"secretKeyRef"`
		} `yaml:"valueFrom"`
	} `yaml:"env"`
	Ports []struct {
		Name          string `yaml:"name"`
		ContainerPort int    `yaml:"containerPort"`
	} `yaml:"ports"`
	VolumeMounts []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
	} `yaml:"volumeMounts"`
	StartupProbe   *k8sProbe `yaml:"startupProbe"`
	ReadinessProbe *k8sProbe `yaml:"readinessProbe"`
	LivenessProbe  *k8sProbe `yaml:"livenessProbe"`
}

type k8sProbe struct {
	HTTPGet *struct {
		Path string `yaml:"path"`
		Port string `yaml:"port"`
	} `yaml:"httpGet"`
}

type k8sStatefulSet struct {
	Kind string `yaml:"kind"`
	Spec struct {
		Template struct {
			Spec struct {
				TerminationGracePeriodSeconds int            `yaml:"terminationGracePeriodSeconds"`
				Containers                    []k8sContainer `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// imageRun is how the image starts a process: the run stage's ENTRYPOINT,
// ENV and WORKDIR.
type imageRun struct {
	entrypoint []string
	env        []string
	workdir    string
}

func readImage(tb testing.TB) imageRun {
	tb.Helper()
	stages := parseDockerfile(tb, filepath.Join("..", "..", "Dockerfile"))
	var img imageRun
	for _, l := range stages[len(stages)-1].lines {
		kw, rest, _ := strings.Cut(l, " ")
		rest = strings.TrimSpace(rest)
		switch strings.ToUpper(kw) {
		case "ENTRYPOINT":
			if err := json.Unmarshal([]byte(rest), &img.entrypoint); err != nil {
				tb.Fatalf("Dockerfile: ENTRYPOINT is not the exec (JSON) form: %s", rest)
			}
		case "ENV":
			for _, kv := range strings.Fields(rest) {
				if !strings.Contains(kv, "=") {
					tb.Fatalf("Dockerfile: ENV %s: want KEY=VALUE", rest)
				}
				img.env = append(img.env, kv)
			}
		case "WORKDIR":
			img.workdir = rest
		}
	}
	if len(img.entrypoint) == 0 {
		tb.Fatal("Dockerfile: the run stage has no ENTRYPOINT")
	}
	return img
}

func readStatefulSet(tb testing.TB) (k8sContainer, time.Duration) {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "deploy", "kubernetes", "statefulset.yaml"))
	if err != nil {
		tb.Fatal(err)
	}
	var sts k8sStatefulSet
	if err := yaml.Unmarshal(b, &sts); err != nil || sts.Kind != "StatefulSet" {
		tb.Fatalf("deploy/kubernetes/statefulset.yaml: want a StatefulSet: %v", err)
	}
	pod := sts.Spec.Template.Spec
	if len(pod.Containers) != 1 {
		tb.Fatalf("deploy/kubernetes/statefulset.yaml: want one container, have %d", len(pod.Containers))
	}
	return pod.Containers[0], time.Duration(pod.TerminationGracePeriodSeconds) * time.Second
}

// containerCommand is the command line the kubelet runs: the image's
// ENTRYPOINT followed by the container's args (which replace the image's
// CMD), since the container sets no command. Only what cannot be the same
// on a test machine is changed, each a whole word: the binary's path (the
// binary the test built), the container port (a free one: tests run side by
// side) and the volumes' mount paths (temporary folders).
func containerCommand(tb testing.TB, img imageRun, c k8sContainer, bin string, port int, mounts map[string]string) []string {
	tb.Helper()
	if len(c.Command) > 0 {
		tb.Fatalf("the container sets command %q, replacing the image's ENTRYPOINT; this test (and docs/fleet.md) expect args only", c.Command)
	}
	argv := append(append([]string{}, img.entrypoint...), c.Args...)
	if filepath.Base(argv[0]) != "wraith" {
		tb.Fatalf("ENTRYPOINT %q: want the wraith binary first", img.entrypoint)
	}
	argv[0] = bin
	if len(c.Ports) == 0 {
		tb.Fatal("the container names no port")
	}
	containerPort := strconv.Itoa(c.Ports[0].ContainerPort)
	replaced := false
	for i, a := range argv {
		switch {
		case a == "--port" && i+1 < len(argv) && argv[i+1] == containerPort:
			argv[i+1], replaced = strconv.Itoa(port), true
		case a == "--port="+containerPort:
			argv[i], replaced = "--port="+strconv.Itoa(port), true
		}
		for from, to := range mounts {
			if strings.Contains(a, from) {
				argv[i] = strings.ReplaceAll(argv[i], from, to)
			}
		}
	}
	if !replaced {
		tb.Fatalf("command line %q: no --port %s, the container's port, to move to a free one", argv, containerPort)
	}
	return argv
}

// TestContainerCommandLine starts the StatefulSet's container as the
// kubelet does, the image's ENTRYPOINT plus the manifest's args with the
// image's and the manifest's environment, and waits for its probes to
// pass; then checks that the flags the manifest sets are in force and
// that SIGTERM stops it within the pod's grace period. A manifest whose
// args repeat `serve`, or name a flag serve does not have, exits 2 here.
func TestContainerCommandLine(t *testing.T) {
	img := readImage(t)
	c, grace := readStatefulSet(t)
	dir := t.TempDir()
	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		mounts[m.MountPath] = filepath.Join(dir, "volume-"+m.Name)
		if err := os.MkdirAll(mounts[m.MountPath], 0o755); err != nil {
			t.Fatal(err)
		}
	}
	port := freePort(t)
	argv := containerCommand(t, img, c, bins.Path(t, "./cmd/wraith"), port, mounts)
	t.Logf("command line: %q", argv)

	const token = "container-test-token"
	env := append([]string{"GORACE=atexit_sleep_ms=0"}, img.env...)
	for _, e := range c.Env {
		switch {
		case e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil:
			env = append(env, e.Name+"="+token)
		case e.ValueFrom != nil:
			t.Fatalf("env %s: valueFrom other than secretKeyRef is not handled by this test", e.Name)
		default:
			env = append(env, e.Name+"="+e.Value)
		}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Dir = filepath.Join(dir, "workdir") // the image's WORKDIR
	if err := os.MkdirAll(cmd.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	stderr := &testbin.Buffer{}
	cmd.Stdout, cmd.Stderr = stderr, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})

	ports := map[string]int{}
	for _, p := range c.Ports {
		ports[p.Name] = port // the only port, moved
	}
	probe := func(name string, p *k8sProbe) string {
		if p == nil || p.HTTPGet == nil {
			t.Fatalf("%s: want an httpGet probe", name)
		}
		n, ok := ports[p.HTTPGet.Port]
		if !ok {
			t.Fatalf("%s: port %q is not one the container names", name, p.HTTPGet.Port)
		}
		return fmt.Sprintf("http://127.0.0.1:%d%s", n, p.HTTPGet.Path)
	}
	ready := probe("readinessProbe", c.ReadinessProbe)
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(ready)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("the container's command exited before its readiness probe passed: %v\n%s", err, stderr)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("readiness probe %s did not pass within 20 s: %v\n%s", ready, err, stderr)
		}
	}
	for name, p := range map[string]*k8sProbe{"startupProbe": c.StartupProbe, "livenessProbe": c.LivenessProbe} {
		resp, err := http.Get(probe(name, p))
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Errorf("%s: want 200, have %v %v", name, resp, err)
		}
		if resp != nil {
			resp.Body.Close()
		}
	}

	// The manifest's flags are in force: provisioning takes the token
	// from the Secret, and, under --require-provisioned, a session never
	// provisioned is a 409 while a provisioned one is served.
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	status, _, body := fleetCall(t, http.MethodPost, base+"/__wraith/session/agent-1", "", "Bearer "+token, `{}`)
	if status != http.StatusCreated {
		t.Fatalf("provision agent-1 with the Secret's token: want 201, have %d %s", status, body)
	}
	if status, _, body := fleetCall(t, http.MethodPost, base+"/v1/customers", "agent-1", "", "description=x"); status != http.StatusOK {
		t.Errorf("a write to provisioned agent-1: want 200, have %d %s", status, body)
	}
	if strings.Contains(strings.Join(argv, " "), "--require-provisioned") {
		status, _, body := fleetCall(t, http.MethodGet, base+"/v1/customers/cus_123", "agent-2", "", "")
		var doc struct {
			Error struct{ Code string } `json:"error"`
		}
		json.Unmarshal(body, &doc)
		if status != http.StatusConflict || doc.Error.Code != "session-not-provisioned" {
			t.Errorf("a read of agent-2, never provisioned: want 409 session-not-provisioned, have %d %s", status, body)
		}
	}

	// The kubelet stops a pod with SIGTERM, then SIGKILL after the grace
	// period.
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		exited <- err
		if err != nil {
			t.Errorf("after SIGTERM: want exit 0, have %v\n%s", err, stderr)
		}
	case <-time.After(grace):
		t.Errorf("still running %s (terminationGracePeriodSeconds) after SIGTERM: the kubelet would SIGKILL it\n%s", grace, stderr)
	}
}
