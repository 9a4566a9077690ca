// Package manifest reads wraith-project.toml, the file that tells `wraith up`
// which twins to run, into validated structs.
//
// A manifest holds an optional [defaults] table and one [[twins]] table per
// twin instance:
//
//	project = "shop"            # optional; defaults to the folder's name
//
//	[defaults]                  # optional; merged into every [[twins]] entry
//	clock = "deterministic"
//
//	[[twins]]
//	name = "billing"            # instance name, unique; also the env prefix
//	twin = "billing"            # what to serve (default: name)
//	port = 8081                 # 0 or absent: any free port
//
// Decoding is strict: an unknown key, a value of the wrong type or a bad value
// is a [Problem] naming the file, the line and the key, and [Parse] reports
// every problem of the file at once in an [*Error], so a user fixes the whole
// file in one pass and no child is started from a half-valid manifest.
package manifest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// DefaultFile is the manifest's file name when none is given.
const DefaultFile = "wraith-project.toml"

// DefaultHost is the address a twin binds when the manifest names none.
const DefaultHost = "127.0.0.1"

// Project is a validated manifest.
type Project struct {
	// File is the manifest's absolute path.
	File string
	// Dir is the folder holding the manifest: children run there, and the
	// project's state lives in Dir/.wraith.
	Dir string
	// Name is the `project` key, or the base name of Dir.
	Name string
	// Twins are the [[twins]] entries with [defaults] merged in, in file order.
	Twins []Twin
	// Proxy is the [proxy] table; nil when absent.
	Proxy *Proxy
}

// Twin is one twin instance: a wraith-twin child.
type Twin struct {
	Name            string  // instance name, unique in the project
	Twin            string  // what the child serves: twin name, folder or .twin file
	Host            string  // bind address; DefaultHost when absent
	Port            int     // 0: any free port
	Fixture         string  // "": the twin's default
	Seed            *uint64 // nil: the child's default
	Clock           string  // "": the child's default (real)
	ClockEpoch      *int64  // nil: the child's default
	ControlTokenEnv string  // name of the variable holding the control token
	UnknownEntity   string  // "": the child's default (synthesize)
	Validate        string  // "": the child's default (strict)
	FaultProfile    string
	RateLimit       string
	Debug           bool
	// RequireProvisioned: requests to sessions never provisioned get 409
	// (--require-provisioned).
	RequireProvisioned bool
	// StateDir keeps the twin's sessions on disk there (--state-dir),
	// relative to Dir; "" keeps them in memory.
	StateDir string
	// PIIVerbatim are PII-shaped fields served as they are (--pii-verbatim).
	PIIVerbatim []string
	// WebhookAllow are hosts webhooks are posted to beside loopback
	// (--webhook-allow).
	WebhookAllow []string
	// The serve limits; nil: the child's default. JournalLimit,
	// MaxSessions and MaxEntities are counts, MaxBody and MaxMemory bytes.
	JournalLimit, MaxSessions, MaxEntities, MaxBody, MaxMemory *int64

	// Line is the line of the entry's [[twins]] header.
	Line int
}

// Load reads and validates the manifest at path.
func Load(path string) (*Project, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("manifest %s: %w", path, err)
	}
	data, err := os.ReadFile(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &NotFoundError{Path: abs}
	}
	if err != nil {
		return nil, fmt.Errorf("read manifest: %w", err)
	}
	return Parse(abs, data)
}

// NotFoundError is returned by Load when the manifest does not exist.
type NotFoundError struct{ Path string }

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("no %s in %s: create one (see docs/up.md) or pass -f FILE", filepath.Base(e.Path), filepath.Dir(e.Path))
}

// Unwrap lets errors.Is(err, fs.ErrNotExist) hold.
func (e *NotFoundError) Unwrap() error { return fs.ErrNotExist }

// Parse validates data, the content of the manifest at file. file is used for
// messages and to find the project folder; nothing is read from disk.
func Parse(file string, data []byte) (*Project, error) {
	p := &parser{file: file, data: data}
	proj := p.parse()
	if len(p.problems) > 0 {
		return nil, newError(p.problems)
	}
	return proj, nil
}

// EnvPrefix is the prefix of the environment variables that describe a twin
// instance in `wraith env`: WRAITH_ then the name upper-cased, with every
// character that is not a letter or a digit replaced by "_".
func EnvPrefix(name string) string {
	var b strings.Builder
	b.WriteString("WRAITH_")
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z':
			b.WriteRune(r - 'a' + 'A')
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}
