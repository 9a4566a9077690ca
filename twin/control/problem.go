package control

import (
	"context"
	"errors"
	"net/http"

	"github.com/wraithdev/wraith/twin/apierr"
	"github.com/wraithdev/wraith/twin/engine"
	"github.com/wraithdev/wraith/twin/session"
)

// Problem is err as the control plane answers it: the one map from the
// engine's and the session store's domain errors to Wraith error codes.
// An *apierr.Error is itself; an error no code names is internal.
func Problem(err error) *apierr.Error {
	if p := known(err); p != nil {
		return p
	}
	return apierr.New(apierr.Internal, err.Error())
}

// known is Problem for the errors a code names, nil for the others.
func known(err error) *apierr.Error {
	var (
		ae *apierr.Error
		fe *engine.FixtureError
		pe *engine.ProfileError
		ce *engine.ConflictError
		ee *session.ExistsError
	)
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.As(err, &fe):
		return apierr.New(apierr.FixtureNotFound, fe.Error()).With("fixture", fe.Name).With("available", fe.Available)
	case errors.As(err, &pe):
		return apierr.New(apierr.FaultProfileNotFound, pe.Error()).With("fault_profile", pe.Name).With("available", pe.Available)
	case errors.As(err, &ce):
		return &apierr.Error{Code: apierr.SessionProvisionConflict, Message: ce.Error(),
			Details: apierr.Details{"session": ce.Session, "existing": viewOf(ce.Session, ce.Existing), "requested": viewOf(ce.Session, ce.Requested)}}
	case errors.As(err, &ee):
		return apierr.Errorf(apierr.SessionExists,
			"session %q already exists: delete it first (DELETE /__wraith/session/%s) or pick another name", ee.Name, ee.Name).With("session", ee.Name)
	case errors.Is(err, session.ErrNotDurable):
		return apierr.New(apierr.StateUnavailable, err.Error())
	case errors.Is(err, session.ErrLimit):
		return apierr.New(apierr.SessionLimit, err.Error())
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		// Only a fork waits for a session's lock under the request's
		// context (a snapshot waiting its turn names its own).
		return apierr.New(apierr.RequestCanceled, "the request ended before the session to fork was free: "+err.Error())
	}
	return nil
}

// writeError puts err on the wire in Wraith's error shape.
func writeError(w http.ResponseWriter, err error) { apierr.Write(w, Problem(err)) }
