//go:build linux

package netns

import (
	"bytes"
	"errors"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// helperEnv makes this test binary the helper, as wraith's hidden
// sandbox-helper command is in the real program.
const helperEnv = "WRAITH_NETNS_TEST_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		// os.Args: --hosts FILE --resolv FILE -- CMD...
		a := os.Args[1:]
		if len(a) < 6 || a[0] != "--hosts" || a[2] != "--resolv" || a[4] != "--" {
			os.Stderr.WriteString("netns test helper: bad arguments\n")
			os.Exit(125)
		}
		Helper(a[1], a[3], a[5:], os.Environ())
		os.Exit(125)
	}
	os.Exit(m.Run())
}

// start runs script in a namespace, skipping where the system refuses one
// (failing under CI, which must run these tests).
func start(t *testing.T, script string, stdout *bytes.Buffer) *Sandbox {
	t.Helper()
	sb, err := Start(Config{
		Helper: []string{os.Args[0]},
		Hosts:  []string{"api.stripe.com", "github.com"},
		Argv:   []string{"sh", "-c", script},
		Env:    append(os.Environ(), helperEnv+"=1"),
		Stdout: stdout, Stderr: os.Stderr,
	})
	if errors.Is(err, ErrUnavailable) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true: %v", err)
		}
		t.Skipf("%v: the namespace tests need unprivileged user namespaces (unshare -Urn true)", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return sb
}

func TestNamespaceIsClosed(t *testing.T) {
	var out bytes.Buffer
	sb := start(t, `
		getent hosts api.stripe.com || echo "api.stripe.com: none"
		getent hosts github.com || echo "github.com: none"
		getent hosts example.com || echo "example.com: none"
		tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '
	`, &out)
	go func() {
		// No lookup of example.com may hang: the resolver gets an answer.
		buf := make([]byte, 512)
		for {
			n, addr, err := sb.DNS.ReadFrom(buf)
			if err != nil {
				return
			}
			ans := append([]byte{}, buf[:n]...)
			ans[2], ans[3] = 0x81, 0x83
			sb.DNS.WriteTo(ans, addr)
		}
	}()
	st, err := sb.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if st.ExitCode() != 0 {
		t.Fatalf("the script exited %d:\n%s", st.ExitCode(), out.String())
	}
	lines := strings.Fields(out.String())
	have := strings.Join(lines, " ")
	want := "127.0.0.1 api.stripe.com 127.0.0.1 github.com example.com: none lo"
	if have != want {
		t.Errorf("want %q, have %q", want, have)
	}
}

func TestNamespaceReachesOnlyTheSandbox(t *testing.T) {
	outside, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer outside.Close()
	port := outside.Addr().(*net.TCPAddr).Port
	var out bytes.Buffer
	// The command connects to the sandbox's port 443 and to the port the
	// outside listener holds on the host's loopback.
	sb := start(t, `
		python3 - <<'PY'
import socket
for port in (443, `+strconv.Itoa(port)+`):
    s = socket.socket()
    try:
        s.connect(("127.0.0.1", port))
        print(port, "connected")
    except OSError as e:
        print(port, "refused" if isinstance(e, ConnectionRefusedError) else e)
PY
	`, &out)
	accepted := make(chan struct{})
	go func() {
		c, err := sb.TLS.Accept()
		if err == nil {
			c.Close()
			close(accepted)
		}
	}()
	if _, err := sb.Wait(); err != nil {
		t.Fatal(err)
	}
	want := "443 connected\n" + strconv.Itoa(port) + " refused\n"
	if have := out.String(); have != want {
		t.Errorf("want %q, have %q", want, have)
	}
	<-accepted
	outside.(*net.TCPListener).SetDeadline(time.Now())
	if c, err := outside.Accept(); err == nil {
		c.Close()
		t.Error("the listener outside the namespace received a connection")
	}
}

// The helper run by hand, as root, would remount the machine's own
// /etc/hosts: it must refuse before it mounts anything.
func TestHelperRefusesOutsideItsNamespaces(t *testing.T) {
	hosts := t.TempDir() + "/hosts"
	err := setup(hosts, hosts, os.Stdin, []string{"true"}, nil)
	if err == nil || !strings.Contains(err.Error(), "namespace of its own") {
		t.Fatalf("want a refusal naming the namespace, have %v", err)
	}
}

// A process the command leaves running in the background is ended with
// the run: once the command exits, nothing in its namespace is reachable.
func TestWaitEndsWhatTheCommandLeft(t *testing.T) {
	var out bytes.Buffer
	sb := start(t, `sleep 300 & echo $!`, &out)
	if _, err := sb.Wait(); err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(out.String()))
	if err != nil {
		t.Fatalf("the script printed %q, want the background pid", out.String())
	}
	if state := procState(pid); state != "" && state != "Z" {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the background sleep (pid %d) outlived the run, in state %s", pid, state)
	}
}

// procState is the state letter of pid ("R", "S", "Z", ...), "" when no
// such process exists.
func procState(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	state, _, _ := strings.Cut(rest, " ")
	return state
}
