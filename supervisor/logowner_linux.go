package supervisor

import (
	"os"
	"strconv"
)

// procStdout is the file pid's standard output is, through /proc (readable
// for the user's own processes).
func procStdout(pid int) (os.FileInfo, error) {
	return os.Stat("/proc/" + strconv.Itoa(pid) + "/fd/1")
}
