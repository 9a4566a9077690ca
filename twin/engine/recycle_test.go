package engine

import (
	"bytes"
	"fmt"
	"net/http"
	"reflect"
	"sync"
	"testing"
)

// TestCreatesReuseNoObjectInUse: creates reuse the objects earlier
// creates are done with (startCreate, endCreate). Many at once, refused
// ones among them, each answers with its own parameters, keeps the bytes
// it answered, and leaves nothing in the next one's object.
func TestCreatesReuseNoObjectInUse(t *testing.T) {
	e := newCheckout(t, Options{})
	const workers, creates = 8, 40
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			session := fmt.Sprintf("s%d", w%3) // sessions shared by workers, and not
			for i := range creates {
				desc := fmt.Sprintf("w%d-%d", w, i)
				form := "description=" + desc
				if i%2 == 0 {
					form += "&metadata[order]=" + desc + "&name=N"
				}
				if i%5 == 0 {
					form += "&balance=lots" // refused: its object goes back too
				}
				rec, m := serve(t, e, "POST", "/v1/customers", session, form)
				if i%5 == 0 {
					if rec.Code != http.StatusBadRequest {
						t.Errorf("%s: want 400, have %d %s", form, rec.Code, rec.Body)
					}
					continue
				}
				if rec.Code != http.StatusOK {
					t.Errorf("%s: want 200, have %d %s", form, rec.Code, rec.Body)
					continue
				}
				wantMD := map[string]any{}
				if i%2 == 0 {
					wantMD["order"] = desc
				}
				if m["description"] != desc || !reflect.DeepEqual(m["metadata"], wantMD) || (m["name"] == nil) != (i%2 == 1) {
					t.Errorf("%s: answered description %v, metadata %v, name %v", form, m["description"], m["metadata"], m["name"])
				}
				id, _ := m["id"].(string)
				got, _ := serve(t, e, "GET", "/v1/customers/"+id, session, "")
				if got.Body.String() != rec.Body.String() {
					t.Errorf("%s: read back\n%s\nanswered\n%s", id, got.Body, rec.Body)
				}
			}
		})
	}
	wg.Wait()
	m, _ := e.twin.Router.Match("POST", "/v1/customers")
	res := m.Value.Resource
	if have, want := res.Skeleton.AppendJSON(nil), res.Encoded.Bytes(); !bytes.Equal(have, want) {
		t.Errorf("the skeleton changed:\nwas %s\nnow %s", want, have)
	}
}
