// Package apierr is Wraith's own error: the answer a twin gives when the
// fault is Wraith's business rather than the provider's (a route it does not
// know, a session limit, a bad control call, a refused recording).
//
// On the wire every such answer has one shape (SPEC §4):
//
//	{"error":{"code":"kebab-code","message":"...", ...details}}
//
// The details are extra fields of "error", written in key order so the
// bytes never depend on map iteration. A call site names a Code; the code
// decides the HTTP status (see the table in codes.go), and Write puts the
// error on the wire. Provider-shaped errors (a twin's [errors.*] bodies) are
// not Wraith errors and do not pass through here.
//
// Strings are written as the twin writes its answers (package object):
// <, > and & are left alone, as providers' encoders do.
package apierr

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"

	"github.com/wraithdev/wraith/twin/object"
)

// Error is one Wraith error.
type Error struct {
	Code    Code
	Message string
	// Details are extra fields of the error object, written in key order
	// after code and message. Values are strings, numbers, bools, nil,
	// []any, map[string]any (written in key order too) or anything
	// encoding/json can marshal.
	Details Details
}

// Details are an error's extra fields.
type Details map[string]any

// New returns an error with code and message.
func New(code Code, message string) *Error {
	return &Error{Code: code, Message: message}
}

// Errorf returns an error with code and a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// With adds the detail key: value and returns e.
func (e *Error) With(key string, value any) *Error {
	if e.Details == nil {
		e.Details = Details{}
	}
	e.Details[key] = value
	return e
}

// Error returns the code and the message.
func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// Status is the HTTP status of e's code.
func (e *Error) Status() int { return e.Code.Status() }

// Body returns e in Wraith's error shape.
func (e *Error) Body() []byte { return e.AppendJSON(nil) }

// AppendJSON appends e in Wraith's error shape to buf.
func (e *Error) AppendJSON(buf []byte) []byte {
	o := object.New(2 + len(e.Details))
	o.Set("code", string(e.Code))
	o.Set("message", e.Message)
	for _, k := range slices.Sorted(maps.Keys(e.Details)) {
		o.Set(k, value(e.Details[k]))
	}
	root := object.New(1)
	root.Set("error", o)
	return root.AppendJSON(buf)
}

// value turns a detail into package object's value set: maps become
// objects in key order, floats are written without an exponent.
func value(v any) any {
	switch t := v.(type) {
	case map[string]any:
		o := object.New(len(t))
		for _, k := range slices.Sorted(maps.Keys(t)) {
			o.Set(k, value(t[k]))
		}
		return o
	case Details:
		return value(map[string]any(t))
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = value(e)
		}
		return out
	case float64:
		return json.Number(strconv.FormatFloat(t, 'f', -1, 64))
	}
	return v
}

var jsonType = []string{"application/json"}

// countedBody is the size below which net/http counts a body itself and
// sends its Content-Length; past it, Write sets Content-Length so the
// answer is not chunked. Below it Write sets none, so the header comes
// where net/http puts it, as it always has.
const countedBody = 2048

// Write answers w with e: its code's status, Content-Type
// application/json and e's body. Headers the answer needs beside these
// (Allow, WWW-Authenticate, Retry-After) are set on w before calling it.
func Write(w http.ResponseWriter, e *Error) {
	body := e.Body()
	h := w.Header()
	h["Content-Type"] = jsonType
	if len(body) >= countedBody {
		h["Content-Length"] = []string{strconv.Itoa(len(body))}
	}
	w.WriteHeader(e.Status())
	w.Write(body)
}
