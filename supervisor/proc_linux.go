package supervisor

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/wraithdev/wraith/internal/procfs"
)

// sysProcAttr puts the child in its own process group (so a terminal's
// Ctrl-C reaches only the supervisor, which stops children in order) and
// has the kernel SIGKILL it when the supervisor dies.
//
// Pdeathsig fires when the thread that forked the child exits, not the
// process. The Go runtime only ends threads whose goroutine locked them and
// returned without unlocking, which nothing in wraith does; and the stdin
// pipe covers the rest.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// procStart is when pid started, in clock ticks since boot: with the pid,
// it names one process for the machine's uptime, so a reused pid does not
// pass for the old one.
func procStart(pid int) (uint64, error) {
	return procfs.StartTime(pid)
}

// procArgs is pid's command line.
func procArgs(pid int) ([]string, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return nil, err
	}
	return strings.Split(strings.TrimRight(string(b), "\x00"), "\x00"), nil
}

// procExe is pid's executable, or "" when it cannot be read.
func procExe(pid int) string {
	p, _ := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe")
	return p
}

// lockTableOwner finds, in the kernel's table of locks, the process that
// holds the flock on path.
func lockTableOwner(path string) (int, bool) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return 0, false
	}
	f, err := os.Open("/proc/locks")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	// 1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF
	// Waiters are marked "->" and hold nothing.
	ino := ":" + strconv.FormatUint(st.Ino, 10)
	dev := devString(uint64(st.Dev))
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 6 || fs[1] != "FLOCK" {
			continue
		}
		if !strings.HasSuffix(fs[5], ino) || !strings.EqualFold(strings.TrimSuffix(fs[5], ino), dev) {
			continue
		}
		pid, err := strconv.Atoi(fs[4])
		if err != nil || pid <= 0 {
			continue
		}
		return pid, true
	}
	return 0, false
}

// devString is a device number as /proc/locks prints it: "%02x:%02x".
func devString(dev uint64) string {
	major := (dev>>8)&0xfff | (dev>>32)&^uint64(0xfff)
	minor := dev&0xff | (dev>>12)&^uint64(0xff)
	return twoHex(major) + ":" + twoHex(minor)
}

func twoHex(n uint64) string {
	s := strconv.FormatUint(n, 16)
	if len(s) < 2 {
		s = "0" + s
	}
	return s
}
