package supervisor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// BinaryName is the child binary's name.
const BinaryName = "wraith-twin"

// BinaryEnv names the variable that may point at the child binary.
const BinaryEnv = "WRAITH_TWIN_BIN"

// FindBinary finds wraith-twin. First hit wins:
//
//  1. beside exe, the running wraith executable (how releases ship them);
//  2. on PATH (lookPath);
//  3. the file named by $WRAITH_TWIN_BIN (getenv).
//
// The error lists every place it looked.
func FindBinary(exe string, lookPath func(string) (string, error), getenv func(string) string) (string, error) {
	var tried []string
	if exe != "" {
		p := filepath.Join(filepath.Dir(exe), BinaryName)
		if isExecutable(p) {
			return p, nil
		}
		tried = append(tried, "beside wraith ("+p+")")
	}
	if p, err := lookPath(BinaryName); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		return p, nil
	}
	tried = append(tried, "on PATH")
	if p := getenv(BinaryEnv); p != "" {
		if isExecutable(p) {
			if abs, err := filepath.Abs(p); err == nil {
				p = abs
			}
			return p, nil
		}
		tried = append(tried, BinaryEnv+"="+p+" (not an executable file)")
	} else {
		tried = append(tried, BinaryEnv+" (unset)")
	}
	return "", fmt.Errorf("cannot find %s: looked %s; install it next to wraith or set %s to its path", BinaryName, strings.Join(tried, ", "), BinaryEnv)
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}
