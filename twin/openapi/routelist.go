package openapi

import (
	"encoding/json"
	"net/http"
	"slices"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wraithdev/wraith/twin/format"
)

// markList names, in rt.ListKey, the member of a GET template that holds
// a page of a collection listed in an object of its own ({"total_count":
// 1, "workflow_runs": [...]}), so that under the not_found policy the
// route answers it empty rather than its sample entries (SPEC §13). The
// answer's schema decides: an object whose one array member (listKey)
// holds objects, and whose other members are counts and page metadata
// (numbers, objects), never a string or a boolean, which are the fields
// of one entity (a runner's name beside its labels). A bare array and
// the dialect's own list envelope need no mark: the twin's compiler
// knows them from the body.
func markList(rt *format.Route, s *openapi3.SchemaRef) {
	if rt.Method != http.MethodGet || rt.Body == "" || rt.Body[0] != '{' || s == nil || s.Value == nil {
		return
	}
	key := listKey(s, nil, "")
	if key == "" {
		return
	}
	props, _ := mergedProps(s.Value, 0)
	for k, p := range props {
		if p.Value == nil {
			return
		}
		if k == key {
			if items := p.Value.Items; items == nil || items.Value == nil || !items.Value.Type.Is("object") {
				return
			}
			if p.Value.MinItems > 0 {
				return // an empty page is an answer the schema refuses (Slack's messages)
			}
			continue
		}
		if t := p.Value.Type; t.Is("string") || t.Is("boolean") || t.Is("array") {
			return
		}
	}
	var body map[string]json.RawMessage
	if json.Unmarshal([]byte(rt.Body), &body) != nil || len(body[key]) == 0 || body[key][0] != '[' {
		return // the template has no page to empty
	}
	rt.ListKey = key
}

// safeOp reports whether the overlay declares o's template safe
// (safe_ops), noting it in routed.
func (im *Importer) safeOp(o Operation, routed map[string]bool) bool {
	if o.Op == nil || !slices.Contains(im.ov.SafeOps, o.Op.OperationID) {
		return false
	}
	routed[o.Op.OperationID] = true
	return true
}

// unusedSafeOps reports each safe_ops entry that names no template
// route: a resource serves it, or the description has no such
// operation.
func (im *Importer) unusedSafeOps(routed map[string]bool) {
	for _, id := range im.ov.SafeOps {
		if !routed[id] {
			im.report.AddUnresolved(id, "the overlay's safe_ops names no operation the twin serves by a template (a resource serves it, or the description has none): the entry is not used", "high")
		}
	}
}
