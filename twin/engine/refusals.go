package engine

import (
	"github.com/wraithdev/wraith/twin/apierr"
	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/engine/compiled"
)

// Refusals in the provider's shape, which every phase may answer with.

// refuse answers p in the dialect's words and the twin's invalid-request
// shape.
func (e *Engine) refuse(a *answer, p dialect.Problem) {
	e.invalid(a, p.Param, e.dialect.Word(p))
}

// invalid answers with the provider's invalid-request shape.
func (e *Engine) invalid(a *answer, param, message string) {
	a.prov = ProvHandler
	if e.twin.Errors.Invalid != nil {
		a.shape(e.twin.Errors.Invalid, map[string]string{"param": param, "message": message})
		return
	}
	a.fail(apierr.New(apierr.InvalidParams, message).With("param", param))
}

// paramFailed answers a parameter the setter refused.
func (e *Engine) paramFailed(a *answer, err error) {
	if pe, ok := err.(*paramError); ok {
		e.refuse(a, pe.p)
		return
	}
	e.invalid(a, "", err.Error())
}

// validation answers a create the provider would refuse field by field:
// the twin's errors.validation shape, else its invalid-request shape.
func (e *Engine) validation(a *answer, res *compiled.Resource, field, code string) {
	a.prov = ProvHandler
	if e.twin.Errors.Validation != nil {
		a.shape(e.twin.Errors.Validation, map[string]string{"resource": res.Keys.Class, "param": field, "code": code, "object": res.Name})
		return
	}
	kind := dialect.MissingParam
	if code == "already_exists" {
		kind = dialect.AlreadyExists
	}
	e.refuse(a, dialect.Problem{Kind: kind, Param: field, Object: res.Name})
}

// refuseParam answers a request the twin's request schema refuses: a
// reference to an entity the session lacks in the twin's
// missing_reference shape; a field the schema refuses in its validation
// shape when it has one (a 422 Validation Failed with
// errors[{resource, field, code}], code missing_field or invalid, as
// SPEC §13 has it; a rest twin's description's 4xx), else its
// invalid-request shape, in the dialect's words. class is the resource's
// name in a validation error.
func (e *Engine) refuseParam(a *answer, class string, p dialect.Problem) {
	a.prov = ProvHandler
	msg := e.dialect.Word(p)
	switch {
	case p.Kind == dialect.NoSuchObject && e.twin.Errors.MissingReference != nil:
		a.shape(e.twin.Errors.MissingReference, map[string]string{"param": p.Param, "object": p.Object, "id": p.Value, "message": msg})
	case e.twin.Errors.Validation != nil:
		code := "invalid"
		if p.Kind == dialect.MissingParam {
			code = "missing_field"
		}
		a.shape(e.twin.Errors.Validation, map[string]string{"resource": class, "param": p.Param, "code": code, "message": msg, "object": class})
	default:
		e.invalid(a, p.Param, msg)
	}
}
