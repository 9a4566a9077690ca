package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/pelletier/go-toml/v2"

	"github.com/wraithdev/wraith/twin/format"
)

// githubOverlay is what GitHub's description does not say and its twin
// needs (overlays/github.toml): which resources to serve statefully,
// anchored by the operationIds that read, create, list, update and delete
// them, and per resource the facts no schema carries: counters, natural
// keys, computed URLs, state rules and members. Everything else about a
// resource (item path, parents, key parameter, list shape, statuses,
// required fields, timestamps, skeleton) is inferred from the anchored
// operations.
type githubOverlay struct {
	Source struct {
		// NPM is the npm package, name@version, that ships the description.
		NPM  string `toml:"npm"`
		Spec string `toml:"spec"` // the description's path in the package
		// Date is the day the package was published, the imported
		// twin's recorded_at.
		Date string `toml:"date"`
	} `toml:"source"`
	Twin TwinInfo `toml:"twin"`
	PII  struct {
		Verbatim []string `toml:"verbatim"`
	} `toml:"pii"`
	Resources []githubOverlayResource `toml:"resources"`
}

// githubOverlayResource anchors a resource on operationIds; the embedded
// format.Resource holds what the overlay declares outright. An inferred
// value never replaces a declared one.
type githubOverlayResource struct {
	format.Resource
	// GetOp reads one entity: its path is the item (or a read path when
	// ItemOp is set) and its answer's schema is the resource's.
	GetOp string `toml:"get_op"`
	// ItemOp names the operation whose path is the item, when the read
	// lives elsewhere (git refs are read at /git/ref/, changed at /git/refs/).
	ItemOp    string   `toml:"item_op"`
	CreateOps []string `toml:"create_ops"`
	ListOps   []string `toml:"list_ops"`
	UpdateOp  string   `toml:"update_op"`
	DeleteOp  string   `toml:"delete_op"`
	// ActionOps maps an action's name to its operation (PUT {item}/merge).
	ActionOps map[string]string `toml:"action_ops"`
	// MemberOps maps a member's path to the operation that adds to it.
	MemberOps map[string]string `toml:"member_ops"`
	// SkeletonPatch is a JSON merge patch over the inferred skeleton.
	SkeletonPatch string `toml:"skeleton_patch"`
}

// parseGitHubOverlay parses a GitHub overlay; with none given it parses
// the shipped one (overlays/github.toml), which `make twins` uses too.
func parseGitHubOverlay(b []byte) (*githubOverlay, error) {
	if len(b) == 0 {
		var err error
		if b, err = ShippedOverlay("github"); err != nil {
			return nil, err
		}
	}
	ov := &githubOverlay{}
	dec := toml.NewDecoder(bytes.NewReader(b)).DisallowUnknownFields()
	if err := dec.Decode(ov); err != nil {
		return nil, fmt.Errorf("github overlay: %w", err)
	}
	seen := map[string]bool{}
	for i, r := range ov.Resources {
		if r.Name == "" || seen[r.Name] {
			return nil, fmt.Errorf("github overlay: resources[%d]: want a name, once per resource", i)
		}
		seen[r.Name] = true
		if r.GetOp == "" {
			return nil, fmt.Errorf("github overlay: resources[%d] (%s): get_op is required (the operationId that reads one, e.g. \"issues/get\")", i, r.Name)
		}
		if r.SkeletonPatch != "" && !json.Valid([]byte(r.SkeletonPatch)) {
			return nil, fmt.Errorf("github overlay: resources[%d] (%s): skeleton_patch is not JSON", i, r.Name)
		}
	}
	return ov, nil
}
