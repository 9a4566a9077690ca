//go:build !linux

package supervisor

// Without /proc, a process is identified by the project's lock and the
// record its holder wrote into the lock file.

func procStart(int) (uint64, error)     { return 0, errNoProc }
func procArgs(int) ([]string, error)    { return nil, errNoProc }
func procExe(int) string                { return "" }
func lockTableOwner(string) (int, bool) { return 0, false }
