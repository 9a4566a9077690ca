package openapi

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/pelletier/go-toml/v2"

	"github.com/wraithdev/wraith/twin/format"
)

// Overlay is what a provider's description does not say and its twin
// needs: state machines, create rules, corrections to skeletons. It is a
// small, reviewed TOML file merged into the import; the overlays this
// package ships are in overlays/.
type Overlay struct {
	// Source names where the description comes from, for the make target
	// and the regeneration test: a Go module version and paths in it.
	Source Source `toml:"source"`
	// Twin sets the twin's manifest fields.
	Twin TwinInfo `toml:"twin"`
	// Errors are extra [errors.*] shapes (card_declined, ...) that the
	// twin gains for the fail rules of its resources; the shapes the
	// import infers (not_found, invalid_request, ...) cannot be named.
	Errors    map[string]format.Answer `toml:"errors"`
	Resources []OverlayResource        `toml:"resources"`
}

// Source is a description pinned to a module version.
type Source struct {
	Module   string `toml:"module"`   // "github.com/stripe/stripe-mock@v0.203.0"
	Spec     string `toml:"spec"`     // path of the description in the module
	Fixtures string `toml:"fixtures"` // path of the fixtures in the module
	// Date is the day the pinned description is as of (its API version's
	// date), the imported twin's recorded_at.
	Date string `toml:"date"`
}

// TwinInfo are twin.toml's top-level fields.
type TwinInfo struct {
	Name        string `toml:"name"`
	Provider    string `toml:"provider"`
	Upstream    string `toml:"upstream"`
	Description string `toml:"description"`
}

// OverlayResource amends one inferred resource, named by its object type.
type OverlayResource struct {
	Name     string `toml:"name"`
	IDPrefix string `toml:"id_prefix"`
	// Skeleton is a JSON merge patch applied to the inferred skeleton.
	SkeletonPatch string          `toml:"skeleton"`
	Skeleton      map[string]any  `toml:"-"`
	Create        []format.Rule   `toml:"create"`
	Actions       []format.Action `toml:"actions"` // replace inferred actions of the same name
	Delete        string          `toml:"delete"`
	OnDelete      *format.Action  `toml:"on_delete"`
	Immutable     []string        `toml:"immutable"`
	// NestedDefaults and Expand complete nested objects, as in twin.toml
	// (format.Nested); they are copied as they are.
	NestedDefaults map[string]string `toml:"nested_defaults"`
	Expand         []format.Expand   `toml:"expand"`
}

//go:embed overlays/*.toml
var shipped embed.FS

// ShippedOverlay returns the text of an overlay this package ships
// ("stripe").
func ShippedOverlay(name string) ([]byte, error) {
	b, err := shipped.ReadFile("overlays/" + name + ".toml")
	if err != nil {
		return nil, fmt.Errorf("no shipped overlay %q: %w", name, err)
	}
	return b, nil
}

// ParseOverlay parses an overlay's text.
func ParseOverlay(b []byte) (*Overlay, error) { return parseOverlay(b) }

func parseOverlay(b []byte) (*Overlay, error) {
	ov := &Overlay{}
	if len(b) == 0 {
		return ov, nil
	}
	dec := toml.NewDecoder(bytes.NewReader(b)).DisallowUnknownFields()
	if err := dec.Decode(ov); err != nil {
		return nil, fmt.Errorf("overlay: %w", err)
	}
	for _, name := range slices.Sorted(maps.Keys(ov.Errors)) {
		if slices.Contains(format.ErrorKeys, name) {
			return nil, fmt.Errorf("overlay: errors.%s is inferred from the description: name an extra error shape (card_declined, ...)", name)
		}
		if a := ov.Errors[name]; a.Status < 100 || a.Status > 599 || !json.Valid([]byte(format.Fill(a.Body, placeholderSample))) {
			return nil, fmt.Errorf("overlay: errors.%s: want status (an HTTP status) and body (JSON, placeholders inside strings)", name)
		}
	}
	seen := map[string]bool{}
	for i := range ov.Resources {
		r := &ov.Resources[i]
		if r.Name == "" || seen[r.Name] {
			return nil, fmt.Errorf("overlay: resources[%d]: want a name, once per resource", i)
		}
		seen[r.Name] = true
		if r.SkeletonPatch != "" {
			dec := json.NewDecoder(bytes.NewReader([]byte(r.SkeletonPatch)))
			dec.UseNumber()
			if err := dec.Decode(&r.Skeleton); err != nil {
				return nil, fmt.Errorf("overlay: resources[%d] (%s): skeleton is not a JSON object: %w", i, r.Name, err)
			}
		}
	}
	return ov, nil
}

// placeholderSample fills every placeholder an error body may hold, to
// check that the body is JSON.
var placeholderSample = func() map[string]string {
	m := map[string]string{"entity": "x"}
	for _, p := range format.Placeholders {
		m[p] = "x"
	}
	return m
}()

// resource returns the overlay's entry for a resource, or nil.
func (ov *Overlay) resource(name string) *OverlayResource {
	if ov == nil {
		return nil
	}
	for i := range ov.Resources {
		if ov.Resources[i].Name == name {
			return &ov.Resources[i]
		}
	}
	return nil
}
