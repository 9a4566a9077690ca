package openapi

import "github.com/wraithdev/wraith/twin/format"

// ghResource is a resource of a GitHub-style import: the format's GitHub
// fields of format.Keys, in the key order the committed github twin was
// written in. The rest of the file is shared with the other style
// (tomlManifest).
type ghResource struct {
	Name           string            `toml:"name"`
	Class          string            `toml:"class,omitempty"`
	Collection     string            `toml:"collection,omitempty"`
	Item           string            `toml:"item"`
	CreatePaths    []string          `toml:"create_paths,omitempty"`
	ListPaths      []string          `toml:"list_paths,omitempty"`
	ReadPaths      []string          `toml:"read_paths,omitempty"`
	Key            string            `toml:"key,omitempty"`
	KeyPrefix      string            `toml:"key_prefix,omitempty"`
	IDKind         string            `toml:"id_kind,omitempty"`
	IDPrefix       string            `toml:"id_prefix,omitempty"`
	Parents        []string          `toml:"parents,omitempty"`
	ParentDefaults map[string]string `toml:"parent_defaults,omitempty"`
	Counter        string            `toml:"counter,omitempty"`
	List           string            `toml:"list,omitempty"`
	ListDefaults   map[string]string `toml:"list_defaults,omitempty"`
	CreateStatus   int               `toml:"create_status,omitempty"`
	Delete         string            `toml:"delete,omitempty"`
	DeleteStatus   int               `toml:"delete_status,omitempty"`
	Update         []string          `toml:"update,omitempty"`
	Required       []string          `toml:"required,omitempty"`
	TimeFormat     string            `toml:"time_format,omitempty"`
	Timestamps     []string          `toml:"timestamps,omitempty"`
	Immutable      []string          `toml:"immutable,omitempty"`
	Skeleton       string            `toml:"skeleton"`
	Computed       map[string]string `toml:"computed,omitempty"`
	UpdateRules    []tomlRule        `toml:"update_rules,omitempty"`
	Members        []ghMember        `toml:"members,omitempty"`
	Actions        []tomlAction      `toml:"actions,omitempty"`
}

type ghMember struct {
	Path     string `toml:"path"`
	Field    string `toml:"field,omitempty"`
	Resource string `toml:"resource"`
	Param    string `toml:"param,omitempty"`
}

func toGHMembers(ms []format.Member) []ghMember {
	var out []ghMember
	for _, m := range ms {
		out = append(out, ghMember{Path: m.Path, Field: m.Field, Resource: m.Resource, Param: m.Param})
	}
	return out
}
