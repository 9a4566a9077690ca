package apierr

import "net/http"

// Code names what went wrong, in kebab case. It is part of the wire
// contract: clients match on it, so a code is never renamed.
type Code string

// Codes of the application path: misses, limits and bad requests that the
// twin answers in Wraith's shape (when the twin has no provider shape for
// them).
const (
	RouteMiss               Code = "route-miss"                // no route matches, or no answer for one
	EntityMiss              Code = "entity-miss"               // an unknown entity and no provider not-found shape
	UnmodelledWrite         Code = "unmodelled-write"          // a write to a template route, under --unknown-entity not_found
	EntityDeleted           Code = "entity-deleted"            // a read after delete without a provider shape
	InvalidParams           Code = "invalid-params"            // parameters the twin cannot read
	TooManyParams           Code = "too-many-params"           // past canon.MaxParams
	ParamsTooDeep           Code = "params-too-deep"           // past canon.MaxDepth
	EntityTooLarge          Code = "entity-too-large"          // an update would grow an entity past --max-body
	UnexpectedState         Code = "unexpected-state"          // an action from a status it does not start from
	IdempotencyConflict     Code = "idempotency-conflict"      // an Idempotency-Key reused with other parameters
	IdempotencyKeyTooLong   Code = "idempotency-key-too-long"  // an Idempotency-Key past session.MaxIdempotencyKey
	RateLimited             Code = "rate-limited"              // the session's rate limit
	ProviderError           Code = "provider-error"            // an injected fault the twin cannot shape
	SessionEntityLimit      Code = "session-entity-limit"      // --max-entities
	SessionIdempotencyLimit Code = "session-idempotency-limit" // --max-entities, for remembered keys
	MemoryLimit             Code = "memory-limit"              // --max-memory
	RequestCanceled         Code = "request-canceled"          // the client went away first
	StateUnavailable        Code = "state-unavailable"         // --state-dir could not keep a write
	SessionLimit            Code = "session-limit"             // --max-sessions
	SessionNotProvisioned   Code = "session-not-provisioned"   // --require-provisioned, a session never provisioned
	InvalidSession          Code = "invalid-session"           // a session name that breaks the rules
	SessionConflict         Code = "session-conflict"          // two sources name two sessions
	BodyTooLarge            Code = "body-too-large"            // past --max-body
	BodyUnreadable          Code = "body-unreadable"           // the body could not be read
	MethodNotAllowed        Code = "method-not-allowed"        // the path is served, not with this method
	Internal                Code = "internal"                  // a bug or a broken state: never the caller's fault
)

// Codes of the control plane (/__wraith/*) and its guard.
const (
	NotReady                 Code = "not-ready"
	ControlNotFound          Code = "control-not-found"
	InvalidPath              Code = "invalid-path"
	ControlForbiddenHost     Code = "control-forbidden-host"
	ControlForbiddenOrigin   Code = "control-forbidden-origin"
	ControlUnauthorized      Code = "control-unauthorized"
	InvalidJSON              Code = "invalid-json"
	InvalidQuery             Code = "invalid-query"
	SessionMismatch          Code = "session-mismatch"
	SessionNotFound          Code = "session-not-found"
	SessionExists            Code = "session-exists"
	SessionProvisionConflict Code = "session-provision-conflict"
	FixtureNotFound          Code = "fixture-not-found"
	FaultProfileNotFound     Code = "fault-profile-not-found"
	InvalidSeed              Code = "invalid-seed"
	InvalidRateLimit         Code = "invalid-rate-limit"
	InvalidPIIVerbatim       Code = "invalid-pii-verbatim"
	InvalidClock             Code = "invalid-clock"
	ClockNotMovable          Code = "clock-not-movable"
	DebugDisabled            Code = "debug-disabled"
	InvalidSnapshot          Code = "invalid-snapshot"
	SnapshotTwinMismatch     Code = "snapshot-twin-mismatch"
	UINotFound               Code = "ui-not-found"
)

// Codes of the recording proxy (wraith record).
const (
	RecordMethodRefused   Code = "record-method-refused"
	BadRequestBody        Code = "bad-request-body"
	RecordForbiddenHost   Code = "record-forbidden-host"
	RecordForbiddenOrigin Code = "record-forbidden-origin"
	RecordUnauthorized    Code = "record-unauthorized"
	RecordFailed          Code = "record-failed"
	UpstreamUnreachable   Code = "upstream-unreachable"
)

// Codes of the egress sandbox (wraith run, wraith proxy).
const (
	EgressRefused Code = "egress-refused" // a host no twin serves, or a path the sandbox keeps from the program
)

// statuses is the one table from a code to its HTTP status.
var statuses = map[Code]int{
	// 501: the twin does not cover this; recording it would.
	RouteMiss:       http.StatusNotImplemented,
	EntityMiss:      http.StatusNotImplemented,
	UnmodelledWrite: http.StatusNotImplemented,

	EntityDeleted:       http.StatusNotFound,
	InvalidParams:       http.StatusBadRequest,
	TooManyParams:       http.StatusBadRequest,
	ParamsTooDeep:       http.StatusBadRequest,
	EntityTooLarge:      http.StatusBadRequest,
	UnexpectedState:     http.StatusBadRequest,
	IdempotencyConflict: http.StatusBadRequest,
	RateLimited:         http.StatusTooManyRequests,
	ProviderError:       http.StatusInternalServerError,

	IdempotencyKeyTooLong: http.StatusBadRequest, // a Stripe-like limit, answered in the provider's shape

	// 507: the request is fine and the twin's capacity ran out. Not 503,
	// because retrying cannot help until sessions are reset or deleted.
	SessionEntityLimit:      http.StatusInsufficientStorage,
	SessionIdempotencyLimit: http.StatusInsufficientStorage,
	MemoryLimit:             http.StatusInsufficientStorage,

	// 503: nobody reads a canceled answer; a session slot may free up.
	RequestCanceled: http.StatusServiceUnavailable,
	// The change is in memory but not on disk; a restart of the twin
	// (once the disk is fixed) serves what was.
	StateUnavailable: http.StatusServiceUnavailable,
	SessionLimit:     http.StatusServiceUnavailable,

	// 409: the request is fine, the session is not in the state it needs
	// (provisioned); provisioning it first resolves it.
	SessionNotProvisioned: http.StatusConflict,

	InvalidSession:   http.StatusBadRequest,
	SessionConflict:  http.StatusBadRequest,
	BodyTooLarge:     http.StatusRequestEntityTooLarge,
	BodyUnreadable:   http.StatusBadRequest,
	MethodNotAllowed: http.StatusMethodNotAllowed,
	Internal:         http.StatusInternalServerError,

	NotReady:                 http.StatusServiceUnavailable,
	ControlNotFound:          http.StatusNotFound,
	InvalidPath:              http.StatusBadRequest,
	ControlForbiddenHost:     http.StatusForbidden,
	ControlForbiddenOrigin:   http.StatusForbidden,
	ControlUnauthorized:      http.StatusUnauthorized,
	InvalidJSON:              http.StatusBadRequest,
	InvalidQuery:             http.StatusBadRequest,
	SessionMismatch:          http.StatusBadRequest,
	SessionNotFound:          http.StatusNotFound,
	SessionExists:            http.StatusConflict,
	SessionProvisionConflict: http.StatusConflict,
	FixtureNotFound:          http.StatusNotFound,
	FaultProfileNotFound:     http.StatusNotFound,
	InvalidSeed:              http.StatusBadRequest,
	InvalidRateLimit:         http.StatusBadRequest,
	InvalidPIIVerbatim:       http.StatusBadRequest,
	InvalidClock:             http.StatusBadRequest,
	ClockNotMovable:          http.StatusConflict,
	DebugDisabled:            http.StatusNotFound,
	InvalidSnapshot:          http.StatusBadRequest,
	SnapshotTwinMismatch:     http.StatusBadRequest,
	UINotFound:               http.StatusNotFound,

	RecordMethodRefused:   http.StatusMethodNotAllowed,
	BadRequestBody:        http.StatusBadRequest,
	RecordForbiddenHost:   http.StatusForbidden,
	RecordForbiddenOrigin: http.StatusForbidden,
	RecordUnauthorized:    http.StatusUnauthorized,
	RecordFailed:          http.StatusBadGateway,
	UpstreamUnreachable:   http.StatusBadGateway,

	EgressRefused: http.StatusForbidden,
}

// Status is the HTTP status of c; a code missing from the table (a bug the
// package's tests catch) is 500.
func (c Code) Status() int {
	if s, ok := statuses[c]; ok {
		return s
	}
	return http.StatusInternalServerError
}
