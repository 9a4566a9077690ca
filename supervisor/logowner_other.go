//go:build !linux

package supervisor

import "os"

// procStdout cannot be read without /proc.
func procStdout(int) (os.FileInfo, error) { return nil, errNoProc }
