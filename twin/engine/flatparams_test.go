package engine

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/wraithdev/wraith/twin/canon"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/scrub"
)

// flatTwin has a field of each kind a parameter can meet: numbers,
// a boolean, PII strings, an object to merge, a null with a nested
// default and one without, a branch object set by a string, a list
// envelope, an immutable field, and an action that copies some names.
const flatTwin = `format = 1
name = "flat"
provider = "stripe"

[errors.invalid_request]
status = 400
body = '{"error":{"message":"{message}","param":"{param}","type":"invalid_request_error"}}'

[[resources]]
name = "thing"
collection = "/v1/things"
item = "/v1/things/{id}"
id_prefix = "th_"
timestamps = ["created"]
immutable = ["created"]
skeleton = '{"id":"","object":"thing","created":0,"amount":0,"rate":1.5,"active":false,"name":null,"email":null,"description":null,"metadata":{"keep":"1"},"address":{"city":null,"line1":null},"recurring":null,"other":null,"head":{"ref":"main","sha":"abc"},"items":{"object":"list","data":[],"total_count":0}}'
[resources.nested_defaults]
recurring = '{"interval":"month","interval_count":1,"usage_type":"licensed"}'
[[resources.actions]]
name = "touch"
params = ["description", "metadata", "amount"]
`

// flatForms are forms canon.FlatParams reads (and a few it leaves to
// canon.Params), meeting each field kind with good and bad values.
var flatForms = []string{
	"email=jenny%40example.com&name=Jenny+Rosen&description=bench&metadata[order]=42",
	"", "amount=250&rate=2.5e3&active=true", "amount=1.5", "amount=lots", "amount=+007", "rate=NaN", "active=maybe",
	"metadata[keep]=&metadata[new]=3", "metadata=", "metadata=x", "metadata[a]=1&metadata[a]=2&metadata[b]=",
	"address[city]=Paris&address[zip]=75001", "address=", "address=Main+St",
	"recurring[interval]=year&recurring[extra]=1", "recurring[interval]=", "other[a]=1&other[b]=", "recurring=x",
	"head=feature", "head[ref]=dev&head[sha]=", "items[x]=1", "amount[x]=1", "active[x]=1", "name[first]=J",
	"created=5", "id=th_x", "object=x", "colour=red&expand=customer", "zzz[a]=1&aaa=2", "n%C3%A9=1&name=%E2%82%AC",
	"email=a@b.c&email=d@e.f", "description=a+b%20c%2B", "metadata[%C3%A9]=%F0%9F%98%80",
	// Left to canon.Params: the tree path answers them.
	"metadata[0]=x", "items[0][price]=p", "expand[]=x", "a=1&a[b]=2", "amount=%zz",
}

// TestApplyFlat: a write whose form canon.FlatParams reads answers exactly
// as the same parameters sent as JSON, which canon.Params decodes into
// the tree setter.apply applies: same status, body and ignored names,
// on create, update and an action.
func TestApplyFlat(t *testing.T) {
	e := newFlat(t)
	for _, form := range flatForms {
		checkApplyFlat(t, e, form)
	}
}

func FuzzApplyFlat(f *testing.F) {
	for _, form := range flatForms {
		f.Add(form)
	}
	e := newFlat(f)
	f.Fuzz(func(t *testing.T, form string) {
		checkApplyFlat(t, e, form)
	})
}

func newFlat(tb testing.TB) *Engine {
	tb.Helper()
	tw, err := format.Load(fstest.MapFS{"twin.toml": {Data: []byte(flatTwin)}}, "flat")
	if err != nil {
		tb.Fatal(err)
	}
	e, err := New(tw, Options{Scrubber: scrub.New(scrub.DeriveKey([]byte(tw.Digest)), scrub.Policy{})})
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

// checkApplyFlat sends form to one session and its JSON to another: the
// two see the same requests, so they answer alike.
func checkApplyFlat(tb testing.TB, e *Engine, form string) {
	tb.Helper()
	tree, err := canon.Params(formType, []byte(form), "")
	if err != nil {
		// The flat path leaves it to Params: both answer the same error.
		if _, ok := canon.FlatParams(nil, formType, []byte(form), ""); ok {
			tb.Fatalf("FlatParams reads %q, which Params refuses: %v", form, err)
		}
		return
	}
	asJSON, err := json.Marshal(tree)
	if err != nil {
		tb.Fatal(err)
	}
	if back, err := canon.Params("application/json", asJSON, ""); err != nil || !reflect.DeepEqual(back, tree) {
		return // not a tree JSON carries: invalid UTF-8 becomes U+FFFD
	}
	const flat, viaTree = "flat", "tree"
	post := func(session, target, ctype, body string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, "http://twin"+target, strings.NewReader(body))
		r.Header.Set("Content-Type", ctype)
		r.Header.Set("X-Wraith-Session", session)
		w := httptest.NewRecorder()
		e.ServeHTTP(w, r)
		return w
	}
	same := func(what string, a, b *httptest.ResponseRecorder) {
		tb.Helper()
		if a.Code != b.Code || a.Body.String() != b.Body.String() ||
			a.Header().Get("X-Wraith-Ignored-Params") != b.Header().Get("X-Wraith-Ignored-Params") {
			tb.Fatalf("%s with %q:\nas a form (%d, ignored %q): %s\nas JSON   (%d, ignored %q): %s", what, form,
				a.Code, a.Header().Get("X-Wraith-Ignored-Params"), a.Body,
				b.Code, b.Header().Get("X-Wraith-Ignored-Params"), b.Body)
		}
	}
	same("create", post(flat, "/v1/things", formType, form), post(viaTree, "/v1/things", "application/json", string(asJSON)))
	base := post(flat, "/v1/things", formType, "")
	same("the base to update", base, post(viaTree, "/v1/things", "application/json", "{}"))
	var created struct{ ID string }
	if err := json.Unmarshal(base.Body.Bytes(), &created); err != nil || created.ID == "" {
		tb.Fatalf("create: %d %s", base.Code, base.Body)
	}
	item := "/v1/things/" + created.ID
	same("update", post(flat, item, formType, form), post(viaTree, item, "application/json", string(asJSON)))
	same("action", post(flat, item+"/touch", formType, form), post(viaTree, item+"/touch", "application/json", string(asJSON)))
	same("read back", post(flat, item, formType, ""), post(viaTree, item, "application/json", "{}"))
}
