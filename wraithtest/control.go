package wraithtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// Provisioned is the control plane's answer to provisioning or resetting
// a session.
type Provisioned struct {
	Session string  `json:"session"`
	Fixture *string `json:"fixture"`
	Seed    uint64  `json:"seed"`
	Clock   struct {
		Mode      string `json:"mode"`
		BaseEpoch *int64 `json:"base_epoch"`
	} `json:"clock"`
	EntitiesSeeded int `json:"entities_seeded"`
	// Created is true when this call created the session, false when it
	// existed already with the same settings.
	Created bool `json:"-"`
}

// SessionInfo is one session as GET /__wraith/session lists it.
type SessionInfo struct {
	Session     string  `json:"session"`
	Provisioned bool    `json:"provisioned"`
	Fixture     *string `json:"fixture"`
	Seed        uint64  `json:"seed"`
	Clock       struct {
		Mode      string `json:"mode"`
		BaseEpoch *int64 `json:"base_epoch"`
	} `json:"clock"`
	Requests uint64 `json:"requests"`
	Entities int    `json:"entities"`
}

// Error is a control call's structured error:
// {"error":{"code":"...","message":"..."}}.
type Error struct {
	Status  int    `json:"-"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *Error) Error() string {
	return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message)
}

// Provision creates session name with the given Seed, Fixture and Clock
// (the server's settings for those not given), before its first request.
// Provisioning it again alike succeeds; differently, it is an *Error with
// code session-provision-conflict.
func (s *Server) Provision(name string, opts ...Option) (Provisioned, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if o.err != nil {
		return Provisioned{}, o.err
	}
	if o.serveOnly != "" {
		return Provisioned{}, fmt.Errorf("Provision(%q): %s configures the server, not a session; pass it to Start", name, o.serveOnly)
	}
	body := map[string]any{"session": name}
	if o.seed != nil {
		body["seed"] = *o.seed
	}
	if o.fixture != nil {
		body["fixture"] = *o.fixture
	}
	if c := o.clock; c != nil {
		clk := map[string]any{"mode": c.mode}
		if c.mode != "real" {
			clk["base_epoch"] = c.epoch
		}
		body["clock"] = clk
	}
	var p Provisioned
	status, err := s.control(http.MethodPost, "/__wraith/session", body, &p)
	p.Created = status == http.StatusCreated
	return p, err
}

// Reset returns session name to how it was provisioned: its fixture
// reloaded, its id generator reseeded, its clock rewound. An absent
// session is an *Error with code session-not-found.
func (s *Server) Reset(name string) (Provisioned, error) {
	var p Provisioned
	_, err := s.control(http.MethodPost, sessionPath(name, "reset"), nil, &p)
	return p, err
}

// Sessions lists the sessions alive in the server.
func (s *Server) Sessions() ([]SessionInfo, error) {
	var out struct {
		Sessions []SessionInfo `json:"sessions"`
	}
	_, err := s.control(http.MethodGet, "/__wraith/session", nil, &out)
	return out.Sessions, err
}

// control sends one control call and decodes a 2xx answer into out.
func (s *Server) control(method, path string, in, out any) (int, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return 0, err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, s.URL+path, body)
	if err != nil {
		return 0, err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := s.Client().Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return resp.StatusCode, fmt.Errorf("%s %s: reading the answer: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		var e struct {
			Error *Error `json:"error"`
		}
		if json.Unmarshal(b, &e) == nil && e.Error != nil {
			e.Error.Status = resp.StatusCode
			return resp.StatusCode, fmt.Errorf("%s %s: %w", method, path, e.Error)
		}
		return resp.StatusCode, fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, bytes.TrimSpace(b))
	}
	if err := json.Unmarshal(b, out); err != nil {
		return resp.StatusCode, fmt.Errorf("%s %s: decoding the answer: %w", method, path, err)
	}
	return resp.StatusCode, nil
}
