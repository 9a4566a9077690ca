package procfs

import (
	"os"
	"runtime"
	"strings"
	"testing"
)

// TestSelf reads this test process's own stat: it started (a start time
// above 0), and has used some CPU time by the time it looks.
func TestSelf(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/PID/stat is Linux's")
	}
	pid := os.Getpid()
	f, err := Stat(pid)
	if err != nil {
		t.Fatal(err)
	}
	// The state is the main thread's, which may be asleep while another
	// thread runs this test: any one-letter state will do.
	if len(f[0]) != 1 || !strings.Contains("RSDTtWXZPI", f[0]) {
		t.Errorf("state: want one of the kernel's state letters, have %q", f[0])
	}
	start, err := StartTime(pid)
	if err != nil || start == 0 {
		t.Errorf("StartTime: want a tick count above 0, have %d (%v)", start, err)
	}
	again, _ := StartTime(pid)
	if again != start {
		t.Errorf("StartTime twice: want %d, have %d", start, again)
	}
	for i := 0; ; i++ { // burn CPU until the kernel counts a tick
		n, err := CPUTicks(pid)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			break
		}
		if i > 1e8 {
			t.Fatal("CPUTicks stays 0")
		}
	}
	if _, err := Stat(-1); err == nil {
		t.Error("Stat(-1): want an error")
	}
}
