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
// needs: the dialect, state machines, create rules, natural keys,
// corrections to skeletons. It is a small, reviewed TOML file merged into
// the import; the overlays this package ships are in overlays/. Every
// dialect reads the same grammar; docs/import.md says which keys each
// reads.
type Overlay struct {
	// Dialect names the dialect the import takes (see Dialect); empty,
	// the first that detects the description.
	Dialect string `toml:"dialect"`
	// Source names where the description comes from, for the make target
	// and the regeneration test.
	Source Source `toml:"source"`
	// Twin sets the twin's manifest fields.
	Twin TwinInfo `toml:"twin"`
	// PII names fields served verbatim beside those the import infers.
	PII struct {
		Verbatim []string `toml:"verbatim"`
	} `toml:"pii"`
	// Errors are extra [errors.*] shapes (card_declined, ...) that the
	// twin gains for the fail rules of its resources; the shapes the
	// import infers (not_found, invalid_request, ...) cannot be named.
	Errors    map[string]format.Answer `toml:"errors"`
	Resources []OverlayResource        `toml:"resources"`
	// SafeOps are the operationIds of template routes whose answer is
	// true whatever is sent and the session holds (format.Route's safe;
	// see safeOp).
	SafeOps []string `toml:"safe_ops"`
	// Accept are request parameters the provider takes that its
	// description leaves out (Stripe's deprecated items[0][plan], which
	// its own SDKs still send): added to requests.json, each reviewed.
	Accept []AcceptParam `toml:"accept"`
}

// AcceptParam is one parameter an operation takes beyond its
// description: Param is its path in the schema, a "[]" segment an
// array's elements (items[].plan), and Type its JSON Schema type.
type AcceptParam struct {
	Op    string `toml:"op"` // "POST /v1/subscriptions", as the description writes the path
	Param string `toml:"param"`
	Type  string `toml:"type"`
	// Why says where the provider is seen to take it.
	Why string `toml:"why"`
}

// Source is a description pinned to a package version: a Go module's
// (Module, with Spec and Fixtures paths in it) or an npm package's (NPM).
type Source struct {
	Module   string `toml:"module"`   // "example.com/mock@v0.203.0"
	NPM      string `toml:"npm"`      // "@scope/openapi@23.0.2"
	Spec     string `toml:"spec"`     // path of the description in the package
	Fixtures string `toml:"fixtures"` // path of the fixtures in the package
	// Date is the day the pinned description is as of (its API version's
	// date, or the package's publication), the imported twin's
	// recorded_at.
	Date string `toml:"date"`
}

// TwinInfo are twin.toml's top-level fields.
type TwinInfo struct {
	Name        string `toml:"name"`
	Provider    string `toml:"provider"`
	Upstream    string `toml:"upstream"`
	Description string `toml:"description"`
}

// OverlayResource amends one resource, named by its name in twin.toml.
// Its embedded format.Resource is what the overlay declares outright, in
// twin.toml's own keys; an inferred value never replaces a declared one
// (immutable is the union of both, and an action declared by name amends
// the inferred action of that name). The anchors name the operations of
// a resource that a dialect does not infer from the description's paths
// (operationIds): which of them a dialect reads, docs/import.md says.
type OverlayResource struct {
	format.Resource
	// SkeletonPatch is a JSON merge patch over the inferred skeleton.
	SkeletonPatch string         `toml:"skeleton_patch"`
	Patch         map[string]any `toml:"-"` // SkeletonPatch, decoded
	// GetOp reads one entity: its path is the item (or a read path when
	// ItemOp is set) and its answer's schema is the resource's.
	GetOp string `toml:"get_op"`
	// ItemOp names the operation whose path is the item, when the read
	// lives elsewhere.
	ItemOp    string   `toml:"item_op"`
	CreateOps []string `toml:"create_ops"`
	ListOps   []string `toml:"list_ops"`
	UpdateOp  string   `toml:"update_op"`
	DeleteOp  string   `toml:"delete_op"`
	// ActionOps maps an action's name to its operation.
	ActionOps map[string]string `toml:"action_ops"`
	// MemberOps maps a member's path to the operation that adds to it.
	MemberOps map[string]string `toml:"member_ops"`
}

// Anchored reports whether the entry names any operation.
func (r *OverlayResource) Anchored() bool {
	return r.GetOp != "" || r.ItemOp != "" || len(r.CreateOps) > 0 || len(r.ListOps) > 0 || r.UpdateOp != "" || r.DeleteOp != "" || len(r.ActionOps) > 0 || len(r.MemberOps) > 0
}

//go:embed overlays/*.toml
var shipped embed.FS

// ShippedOverlay returns the text of an overlay this package ships, by
// its file's name in overlays/ (a dialect's name).
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
		if r.Skeleton != "" {
			return nil, fmt.Errorf("overlay: resources[%d] (%s): skeleton is inferred from the description: amend it with skeleton_patch, a JSON merge patch", i, r.Name)
		}
		if r.SkeletonPatch != "" {
			dec := json.NewDecoder(bytes.NewReader([]byte(r.SkeletonPatch)))
			dec.UseNumber()
			if err := dec.Decode(&r.Patch); err != nil || r.Patch == nil {
				return nil, fmt.Errorf("overlay: resources[%d] (%s): skeleton_patch is not a JSON object (a merge patch over the inferred skeleton): %v", i, r.Name, err)
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

// Resource returns the overlay's entry for a resource, or nil.
func (ov *Overlay) Resource(name string) *OverlayResource {
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
