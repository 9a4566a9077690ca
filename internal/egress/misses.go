package egress

import (
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
)

// MissesVersion is the version of the misses log's lines.
const MissesVersion = 1

// How a refused connection arrived.
const (
	ViaConnect = "connect" // a CONNECT to the forward proxy
	ViaProxy   = "proxy"   // an absolute-form request to the forward proxy
	ViaTLS     = "tls"     // a TLS hello for an unmapped name
	ViaHTTP    = "http"    // a plain request for an unmapped Host
	ViaDNS     = "dns"     // a name lookup inside a network namespace
)

// Miss is one refused connection or request: one JSON line of the misses
// log.
type Miss struct {
	Version int       `json:"wraith_egress_version"`
	Time    time.Time `json:"time"`
	Session string    `json:"session,omitempty"`
	Host    string    `json:"host"`
	Port    int       `json:"port,omitempty"`
	Via     string    `json:"via"`
	Reason  string    `json:"reason"`
}

// Misses records refusals: as warnings in the log, and as JSON lines on w
// when it is set (the sandbox's misses file).
type Misses struct {
	mu  sync.Mutex
	w   io.Writer
	log hclog.Logger
	now func() time.Time
}

// NewMisses returns a misses log. w and log may be nil; now nil means
// time.Now.
func NewMisses(w io.Writer, log hclog.Logger, now func() time.Time) *Misses {
	if log == nil {
		log = hclog.NewNullLogger()
	}
	if now == nil {
		now = time.Now
	}
	return &Misses{w: w, log: log, now: now}
}

// Record writes m. A nil *Misses records nothing.
func (ms *Misses) Record(m Miss) {
	if ms == nil {
		return
	}
	m.Version, m.Time = MissesVersion, ms.now().UTC()
	if len(m.Host) > 256 {
		m.Host = m.Host[:256] // a name is at most 253 bytes; the rest is noise
	}
	ms.log.Warn("refused: no twin serves this host, and nothing was dialled", "host", m.Host, "port", m.Port, "session", m.Session, "via", m.Via)
	if ms.w == nil {
		return
	}
	b, err := json.Marshal(m)
	if err != nil {
		return
	}
	ms.mu.Lock()
	defer ms.mu.Unlock()
	ms.w.Write(append(b, '\n'))
}
