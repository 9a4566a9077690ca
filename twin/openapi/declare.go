package openapi

import (
	"fmt"
	"reflect"

	"github.com/wraithdev/wraith/twin/format"
)

// declare sets every key of fr that the overlay's entry declares (any
// twin.toml resource key but name, skeleton, immutable and actions) to
// the declared value: an inferred value never replaces a declared one,
// whichever dialect inferred it. Immutable is the union of both and
// actions are amended by name, which the dialects do themselves, since
// only they know which operation an action is. It walks the fields of
// format.Resource (and its embedded Nested and Keys) by reflection so
// that a key added to the format is one an overlay may declare, with no
// list here to keep in step.
func (r *OverlayResource) declare(fr *format.Resource) {
	declareFields(reflect.ValueOf(fr).Elem(), reflect.ValueOf(&r.Resource).Elem())
}

func declareFields(dst, src reflect.Value) {
	t := dst.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		switch {
		case f.Anonymous:
			declareFields(dst.Field(i), src.Field(i))
		case f.Name == "Name", f.Name == "Skeleton", f.Name == "Immutable", f.Name == "Actions":
		case f.Name == "Computed" && !src.Field(i).IsZero():
			// the inferred computed fields stay; the overlay's win by name
			if dst.Field(i).IsNil() {
				dst.Field(i).Set(reflect.MakeMap(f.Type))
			}
			for _, k := range src.Field(i).MapKeys() {
				dst.Field(i).SetMapIndex(k, src.Field(i).MapIndex(k))
			}
		case !src.Field(i).IsZero():
			dst.Field(i).Set(src.Field(i))
		}
	}
}

// RefuseAnchors refuses an overlay whose resources name operations, for
// a dialect that infers every resource's operations from the
// description's paths and so would not read them.
func (ov *Overlay) RefuseAnchors(dialect string) error {
	for i := range ov.Resources {
		if r := &ov.Resources[i]; r.Anchored() {
			return fmt.Errorf("overlay: resources[%d] (%s): the %s dialect infers a resource's operations from the description's paths: get_op, create_ops and the other *_op keys are for a dialect that anchors resources on operationIds; remove them, or set the overlay's dialect", i, r.Name, dialect)
		}
	}
	return nil
}
