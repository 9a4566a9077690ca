//go:build !linux

package netns

import (
	"fmt"
	"runtime"
	"syscall"
)

// Start always fails here: only Linux has the namespaces.
func Start(cfg Config) (*Sandbox, error) {
	return nil, fmt.Errorf("%w: not Linux (%s)", ErrUnavailable, runtime.GOOS)
}

func plainAttr() *syscall.SysProcAttr { return nil }

// Helper is never run here.
func Helper(hostsFile, resolvFile string, argv, env []string) error {
	return fmt.Errorf("%w: not Linux (%s)", ErrUnavailable, runtime.GOOS)
}
