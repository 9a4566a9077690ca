package openapi

import "github.com/wraithdev/wraith/twin/format"

// The twin.toml an import writes is a format.Manifest, written by
// format.WriteManifest: the format declares the schema and its layout
// once, for the loader and for both import styles (the description's own
// inference and GitHub's). A field the import leaves zero (or nil) is not
// written, so the file holds only what the import decided, and a field
// added to the format later does not change the bytes, or the digest, of
// an import.

// withExtraErrors is e with the overlay's extra [errors.*] shapes, which
// its fail rules name (ParseOverlay refuses the names of format.ErrorKeys).
func withExtraErrors(e format.Errors, extra map[string]format.Answer) format.Errors {
	for name, a := range extra {
		if e.Extra == nil {
			e.Extra = map[string]*format.Answer{}
		}
		e.Extra[name] = &a
	}
	return e
}
