package server

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"time"

	"github.com/wraithdev/wraith/ipc"
	"github.com/wraithdev/wraith/twin/engine"
	"github.com/wraithdev/wraith/twin/hostguard"
	"github.com/wraithdev/wraith/twin/session"
)

// publish marks the server ready and writes the ready document where asked.
func (s *Server) publish() error {
	s.started = s.deps.Now()
	s.ctl.SetReady(true)
	doc := s.Ready()
	if s.cfg.ReadyJSON != "" {
		b, err := ipc.Marshal(doc)
		if err != nil {
			return err
		}
		if err := ipc.WriteFileAtomic(s.cfg.ReadyJSON, b, 0o644); err != nil {
			return err
		}
		s.wrote = b
	}
	if s.deps.ReadyWriter != nil {
		if err := ipc.Write(s.deps.ReadyWriter, doc); err != nil {
			// Whoever waits for the line would wait in vain: stop now.
			return fmt.Errorf("--ready-fd: %w: the parent closed its end of the descriptor or went away, so nobody can learn that this twin serves; stopping", err)
		}
		if c, ok := s.deps.ReadyWriter.(io.Closer); ok {
			c.Close()
		}
	}
	s.log.Info("serving", "twin", s.twin.Name(), "url", s.URL(), "digest", s.twin.Digest)
	return nil
}

// removeStale removes a ready document an earlier run left at path,
// before anything binds: a script that waits for the file must never read
// a dead server's URL.
func removeStale(path string) error {
	if path == "" {
		return nil
	}
	err := os.Remove(path)
	if err == nil || errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return fmt.Errorf("--ready-json %s: remove the ready document an earlier run left: %w", path, err)
}

// removeReady removes the ready document at exit, unless another process
// has since written its own there.
func (s *Server) removeReady() {
	if s.wrote == nil {
		return
	}
	if b, err := os.ReadFile(s.cfg.ReadyJSON); err != nil || !bytes.Equal(b, s.wrote) {
		return
	}
	if err := os.Remove(s.cfg.ReadyJSON); err != nil {
		s.log.Warn("could not remove the ready document", "path", s.cfg.ReadyJSON, "error", err)
	}
}

// Ready returns the ready document.
func (s *Server) Ready() ipc.Ready {
	auth := "none"
	if s.cfg.ControlTokenEnv != "" {
		auth = "bearer"
	}
	at := ""
	if !s.twin.RecordedAt.IsZero() {
		at = s.twin.RecordedAt.UTC().Format(time.RFC3339)
	}
	return ipc.Ready{
		ReadyVersion:  ipc.Version,
		WraithVersion: s.deps.Version,
		Serve: ipc.Serve{
			Twin:           s.twin.Name(),
			URL:            s.URL(),
			Host:           s.displayHost(),
			Port:           s.Addr().Port,
			PID:            os.Getpid(),
			SessionHeader:  ipc.SessionHeader,
			SessionSources: engine.SessionSources,
			Digest:         s.twin.Digest,
			RecordedAt:     at,
			TwinAgeSeconds: s.eng.TwinAge(s.deps.Now()),
			Settings:       s.settings(),
			ControlAuth:    auth,
			Control:        ipc.ControlPaths(),
		},
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

func (s *Server) settings() ipc.Settings {
	def := s.eng.Defaults()
	set := ipc.Settings{
		Seed:          def.Seed,
		Clock:         def.Clock.Mode,
		ClockStep:     def.Clock.Step.String(),
		UnknownEntity: s.cfg.UnknownEntity,
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
