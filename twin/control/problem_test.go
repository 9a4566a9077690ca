package control_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/wraithdev/wraith/twin/apierr"
	"github.com/wraithdev/wraith/twin/control"
	"github.com/wraithdev/wraith/twin/engine"
	"github.com/wraithdev/wraith/twin/session"
)

// TestProblem: each domain error of the engine and the session store has
// its code and status in the one map, wrapped or not; anything else is
// internal, and a Wraith error is itself.
func TestProblem(t *testing.T) {
	own := apierr.New(apierr.InvalidSnapshot, "entities[0].body: no")
	for _, tc := range []struct {
		name   string
		err    error
		code   apierr.Code
		status int
	}{
		{"fixture", &engine.FixtureError{Name: "nope", Available: []string{"checkout:baseline"}}, apierr.FixtureNotFound, http.StatusNotFound},
		{"profile", &engine.ProfileError{Name: "nope"}, apierr.FaultProfileNotFound, http.StatusNotFound},
		{"conflict", &engine.ConflictError{Session: "a"}, apierr.SessionProvisionConflict, http.StatusConflict},
		{"exists", &session.ExistsError{Name: "a"}, apierr.SessionExists, http.StatusConflict},
		{"limit", fmt.Errorf("%w: 2 sessions are alive", session.ErrLimit), apierr.SessionLimit, http.StatusServiceUnavailable},
		{"canceled", context.Canceled, apierr.RequestCanceled, http.StatusServiceUnavailable},
		{"wrapped", fmt.Errorf("provision: %w", &engine.FixtureError{Name: "nope"}), apierr.FixtureNotFound, http.StatusNotFound},
		{"own", own, apierr.InvalidSnapshot, http.StatusBadRequest},
		{"other", errors.New("disk on fire"), apierr.Internal, http.StatusInternalServerError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := control.Problem(tc.err)
			if p.Code != tc.code || p.Status() != tc.status {
				t.Errorf("want %s %d, have %s %d", tc.code, tc.status, p.Code, p.Status())
			}
		})
	}
	if have := control.Problem(own); have != own {
		t.Errorf("a Wraith error: want itself, have %v", have)
	}
	if have := control.Problem(&session.ExistsError{Name: "b"}); have.Details["session"] != "b" {
		t.Errorf("session-exists: want the session named, have %v", have.Details)
	}
}
