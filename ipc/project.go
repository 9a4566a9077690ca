package ipc

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// Project is the ready document of a whole project: the one line a
// background `wraith up` writes on its --ready-fd once every twin is
// ready, so that the `wraith up` that started it can return. It carries
// the same version field, and follows the same rules, as [Ready].
type Project struct {
	ReadyVersion  int              `json:"wraith_ready_version"`
	WraithVersion string           `json:"wraith_version"`
	Project       string           `json:"project"`
	SupervisorPID int              `json:"supervisor_pid"`
	Twins         map[string]Serve `json:"twins"`
}

// WriteProject writes p as one line to w.
func WriteProject(w io.Writer, p Project) error {
	if p.ReadyVersion == 0 {
		p.ReadyVersion = Version
	}
	b, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("encode project ready document: %w", err)
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("write project ready document: %w", err)
	}
	return nil
}

// ReadProjectLine reads one project ready line from r within timeout, as
// [ReadLine] reads a twin's.
func ReadProjectLine(r io.Reader, timeout time.Duration) (Project, error) {
	return withTimeout(func() (Project, error) { return ReadProject(r) }, timeout)
}

// ReadProject reads one project ready line from r, blocking until it
// arrives or r closes, as [ReadReady] reads a twin's.
func ReadProject(r io.Reader) (Project, error) {
	line, err := readLine(r)
	if err != nil {
		return Project{}, err
	}
	var p Project
	if err := json.Unmarshal(line, &p); err != nil {
		return Project{}, fmt.Errorf("project ready document is not valid JSON: %w", err)
	}
	if p.ReadyVersion != Version {
		return Project{}, fmt.Errorf("project ready document has version %d, this build reads version %d: use the same wraith build for both", p.ReadyVersion, Version)
	}
	if p.SupervisorPID <= 0 || len(p.Twins) == 0 {
		return Project{}, errors.New("project ready document names no supervisor or no twins")
	}
	return p, nil
}
