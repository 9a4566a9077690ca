package stripe

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/object"
	"github.com/wraithdev/wraith/twin/world"
)

// Stripe's search (GET /v1/customers/search?query=...): a query of
// clauses joined by AND or OR (not both; a space is AND), each a field, an operator and a
// value, answered as a search_result of the matching entities, newest
// first, paged by an opaque next_page token.
//
//	email:'jenny@example.com'           equal (strings case-insensitively)
//	-status:'canceled'                   not equal
//	amount>1000  created<=1700000000     numbers
//	name~'jen'                           contains (at least three characters)
//	metadata['order_id']:'6735'          a metadata key
//	currency:null  -email:null           absent or null
//
// Stripe documents this language at docs.stripe.com/search; a query it
// refuses is refused here with its parameter, query. Fields are looked up
// by dotted path (payment_method_details.card.brand).

// search answers a page of the items that match q's query.
func search(q dialect.ListQuery) (dialect.ListAnswer, *dialect.Refusal) {
	text, _ := q.Params["query"].(string)
	if strings.TrimSpace(text) == "" {
		return dialect.ListAnswer{}, &dialect.Refusal{Param: "query", Message: "Missing required param: query."}
	}
	clauses, any, err := parseQuery(text)
	if err != "" {
		return dialect.ListAnswer{}, &dialect.Refusal{Param: "query", Message: err}
	}
	limit := defaultLimit
	if v, ok := q.Params["limit"].(string); ok {
		n, convErr := strconv.Atoi(v)
		if convErr != nil || n < 1 || n > maxLimit {
			return dialect.ListAnswer{}, &dialect.Refusal{Param: "limit", Message: "Invalid limit: must be an integer between 1 and 100"}
		}
		limit = n
	}
	start := 0
	if page, ok := q.Params["page"].(string); ok && page != "" {
		n, ok := pageOffset(page)
		if !ok {
			return dialect.ListAnswer{}, &dialect.Refusal{Param: "page", Message: "Invalid page: " + page}
		}
		start = n
	}
	var matched []*world.Entity
	for _, ent := range q.Items {
		o, parseErr := object.Parse(ent.Body())
		if parseErr == nil && matches(o, clauses, any) {
			matched = append(matched, ent)
		}
	}
	start = min(start, len(matched))
	end := min(start+limit, len(matched))
	var b bytes.Buffer
	b.WriteString(`{"object":"search_result","data":[`)
	for i, ent := range matched[start:end] {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(ent.Body())
	}
	more := end < len(matched)
	next := "null"
	if more {
		next = strconv.Quote(pageToken(end))
	}
	url, _ := json.Marshal(q.URL)
	b.WriteString(`],"has_more":` + strconv.FormatBool(more) + `,"next_page":` + next)
	if slices.Contains(expandParam(q.Params), "total_count") {
		// Stripe counts the matches only when asked (expand[]=total_count).
		b.WriteString(`,"total_count":` + strconv.Itoa(len(matched)))
	}
	b.WriteString(`,"url":`)
	b.Write(url)
	b.WriteByte('}')
	return dialect.ListAnswer{Body: b.Bytes()}, nil
}

// A clause is one field compared with one value.
type clause struct {
	path   []string // the field's dotted path; metadata['k'] is metadata, k
	op     string   // ":", "~", ">", "<", ">=", "<="
	value  string
	null   bool // the value is null: the field is absent or null
	negate bool
}

// parseQuery reads a query's clauses; any says they are joined by OR.
// Clauses are joined by AND or OR, in any case, or by a space, which is
// AND; a query joins by one of the two only. The error is Stripe's
// sentence for a query it cannot read, else "".
func parseQuery(text string) (clauses []clause, any bool, err string) {
	words, err := splitQuery(text)
	if err != "" {
		return nil, false, err
	}
	var joiner string // "AND" or "OR", once one is known
	joined := true    // the next word is a clause: at the start, or after a joiner
	for _, w := range words {
		if up := strings.ToUpper(w); up == "AND" || up == "OR" {
			if joined {
				return nil, false, "Invalid query: " + w + " must stand between two clauses"
			}
			if joiner != "" && up != joiner {
				return nil, false, "Invalid query: a query cannot mix AND and OR"
			}
			joiner, joined = up, true
			continue
		}
		if !joined { // clauses side by side: AND
			if joiner == "OR" {
				return nil, false, "Invalid query: a query cannot mix AND and OR"
			}
			joiner = "AND"
		}
		c, err := parseClause(w)
		if err != "" {
			return nil, false, err
		}
		clauses = append(clauses, c)
		joined = false
	}
	if joined && len(words) > 0 {
		return nil, false, "Invalid query: it ends with " + words[len(words)-1]
	}
	return clauses, joiner == "OR", ""
}

// splitQuery cuts a query at the spaces outside quotes.
func splitQuery(text string) ([]string, string) {
	var words []string
	var cur strings.Builder
	var quote byte
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case quote != 0:
			if c == '\\' && i+1 < len(text) {
				cur.WriteByte(c)
				i++
				cur.WriteByte(text[i])
				continue
			}
			if c == quote {
				quote = 0
			}
			cur.WriteByte(c)
		case c == '\'' || c == '"':
			quote = c
			cur.WriteByte(c)
		case c == ' ' || c == '\t' || c == '\n':
			if cur.Len() > 0 {
				words = append(words, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteByte(c)
		}
	}
	if quote != 0 {
		return nil, "Invalid query: a quoted value is not closed"
	}
	if cur.Len() > 0 {
		words = append(words, cur.String())
	}
	return words, ""
}

// parseClause reads field op value.
func parseClause(w string) (clause, string) {
	var c clause
	if strings.HasPrefix(w, "-") {
		c.negate, w = true, w[1:]
	}
	i := strings.IndexAny(w, ":~<>")
	if i <= 0 {
		return c, "Invalid query: " + strconv.Quote(w) + " is not a field, an operator and a value"
	}
	field, rest := w[:i], w[i:]
	for _, op := range []string{">=", "<=", ":", "~", ">", "<"} {
		if strings.HasPrefix(rest, op) {
			c.op, rest = op, rest[len(op):]
			break
		}
	}
	path, ok := fieldPath(field)
	if !ok {
		return c, "Invalid query: " + strconv.Quote(field) + " is not a field"
	}
	c.path = path
	switch {
	case rest == "null":
		c.null = true
	case len(rest) >= 2 && (rest[0] == '\'' || rest[0] == '"') && rest[len(rest)-1] == rest[0]:
		c.value = strings.ReplaceAll(rest[1:len(rest)-1], `\`+rest[:1], rest[:1])
	case rest != "" && isNumber(rest):
		c.value = rest
	default:
		return c, "Invalid query: the value of " + field + " must be quoted, a number or null"
	}
	if c.op == "~" && len(c.value) < 3 {
		return c, "Invalid query: a substring match (~) needs at least three characters"
	}
	if (c.op != ":" && c.op != "~") && !isNumber(c.value) {
		return c, "Invalid query: " + c.op + " compares numbers"
	}
	return c, ""
}

// fieldPath reads name, a.b or metadata['key'].
func fieldPath(field string) ([]string, bool) {
	if base, key, ok := strings.Cut(field, "["); ok {
		key, ok = strings.CutSuffix(key, "]")
		if !ok || len(key) < 2 || (key[0] != '\'' && key[0] != '"') || key[len(key)-1] != key[0] {
			return nil, false
		}
		return []string{base, key[1 : len(key)-1]}, base != ""
	}
	parts := strings.Split(field, ".")
	for _, p := range parts {
		if p == "" {
			return nil, false
		}
	}
	return parts, true
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// matches reports whether o meets the clauses: all of them, or with any
// one of them.
func matches(o *object.Object, clauses []clause, any bool) bool {
	for _, c := range clauses {
		if c.holds(o) == any {
			return any
		}
	}
	return !any
}

// holds reports whether o meets c.
func (c clause) holds(o *object.Object) bool {
	v, found := lookup(o, c.path)
	var ok bool
	switch {
	case c.null:
		ok = !found || v == nil
	case !found || v == nil:
		ok = false
	case c.op == ":":
		ok = equal(v, c.value)
	case c.op == "~":
		s, isString := v.(string)
		ok = isString && strings.Contains(strings.ToLower(s), strings.ToLower(c.value))
	default:
		ok = compare(v, c.op, c.value)
	}
	return ok != c.negate
}

// lookup follows path into o.
func lookup(o *object.Object, path []string) (any, bool) {
	var v any = o
	for _, p := range path {
		obj, ok := v.(*object.Object)
		if !ok {
			return nil, false
		}
		if v, ok = obj.Get(p); !ok {
			return nil, false
		}
	}
	return v, true
}

// equal compares a field's value with a query's: strings without regard
// to case, numbers as numbers, booleans as their words, an expanded
// object by its id.
func equal(v any, want string) bool {
	switch t := v.(type) {
	case string:
		return strings.EqualFold(t, want)
	case json.Number:
		a, errA := strconv.ParseFloat(string(t), 64)
		b, errB := strconv.ParseFloat(want, 64)
		return errA == nil && errB == nil && a == b
	case bool:
		return strconv.FormatBool(t) == want
	case *object.Object:
		id, _ := t.Get("id")
		s, _ := id.(string)
		return s != "" && s == want
	}
	return false
}

// compare applies a numeric operator.
func compare(v any, op, want string) bool {
	n, ok := v.(json.Number)
	if !ok {
		return false
	}
	a, errA := strconv.ParseFloat(string(n), 64)
	b, errB := strconv.ParseFloat(want, 64)
	if errA != nil || errB != nil {
		return false
	}
	switch op {
	case ">":
		return a > b
	case "<":
		return a < b
	case ">=":
		return a >= b
	}
	return a <= b
}

// pageToken is the next_page of a search whose next page starts at
// offset: opaque to clients, as Stripe's is.
func pageToken(offset int) string { return "page_" + strconv.Itoa(offset) }

// pageOffset reads a pageToken.
func pageOffset(token string) (int, bool) {
	s, ok := strings.CutPrefix(token, "page_")
	n, err := strconv.Atoi(s)
	return n, ok && err == nil && n >= 0
}
