package compiled

import "github.com/wraithdev/wraith/twin/reqschema"

// requestIndex finds the request schema of a twin's route (see
// reqschema.Index); the zero value, for a twin without requests.json,
// finds none.
type requestIndex struct{ idx *reqschema.Index }

// requestSchemas indexes f's operations; f may be nil.
func requestSchemas(f *reqschema.File) (requestIndex, error) {
	if f == nil {
		return requestIndex{}, nil
	}
	idx, err := reqschema.NewIndex(f)
	return requestIndex{idx}, err
}

// of is the request schema of the twin's route method path, or nil.
func (x requestIndex) of(method, path string) *reqschema.Schema {
	if x.idx == nil {
		return nil
	}
	if op := x.idx.Lookup(method, path); op != nil {
		return op.Params
	}
	return nil
}
