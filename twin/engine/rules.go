package engine

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/wraithdev/wraith/twin/engine/compiled"
	"github.com/wraithdev/wraith/twin/object"
)

// applyRules runs the first of rules that holds on o.
func (e *Engine) applyRules(rules []compiled.Rule, o *object.Object, now int64) {
	for i := range rules {
		if !rules[i].Holds(o) {
			continue
		}
		for _, a := range rules[i].Set {
			switch {
			case a.Expr == nil:
				o.Set(a.Field, e.scrubbed(a.Field, object.CloneValue(a.Value)))
			case a.Expr.Null:
				o.Set(a.Field, nil)
			case a.Expr.Now && a.RFC3339:
				o.Set(a.Field, time.Unix(now+a.Expr.Offset, 0).UTC().Format(time.RFC3339))
			case a.Expr.Now:
				o.Set(a.Field, json.Number(strconv.FormatInt(now+a.Expr.Offset, 10)))
			case a.Expr.Secret:
				o.Set(a.Field, e.dialect.Secret(o.String("id")))
			default:
				v, _ := o.Get(a.Expr.Field)
				o.Set(a.Field, e.scrubbed(a.Field, object.CloneValue(v)))
			}
		}
		return
	}
}
