package server

import (
	"net/netip"
	"time"

	"github.com/wraithdev/wraith/twin/engine"
	"github.com/wraithdev/wraith/twin/hostguard"
	"github.com/wraithdev/wraith/twin/session"
)

// Publisher tells whoever started the server that it serves, and takes
// that back when it stops. The server decides only when: the mains'
// publisher writes the ready document of package ipc (--ready-json,
// --ready-fd), which the server knows nothing of.
type Publisher interface {
	// Publish is called once, when the serve loop runs and no stop was
	// decided. An error stops the server, and Run returns it.
	Publish(Info) error
	// Withdraw is called once Run has stopped serving, whether or not
	// Publish was called or succeeded.
	Withdraw()
}

// Info is what a serving twin says of itself: everything its ready
// document holds but the facts of the process (pid, versions) and of the
// wire (the control paths), which the publisher adds.
type Info struct {
	Twin string
	URL  string
	// Host is the bound address as the user asked for it (see displayHost).
	Host string
	Port int
	// SessionHeader and SessionSources say how a request names its session.
	SessionHeader  string
	SessionSources []string
	Digest         string
	// RecordedAt is the twin's recording date; zero when it has none.
	RecordedAt     time.Time
	TwinAgeSeconds int64
	Settings       Settings
	// ControlAuth is "bearer" when the control plane takes a token, "none"
	// otherwise.
	ControlAuth string
	// StateDir is --state-dir ("" for none), and Recovered how many
	// sessions it held at start.
	StateDir  string
	Recovered int
}

// Settings are the serve-wide settings a twin runs with, as
// /__wraith/info reports them and the ready document repeats them (its
// ipc.Settings has these fields, in this order, with these tags; the
// conversion the mains make and a golden test keep it so). Pointers are
// settings that may be absent (null).
type Settings struct {
	Fixture       *string `json:"fixture"`
	Seed          uint64  `json:"seed"`
	Clock         string  `json:"clock"`
	ClockEpoch    *int64  `json:"clock_epoch"`
	ClockStep     string  `json:"clock_step"`
	UnknownEntity string  `json:"unknown_entity"`
	Validate      string  `json:"validate"`
	FaultProfile  *string `json:"fault_profile"`
	RateLimit     *string `json:"rate_limit"`
	Debug         bool    `json:"debug"`
	MaxSessions   int     `json:"max_sessions"`
	MaxEntities   int     `json:"max_entities"`
}

// publish marks the server ready and announces it.
func (s *Server) publish() error {
	s.started = s.deps.Now()
	s.ctl.SetReady(true)
	if p := s.deps.Publisher; p != nil {
		if err := p.Publish(s.Info()); err != nil {
			return err
		}
	}
	s.log.Info("serving", "twin", s.twin.Name(), "url", s.URL(), "digest", s.twin.Digest)
	return nil
}

// withdraw takes the announcement back at exit.
func (s *Server) withdraw() {
	if p := s.deps.Publisher; p != nil {
		p.Withdraw()
	}
}

// Info returns what the serving twin says of itself.
func (s *Server) Info() Info {
	auth := "none"
	if s.cfg.ControlTokenEnv != "" {
		auth = "bearer"
	}
	return Info{
		Twin:           s.twin.Name(),
		URL:            s.URL(),
		Host:           s.displayHost(),
		Port:           s.Addr().Port,
		SessionHeader:  engine.SessionHeader,
		SessionSources: engine.SessionSources,
		Digest:         s.twin.Digest,
		RecordedAt:     s.twin.RecordedAt,
		TwinAgeSeconds: s.eng.TwinAge(s.deps.Now()),
		Settings:       s.settings(),
		ControlAuth:    auth,
		StateDir:       s.cfg.StateDir,
		Recovered:      s.Recovered(),
	}
}

// displayHost is the address the twin is bound to, as the ready document
// and the URL give it. Go binds --host 0.0.0.0 as a socket for every
// address, IPv6 ones too, and reports it as "::"; the user asked for
// 0.0.0.0 and reads it back as such. "::" stays "::" ("[::]" in the URL).
func (s *Server) displayHost() string {
	ip := s.Addr().IP
	if !ip.IsUnspecified() {
		return ip.String()
	}
	if asked, err := netip.ParseAddr(hostguard.Unbracket(s.cfg.Host)); err == nil && asked.Unmap().Is4() {
		return netip.IPv4Unspecified().String()
	}
	return netip.IPv6Unspecified().String()
}

func (s *Server) settings() Settings {
	def := s.eng.Defaults()
	set := Settings{
		Seed:          def.Seed,
		Clock:         def.Clock.Mode,
		ClockStep:     def.Clock.Step.String(),
		UnknownEntity: s.cfg.UnknownEntity,
		Validate:      s.cfg.Validation,
		Debug:         s.cfg.Debug,
		MaxSessions:   s.cfg.MaxSessions,
		MaxEntities:   s.cfg.MaxEntities,
	}
	if def.Fixture != "" {
		f := s.cfg.Fixture
		set.Fixture = &f
	}
	if def.Clock.Mode != session.ClockReal {
		e := def.Clock.BaseEpoch
		set.ClockEpoch = &e
	}
	if s.cfg.FaultProfile != "" {
		f := s.cfg.FaultProfile
		set.FaultProfile = &f
	}
	if s.cfg.RateLimit != "" {
		r := s.cfg.RateLimit
		set.RateLimit = &r
	}
	return set
}
