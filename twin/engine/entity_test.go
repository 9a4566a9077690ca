package engine

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
	"testing/fstest"

	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/object"
	"github.com/wraithdev/wraith/twin/scrub"
	"github.com/wraithdev/wraith/twin/session"
	"github.com/wraithdev/wraith/twin/world"
)

// TestWrittenEntitiesRebuildTheirBytes creates and updates entities with
// varied parameters (nested metadata, nested defaults, expand, deleted
// fields, unicode, empty strings) and checks that what a session keeps,
// a patch over the resource's skeleton, is served byte for byte as the
// write answered it, on a read and in a list, that the bytes are the
// object's own encoding, and that the fields hold what was sent.
func TestWrittenEntitiesRebuildTheirBytes(t *testing.T) {
	for _, tw := range []struct {
		name string
		e    *Engine
	}{{"checkout", newCheckout(t, Options{})}, {"nested", newNested(t, Options{})}, {"expanding", newExpanding(t)}} {
		t.Run(tw.name, func(t *testing.T) {
			e := tw.e
			steps := []struct {
				method, path, form string
				want               map[string]string // field: its JSON text
			}{
				{"POST", "/v1/customers", "email=jenny%40example.com&name=Jenny+Rosen&description=bench&metadata[order]=42", map[string]string{"description": `"bench"`, "metadata": `{"order":"42"}`}},
				{"POST", "/v1/customers", "", map[string]string{"name": "null", "description": "null", "metadata": "{}"}},
				{"POST", "/v1/customers", "description=Zo%C3%AB+%E2%9C%93+%22q%22+%5C+%E2%80%A8+%01&invoice_prefix=", map[string]string{"description": `"Zoë ✓ \"q\" \\ \u2028 \u0001"`, "invoice_prefix": `""`}},
				{"POST", "/v1/customers", "metadata[a]=1&metadata[b]=&metadata[c]=x&preferred_locales[0]=en&preferred_locales[1]=fr&balance=7", map[string]string{"metadata": `{"a":"1","c":"x"}`, "preferred_locales": `["en","fr"]`, "balance": "7"}},
				{"POST", "/v1/customers", "invoice_settings[footer]=thanks&invoice_settings[custom_fields]=&shipping=", map[string]string{"invoice_settings": `{"default_payment_method":null,"footer":"thanks","rendering_options":null}`, "shipping": `""`}},
				{"POST", "/v1/customers", "metadata=&address=", map[string]string{"metadata": "{}", "address": `""`}},
				{"POST", "/v1/prices", "unit_amount=1200&currency=eur&recurring[interval]=year&metadata[k]=v", map[string]string{"unit_amount": "1200", "currency": `"eur"`, "type": `"recurring"`}},
				{"POST", "/v1/products", "name=Widget&description=", map[string]string{"description": `""`}},
				{"POST", "/v1/payment_intents", "amount=2000&currency=usd&metadata[x]=y", map[string]string{"amount": "2000", "metadata": `{"x":"y"}`}},
				{"POST", "/v1/subscriptions", "items[0][price]=price_unknown&items[1][quantity]=3&metadata[k]=%E2%9C%93&expand[]=items.data.price", nil},
				{"POST", "/v1/plans", "metadata[k]=v", map[string]string{"settings": `{"price":{"id":"price_1","object":"price","unit_amount":0}}`}},
			}
			collections := []string{"/v1/customers", "/v1/prices", "/v1/products", "/v1/payment_intents", "/v1/subscriptions", "/v1/plans"}
			// The skeletons were encoded when the twin was compiled, before
			// any write: below, none may have changed them.
			var ids []string
			for i, s := range steps {
				w, m := serve(t, e, s.method, s.path, "s", s.form)
				if w.Code == http.StatusNotImplemented {
					continue // a resource this twin does not have
				}
				if w.Code != http.StatusOK {
					t.Fatalf("step %d %s %s %s: %d %s", i, s.method, s.path, s.form, w.Code, w.Body)
				}
				id, _ := m["id"].(string)
				ids = append(ids, s.path+"/"+id)
				checkEntity(t, e, s.path+"/"+id, w.Body.Bytes(), s.want)
			}
			// Updates: over created entities (still patches), over recorded
			// ones (which the session then keeps as patches too), and a
			// delete of fields.
			e.Store().Get("s").Do(func(st *session.State) {
				for _, r := range st.World().List("customer") {
					ids = append(ids, "/v1/customers/"+r.ID)
				}
			})
			updates := []struct {
				form string
				want map[string]string
			}{
				{"description=changed&metadata[order]=", map[string]string{"description": `"changed"`}},
				{"metadata[new]=%F0%9F%98%80&description=", map[string]string{"description": `""`}},
				{"email=&phone=%2B1+555&metadata=", map[string]string{"phone": `"+1 555"`, "metadata": "{}"}},
				{"unit_amount=5&nickname=n&active=false", map[string]string{"nickname": `"n"`, "active": "false"}},
			}
			for _, path := range ids {
				for _, u := range updates {
					w, _ := serve(t, e, "POST", path, "s", u.form)
					if w.Code != http.StatusOK {
						continue // not a field of this resource, or not updatable
					}
					checkEntity(t, e, path, w.Body.Bytes(), nil)
				}
			}
			// Creates share the skeleton's nested values (startCreate): no
			// write may have changed them in place.
			for _, path := range collections {
				m, ok := e.twin.Router.Match("POST", path)
				if !ok || m.Value.Resource == nil {
					continue
				}
				res := m.Value.Resource
				if have, want := res.Skeleton.AppendJSON(nil), res.Encoded.Bytes(); !bytes.Equal(have, want) {
					t.Errorf("%s: the skeleton changed:\nwas %s\nnow %s", res.Name, want, have)
				}
			}
			patched := 0
			e.Store().Get("s").Do(func(st *session.State) {
				st.Overlay(func(ent *world.Entity) {
					if ent.BodyLen() != len(ent.Body()) {
						t.Errorf("%s: BodyLen %d, body %d", ent.ID, ent.BodyLen(), len(ent.Body()))
					}
					if ent.Provenance == world.Handler && ent.Patched() {
						patched++
					}
				})
			})
			if patched == 0 {
				t.Error("no written entity is kept as a patch")
			}
		})
	}
}

// newExpanding builds a twin whose skeleton holds a nested object with a
// field its expansion replaces: a create that shared the skeleton's nested
// values would write the expansion into the skeleton.
func newExpanding(tb testing.TB) *Engine {
	tb.Helper()
	const twin = `format = 1
name = "expanding"
provider = "stripe"

[[resources]]
name = "price"
collection = "/v1/prices"
item = "/v1/prices/{id}"
id_prefix = "price_"
skeleton = '{"id":"","object":"price","unit_amount":0}'

[[resources]]
name = "plan"
collection = "/v1/plans"
item = "/v1/plans/{id}"
id_prefix = "plan_"
skeleton = '{"id":"","object":"plan","metadata":{},"settings":{"price":"price_1"}}'
[[resources.expand]]
field = "settings.price"
resource = "price"
`
	tw, err := format.Load(fstest.MapFS{"twin.toml": {Data: []byte(twin)}}, "expanding")
	if err != nil {
		tb.Fatal(err)
	}
	e, err := New(tw, Options{Scrubber: scrub.New(scrub.DeriveKey([]byte(tw.Digest)), scrub.Policy{})})
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

// checkEntity checks that the entity at path reads back as answer, that
// answer is its object's own encoding, and that the fields of want it
// has hold what want says.
func checkEntity(t *testing.T, e *Engine, path string, answer []byte, want map[string]string) {
	t.Helper()
	o, err := object.Parse(answer)
	if err != nil {
		t.Fatalf("%s: the answer is not an object: %v: %s", path, err, answer)
	}
	if enc := o.AppendJSON(nil); !bytes.Equal(enc, answer) {
		t.Fatalf("%s: the answer is not its object's encoding:\nwant %s\nhave %s", path, enc, answer)
	}
	w, _ := serve(t, e, "GET", path, "s", "")
	if !bytes.Equal(w.Body.Bytes(), answer) {
		t.Fatalf("%s: read back:\nwant %s\nhave %s", path, answer, w.Body)
	}
	for f, v := range want {
		have, ok := o.Get(f)
		if !ok {
			continue // a field this twin's resource does not have
		}
		if text := object.AppendValue(nil, have); string(text) != v {
			t.Errorf("%s: field %s: want %s, have %s", path, f, v, text)
		}
	}
	id := o.String("id")
	collection := path[:len(path)-len(id)-1]
	lw, _ := serve(t, e, "GET", collection+"?limit=100", "s", "")
	var list struct{ Data []json.RawMessage }
	if err := json.Unmarshal(lw.Body.Bytes(), &list); err != nil {
		t.Fatalf("%s: list: %v", collection, err)
	}
	for _, d := range list.Data {
		if bytes.Contains(d, []byte(`"id":`+string(object.AppendString(nil, id)))) && !bytes.Equal(d, answer) {
			t.Fatalf("%s in its list:\nwant %s\nhave %s", path, answer, d)
		}
	}
}
