// Package netns runs a command in a network namespace of its own whose
// only reachable endpoints are the sandbox's listeners (Linux).
//
// The parent starts its own executable again (the helper) in new user,
// network and mount namespaces. The helper, root of its user namespace
// and of nothing else, then:
//
//  1. makes its mounts private and bind-mounts a hosts file over
//     /etc/hosts, in which the sandbox's hosts resolve to 127.0.0.1 (and
//     localhost to itself), and a resolv.conf naming 127.0.0.1, where no
//     resolver listens, so every other name fails to resolve at once;
//  2. brings up the namespace's loopback interface, its only one, and
//     listens on 127.0.0.1:443 and 127.0.0.1:80 (TCP) and 127.0.0.1:53
//     (UDP, where the parent answers every lookup NXDOMAIN and records
//     the name);
//  3. sends the three sockets to the parent over descriptor 3 (a
//     Unix socket pair) with the line "ok", or a line "error: ..." and
//     exits 125 if a step failed;
//  4. executes the command in its place, so the command's pid, exit
//     status and signals are the helper's.
//
// The parent accepts on the sockets it received, in its own namespace,
// where the twins are. Nothing else in the command's namespace listens
// and no interface leads out: a connection to any other address is
// refused (loopback) or unreachable (every other address) at once.
package netns

import (
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
)

// ErrUnavailable wraps the reason namespaces cannot be made here (not
// Linux, user namespaces disabled, no privilege).
var ErrUnavailable = errors.New("network namespaces are unavailable")

// HelperFD is the descriptor on which the helper reports to the parent.
const HelperFD = 3

// Config is what Start needs.
type Config struct {
	// Helper is the command line that runs [Helper] in the new
	// namespaces: the executable and the arguments that select it. The
	// parent adds --hosts FILE --resolv FILE -- and the command.
	Helper []string
	// Hosts resolve to 127.0.0.1 in the namespace.
	Hosts []string
	// Argv is the command and its arguments.
	Argv []string
	// Env, Dir, Stdin, Stdout and Stderr are the command's.
	Env            []string
	Dir            string
	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

// Sandbox is a started command in its namespace.
type Sandbox struct {
	// TLS and HTTP accept the command's connections to port 443 and 80 of
	// its 127.0.0.1.
	TLS, HTTP net.Listener
	// DNS receives the command's name lookups, which only names outside
	// the hosts file make.
	DNS net.PacketConn
	// Process is the command (the helper became it).
	Process *os.Process

	done  chan struct{}
	state *os.ProcessState
	err   error
	tmp   string
	// ended is closed once what the command left running in its
	// namespace is killed; nil without a namespace.
	ended chan struct{}
}

// Wait waits for the command to exit and releases what Start made. In a
// namespace, what the command left running there (a child in the
// background) is killed: nothing outside can reach it once the sandbox's
// listeners close, so the run ends when the command does, as a
// container's does with its first process.
func (s *Sandbox) Wait() (*os.ProcessState, error) {
	<-s.done
	if s.ended != nil {
		<-s.ended
	}
	if s.TLS != nil {
		s.TLS.Close()
		s.HTTP.Close()
		s.DNS.Close()
	}
	if s.tmp != "" {
		os.RemoveAll(s.tmp)
	}
	return s.state, s.err
}

// Signal sends sig to the command.
func (s *Sandbox) Signal(sig os.Signal) error { return s.Process.Signal(sig) }

// StartPlain runs cfg.Argv without namespaces (cfg.Helper and cfg.Hosts
// are not used), dying with this process where the system allows: the
// proxy-variable fallback.
func StartPlain(cfg Config) (*Sandbox, error) {
	if len(cfg.Argv) == 0 {
		return nil, errors.New("netns: no command")
	}
	path, err := exec.LookPath(cfg.Argv[0])
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path, cfg.Argv[1:]...)
	cmd.Args[0] = cfg.Argv[0]
	cmd.Env, cmd.Dir = cfg.Env, cfg.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = cfg.Stdin, cfg.Stdout, cfg.Stderr
	cmd.SysProcAttr = plainAttr()
	s := &Sandbox{done: make(chan struct{})}
	if err := spawn(cmd, s); err != nil {
		return nil, err
	}
	return s, nil
}

// spawn starts cmd and waits for it in a goroutine that holds its OS
// thread: Pdeathsig fires when the thread that started the child ends, not
// the process, so the thread stays until the child is gone.
func spawn(cmd *exec.Cmd, s *Sandbox) error {
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := cmd.Start(); err != nil {
			runtime.UnlockOSThread()
			started <- err
			return
		}
		started <- nil
		err := cmd.Wait()
		// Unlocked, not ended with the goroutine: a locked thread that
		// ends takes down with it (Pdeathsig) any child another part of
		// this process started from it, such as a twin.
		runtime.UnlockOSThread()
		s.state = cmd.ProcessState
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			s.err = err
		}
		close(s.done)
	}()
	if err := <-started; err != nil {
		return err
	}
	s.Process = cmd.Process
	return nil
}
