// Package object is an order-preserving JSON object for provider entities.
//
// Providers answer with objects whose field order is part of what users see
// (Stripe puts "id" and "object" first). encoding/json's maps sort keys, so
// entities that the twin creates or changes are held as an Object, which
// keeps the order of its template and appends new fields at the end.
//
// Values are nil, bool, json.Number, string, *Object and []any, as
// produced by Parse.
package object

// Object is an ordered JSON object. The zero value is an empty object,
// and a nil *Object reads as one (Len, Keys, Values, Get, Has, String):
// a field that is no object, read as one, has no fields.
//
// Small objects find a field by scanning their names, which is cheaper
// than hashing at the sizes providers use. Past indexAt fields, Set builds
// an index from name to position, so that building or merging an object
// of n fields costs O(n) and not O(n²) (a request may carry tens of
// thousands of metadata keys). Get only reads the index and never builds
// it: objects shared between goroutines, such as a resource's skeleton,
// are only ever read, and reading must not write.
type Object struct {
	keys  []string
	vals  []any
	index map[string]int // nil until Set sees more than indexAt fields
}

// indexAt is the field count past which an object keeps an index. Provider
// entities (Stripe's largest have about 50 top-level fields) stay below it,
// so the create path neither builds nor copies a map.
const indexAt = 64

// New returns an empty object with room for n fields. An object of one
// or two fields, as most nested request parameters are
// (metadata[order]=42), comes in one allocation instead of three.
func New(n int) *Object {
	switch n {
	case 1:
		b := new(struct {
			o Object
			k [1]string
			v [1]any
		})
		b.o.keys, b.o.vals = b.k[:0], b.v[:0]
		return &b.o
	case 2:
		b := new(struct {
			o Object
			k [2]string
			v [2]any
		})
		b.o.keys, b.o.vals = b.k[:0], b.v[:0]
		return &b.o
	}
	return &Object{keys: make([]string, 0, n), vals: make([]any, 0, n)}
}

// Len returns the number of fields.
func (o *Object) Len() int {
	if o == nil {
		return 0
	}
	return len(o.keys)
}

// Keys returns the field names in order. The slice must not be modified.
func (o *Object) Keys() []string {
	if o == nil {
		return nil
	}
	return o.keys
}

// Values returns the field values in the order of Keys. The slice must
// not be modified; set fields with Set.
func (o *Object) Values() []any {
	if o == nil {
		return nil
	}
	return o.vals
}

// find returns the position of field k, or -1.
func (o *Object) find(k string) int {
	if o == nil {
		return -1
	}
	if o.index != nil {
		if i, ok := o.index[k]; ok {
			return i
		}
		return -1
	}
	for i, key := range o.keys {
		if key == k {
			return i
		}
	}
	return -1
}

// Get returns the value of field k.
func (o *Object) Get(k string) (any, bool) {
	if i := o.find(k); i >= 0 {
		return o.vals[i], true
	}
	return nil, false
}

// Has reports whether o has field k.
func (o *Object) Has(k string) bool { return o.find(k) >= 0 }

// String returns field k when it is a string.
func (o *Object) String(k string) string {
	v, _ := o.Get(k)
	s, _ := v.(string)
	return s
}

// Set sets field k, keeping its position when it exists.
func (o *Object) Set(k string, v any) {
	if o.index == nil && len(o.keys) >= indexAt {
		o.buildIndex()
	}
	if i := o.find(k); i >= 0 {
		o.vals[i] = v
		return
	}
	if o.index != nil {
		o.index[k] = len(o.keys)
	}
	o.keys = append(o.keys, k)
	o.vals = append(o.vals, v)
}

func (o *Object) buildIndex() {
	o.index = make(map[string]int, len(o.keys)+1)
	for i, k := range o.keys { // names are unique: Set never repeats one
		o.index[k] = i
	}
}

// Delete removes field k. It costs O(Len): to remove many fields, build a
// new object instead.
func (o *Object) Delete(k string) {
	i := o.find(k)
	if i < 0 {
		return
	}
	o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
	o.vals = append(o.vals[:i:i], o.vals[i+1:]...)
	if o.index != nil {
		delete(o.index, k)
		for j := i; j < len(o.keys); j++ {
			o.index[o.keys[j]] = j
		}
	}
}

// Clone returns a deep copy. The clone shares o's field-name slice, capped
// so that adding a field reallocates and Delete copies: names are never
// written in place, so sharing them is safe and saves an allocation per
// object on the create path. An index is copied, not shared, since Set
// writes it.
func (o *Object) Clone() *Object {
	c := &Object{keys: o.keys[:len(o.keys):len(o.keys)], vals: make([]any, len(o.vals))}
	for i, v := range o.vals {
		c.vals[i] = CloneValue(v)
	}
	if o.index != nil {
		c.index = make(map[string]int, len(o.index))
		for k, i := range o.index {
			c.index[k] = i
		}
	}
	return c
}

// CloneTopInto is CloneTop into dst, an object that its last holder
// emptied with Recycle: it reuses dst's room for values instead of
// allocating. A nil dst, or an o with an index, gives CloneTop.
func (o *Object) CloneTopInto(dst *Object) *Object {
	if dst == nil || o.index != nil {
		return o.CloneTop()
	}
	dst.keys = o.keys[:len(o.keys):len(o.keys)]
	dst.vals = append(dst.vals[:0], o.vals...)
	dst.index = nil
	return dst
}

// Recycle empties o for CloneTopInto once nothing refers to it any more.
// It drops every value, so that a kept object holds nothing alive, and
// keeps the room for them.
func (o *Object) Recycle() {
	clear(o.vals[:cap(o.vals)])
	o.keys, o.vals, o.index = nil, o.vals[:0], nil
}

// CloneTop returns a copy of o's top level: its own fields, which Set
// and Delete change without touching o, over values shared with o. The
// caller must not change a shared nested object or list in place;
// replacing it with Set is fine. It is the cheap start of an object whose
// nested values are only ever replaced, and it lets Skeleton.AppendDiff
// pass over the values still shared without encoding them.
func (o *Object) CloneTop() *Object {
	c := &Object{keys: o.keys[:len(o.keys):len(o.keys)], vals: make([]any, len(o.vals))}
	copy(c.vals, o.vals)
	if o.index != nil {
		c.index = make(map[string]int, len(o.index))
		for k, i := range o.index {
			c.index[k] = i
		}
	}
	return c
}

// CloneValue deep-copies a value of this package's value set.
func CloneValue(v any) any {
	switch t := v.(type) {
	case *Object:
		return t.Clone()
	case []any:
		c := make([]any, len(t))
		for i, e := range t {
			c[i] = CloneValue(e)
		}
		return c
	default:
		return v
	}
}
