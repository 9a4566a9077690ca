//go:build linux

package netns

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// handshakeTimeout bounds the helper's setup: a few mounts and two binds.
const handshakeTimeout = 15 * time.Second

// Start runs cfg.Argv in its own namespaces. An error wrapping
// ErrUnavailable means the system refused the namespaces and nothing ran;
// the caller may fall back to weaker confinement.
func Start(cfg Config) (*Sandbox, error) {
	if len(cfg.Helper) == 0 || len(cfg.Argv) == 0 {
		return nil, errors.New("netns: no helper or no command")
	}
	tmp, err := os.MkdirTemp("", "wraith-netns-")
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*Sandbox, error) {
		os.RemoveAll(tmp)
		return nil, err
	}
	var hosts strings.Builder
	hosts.WriteString("# written by wraith run: only the sandbox's hosts resolve\n127.0.0.1\tlocalhost\n::1\tlocalhost\n")
	for _, h := range cfg.Hosts {
		hosts.WriteString("127.0.0.1\t" + h + "\n")
	}
	hostsFile, resolvFile := filepath.Join(tmp, "hosts"), filepath.Join(tmp, "resolv.conf")
	if err := os.WriteFile(hostsFile, []byte(hosts.String()), 0o644); err != nil {
		return fail(err)
	}
	if err := os.WriteFile(resolvFile, []byte("# written by wraith run: the sandbox answers every lookup NXDOMAIN\nnameserver 127.0.0.1\noptions attempts:1\n"), 0o644); err != nil {
		return fail(err)
	}
	args := append([]string{}, cfg.Helper[1:]...)
	args = append(args, "--hosts", hostsFile, "--resolv", resolvFile, "--")
	args = append(args, cfg.Argv...)
	// A helper that dies without a word did so before it reported, so
	// before the command ran (it runs only after "ok"): starting it again
	// repeats nothing the user asked for. Seen once in CI, under load; a
	// second death in a row is reported with the helper's exit status.
	var s *Sandbox
	for attempt := 1; ; attempt++ {
		s, err = startHelper(cfg, args, tmp)
		if !errors.Is(err, errSilent) || attempt == helperAttempts {
			break
		}
	}
	if err != nil {
		return fail(err)
	}
	return s, nil
}

// helperAttempts bounds how often Start starts a helper that died silently.
const helperAttempts = 2

// errSilent is a helper's death before it reported.
var errSilent = errors.New("netns: the helper exited before it was set up")

// startHelper starts one helper with args and waits for its report.
func startHelper(cfg Config, args []string, tmp string) (*Sandbox, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("netns: socket pair: %w", err)
	}
	parentEnd, childEnd := os.NewFile(uintptr(fds[0]), "netns-parent"), os.NewFile(uintptr(fds[1]), "netns-helper")
	defer parentEnd.Close()

	cmd := exec.Command(cfg.Helper[0], args...)
	cmd.Env, cmd.Dir = cfg.Env, cfg.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = cfg.Stdin, cfg.Stdout, cfg.Stderr
	cmd.ExtraFiles = []*os.File{childEnd}
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET | syscall.CLONE_NEWNS,
		// Root of its own user namespace only: the one id mapped is the
		// caller's, so the command can do nothing outside that the caller
		// could not.
		UidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
		GidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
		GidMappingsEnableSetgroups: false,
		// The command dies with wraith run, even by SIGKILL.
		Pdeathsig: syscall.SIGKILL,
	}
	s := &Sandbox{done: make(chan struct{}), tmp: tmp}
	err = spawn(cmd, s)
	childEnd.Close()
	if err != nil {
		if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EUSERS) {
			return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
		}
		return nil, fmt.Errorf("netns: start %s: %w", cfg.Helper[0], err)
	}
	files, err := receive(parentEnd)
	if err == nil {
		err = s.adopt(files)
	}
	if err == nil {
		// Read while the helper cannot have exited: it execs the command
		// only once it has our answer to its sockets.
		if ns, lerr := os.Readlink(fmt.Sprintf("/proc/%d/ns/net", cmd.Process.Pid)); lerr == nil {
			s.ended = make(chan struct{})
			go s.endWithCommand(cmd.Process.Pid, ns)
		}
	}
	if err != nil {
		cmd.Process.Kill()
		<-s.done
		if errors.Is(err, errSilent) && s.state != nil {
			err = fmt.Errorf("%w (%s)", err, s.state)
		}
		return nil, err
	}
	return s, nil
}

// adopt turns the helper's three sockets into the sandbox's listeners.
func (s *Sandbox) adopt(files []*os.File) error {
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	var err error
	if s.TLS, err = net.FileListener(files[0]); err != nil {
		return fmt.Errorf("netns: the helper's socket: %w", err)
	}
	if s.HTTP, err = net.FileListener(files[1]); err != nil {
		s.TLS.Close()
		return fmt.Errorf("netns: the helper's socket: %w", err)
	}
	if s.DNS, err = net.FilePacketConn(files[2]); err != nil {
		s.TLS.Close()
		s.HTTP.Close()
		return fmt.Errorf("netns: the helper's socket: %w", err)
	}
	return nil
}

// helperSockets is how many sockets the helper sends: TLS, HTTP, DNS.
const helperSockets = 3

// receive reads the helper's report: "ok" with the sockets, or an error.
func receive(f *os.File) ([]*os.File, error) {
	type result struct {
		msg []byte
		fds []int
		err error
	}
	ch := make(chan result, 1)
	go func() {
		buf, oob := make([]byte, 4096), make([]byte, syscall.CmsgSpace(helperSockets*4))
		n, oobn, _, _, err := syscall.Recvmsg(int(f.Fd()), buf, oob, 0)
		if err != nil {
			ch <- result{err: err}
			return
		}
		var fds []int
		if msgs, err := syscall.ParseSocketControlMessage(oob[:oobn]); err == nil {
			for _, m := range msgs {
				if r, err := syscall.ParseUnixRights(&m); err == nil {
					fds = append(fds, r...)
				}
			}
		}
		ch <- result{msg: buf[:n], fds: fds}
	}()
	var r result
	select {
	case r = <-ch:
	case <-time.After(handshakeTimeout):
		return nil, fmt.Errorf("netns: the helper did not report within %s", handshakeTimeout)
	}
	if r.err != nil {
		return nil, fmt.Errorf("netns: read the helper's report: %w", r.err)
	}
	msg := string(bytes.TrimSpace(r.msg))
	if msg != "ok" || len(r.fds) != helperSockets {
		for _, fd := range r.fds {
			syscall.Close(fd)
		}
		if msg == "" {
			// The helper exited without a word: its stderr said why,
			// if it could say anything.
			return nil, errSilent
		}
		return nil, fmt.Errorf("netns: %s", strings.TrimPrefix(msg, "error: "))
	}
	files := make([]*os.File, len(r.fds))
	for i, fd := range r.fds {
		files[i] = os.NewFile(uintptr(fd), "sandbox-socket")
	}
	return files, nil
}

// Helper is the helper's side: it sets up the namespace as the package
// doc says and executes argv in its place. It returns only on failure,
// having reported the failure to the parent.
func Helper(hostsFile, resolvFile string, argv, env []string) error {
	report := os.NewFile(HelperFD, "netns-report")
	err := setup(hostsFile, resolvFile, report, argv, env)
	if err != nil {
		if serr := syscall.Sendmsg(HelperFD, []byte("error: "+err.Error()), nil, nil, 0); serr != nil {
			// Nobody to report to (run by hand): say it here.
			fmt.Fprintf(os.Stderr, "wraith sandbox-helper: %v\n", err)
		}
	}
	return err
}

func setup(hostsFile, resolvFile string, report *os.File, argv, env []string) error {
	if report == nil {
		return errors.New("no report descriptor: the helper is started by wraith run, not by hand")
	}
	syscall.CloseOnExec(HelperFD)
	// Run by hand as root, the steps below would remount the machine's own
	// /etc/hosts: go on only in namespaces other than the parent's, which
	// wraith run made for the helper. (From inside them the parent's
	// namespaces cannot be read at all: that is a sign of them too.)
	parent := fmt.Sprintf("/proc/%d/ns/", os.Getppid())
	for _, ns := range []string{"user", "mnt", "net"} {
		self, err := os.Readlink("/proc/self/ns/" + ns)
		if err != nil {
			return fmt.Errorf("read the helper's %s namespace: %w", ns, err)
		}
		if theirs, err := os.Readlink(parent + ns); err == nil && self == theirs {
			return fmt.Errorf("not in a %s namespace of its own: the helper is started by wraith run, not by hand", ns)
		}
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(HelperFD, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFSOCK {
		return errors.New("descriptor 3 is not wraith run's socket: the helper is started by wraith run, not by hand")
	}
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	if err := syscall.Mount(hostsFile, "/etc/hosts", "", syscall.MS_BIND, ""); err != nil {
		return fmt.Errorf("bind-mount the sandbox's hosts file over /etc/hosts: %w", err)
	}
	if _, err := os.Stat("/etc/resolv.conf"); err == nil {
		if err := syscall.Mount(resolvFile, "/etc/resolv.conf", "", syscall.MS_BIND, ""); err != nil {
			return fmt.Errorf("bind-mount the sandbox's resolv.conf: %w", err)
		}
	}
	if err := loopbackUp(); err != nil {
		return fmt.Errorf("bring up the loopback interface: %w", err)
	}
	var fds []int
	for _, port := range []string{"443", "80"} {
		l, err := net.Listen("tcp", "127.0.0.1:"+port)
		if err != nil {
			return fmt.Errorf("listen on 127.0.0.1:%s in the namespace: %w", port, err)
		}
		f, err := l.(*net.TCPListener).File()
		if err != nil {
			return err
		}
		fds = append(fds, int(f.Fd()))
	}
	pc, err := net.ListenPacket("udp", "127.0.0.1:53")
	if err != nil {
		return fmt.Errorf("listen on 127.0.0.1:53 (udp) in the namespace: %w", err)
	}
	f, err := pc.(*net.UDPConn).File()
	if err != nil {
		return err
	}
	fds = append(fds, int(f.Fd()))
	path, err := lookPath(argv[0], env)
	if err != nil {
		return err
	}
	if err := syscall.Sendmsg(HelperFD, []byte("ok"), syscall.UnixRights(fds...), nil, 0); err != nil {
		return fmt.Errorf("report to wraith run: %w", err)
	}
	// The parent-death signal wraith run set when it started the helper is
	// found cleared here (the command saw PR_GET_PDEATHSIG 0 and outlived a
	// SIGKILLed wraith run; the kernel clears it on a change of
	// credentials, such as entering a user namespace): set it again, then
	// make sure wraith run did not die meanwhile.
	ppid := os.Getppid()
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL), 0); e != 0 {
		return fmt.Errorf("set the parent-death signal: %w", e)
	}
	if os.Getppid() != ppid || ppid == 0 {
		return errors.New("wraith run exited before the command started")
	}
	return syscall.Exec(path, argv, env)
}

// lookPath finds argv[0] on the command's own PATH.
func lookPath(name string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: not found on PATH (%s)", name, path)
}

// endWithCommand waits for the command to exit, without reaping it
// (spawn's Wait does), and kills what it left in its namespace ns: a
// child in the background holding the command's output open would
// otherwise keep Wait from returning, and outlive the run unreachable.
func (s *Sandbox) endWithCommand(pid int, ns string) {
	defer close(s.ended)
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			break // exited, or reaped already (ECHILD): either way it is gone
		}
	}
	endNamespace(ns)
}

// endNamespace kills every process left in the network namespace ns,
// round after round until a scan of /proc finds none (a process may fork
// while the previous round kills), for at most endWithin.
func endNamespace(ns string) {
	deadline := time.Now().Add(endWithin)
	for time.Now().Before(deadline) {
		dir, err := os.ReadDir("/proc")
		if err != nil {
			return
		}
		found := 0
		for _, d := range dir {
			pid, err := strconv.Atoi(d.Name())
			if err != nil || pid == os.Getpid() {
				continue
			}
			if link, err := os.Readlink("/proc/" + d.Name() + "/ns/net"); err == nil && link == ns {
				syscall.Kill(pid, syscall.SIGKILL)
				found++
			}
		}
		if found == 0 {
			return
		}
		time.Sleep(endPause) // the killed exit: their links go with them
	}
}

const (
	endWithin = 2 * time.Second
	endPause  = 5 * time.Millisecond
)

func plainAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// loopbackUp sets IFF_UP on lo, as `ip link set lo up` does.
func loopbackUp() error {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	var req struct {
		name  [syscall.IFNAMSIZ]byte
		flags uint16
		_     [24 - 2]byte
	}
	copy(req.name[:], "lo")
	if err := ioctl(fd, syscall.SIOCGIFFLAGS, unsafe.Pointer(&req)); err != nil {
		return err
	}
	req.flags |= syscall.IFF_UP
	return ioctl(fd, syscall.SIOCSIFFLAGS, unsafe.Pointer(&req))
}

func ioctl(fd int, op uintptr, arg unsafe.Pointer) error {
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), op, uintptr(arg)); e != 0 {
		return e
	}
	return nil
}
