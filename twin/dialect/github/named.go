package github

import (
	"encoding/json"
	"hash/fnv"
	"strconv"

	"github.com/wraithdev/wraith/twin/object"
)

// GitHub's issue and pull request writes name labels and people by name
// (labels: ["bug"], assignees: ["octocat"]) and answer them as objects: a
// label {id, node_id, url, name, color, default, description} and a
// simple-user. Stored as sent, a client decoding the answer (go-github's
// []*Label) fails on the strings, and the answer contradicts its schema.

// LabelFinder returns the label named name in the repository of the
// entity being written, making it when the repository has none, as
// GitHub makes a label an issue names (the engine's member entities:
// the label resource's skeleton, ids and computed url).
type LabelFinder func(name string) *object.Object

// Named replaces, in the issue or pull request o that a create or update
// has just set, the names GitHub answers as objects: each label given by
// name (a string or {"name": ...}) by finder's label, and the logins of
// assignees and assignee by user objects (User). Objects already there
// stay as they are, so an update that sends none changes nothing, and a
// label sent twice is answered once. base is where the client reached
// the twin ({base} of computed fields), for the users' URLs.
func Named(o *object.Object, finder LabelFinder, base string) {
	if v, ok := o.Get("labels"); ok && finder != nil {
		if list, ok := v.([]any); ok {
			o.Set("labels", labels(list, finder))
		}
	}
	if v, ok := o.Get("assignees"); ok {
		if list, ok := v.([]any); ok {
			out := make([]any, 0, len(list))
			seen := make(map[string]bool, len(list))
			for _, el := range list {
				login, isName := el.(string)
				switch {
				case !isName:
					out = append(out, el)
				case login != "" && !seen[login]:
					seen[login] = true
					out = append(out, User(base, login))
				}
			}
			o.Set("assignees", out)
		}
	}
	if login := o.String("assignee"); login != "" {
		o.Set("assignee", User(base, login))
	}
}

// Named is the dialect's hook for Named. Its member finder is the
// engine's member entities by field ("labels": the resource's [[members]]
// entry of that path), an unnamed func type so that the engine can assert
// the hook with an interface of its own, naming no provider: after a
// create's, update's or action's parameters are set (and before its rules
// and computed fields), the engine calls it with a finder that returns
// the entity of the member at field named name in the written entity's
// scope, made when missing, or nil when the resource has no member there;
// member itself is nil for a resource without members.
func (Dialect) Named(o *object.Object, member func(field, name string) *object.Object, base string) {
	var label LabelFinder
	if member != nil {
		label = func(name string) *object.Object { return member("labels", name) }
	}
	Named(o, label, base)
}

// labels is list with every label named by name replaced by finder's
// object, each name once.
func labels(list []any, finder LabelFinder) []any {
	out := make([]any, 0, len(list))
	seen := make(map[string]bool, len(list))
	for _, el := range list {
		name, named := labelName(el)
		if !named {
			out = append(out, el)
			continue
		}
		if name == "" || seen[name] {
			continue
		}
		seen[name] = true
		if l := finder(name); l != nil {
			out = append(out, l)
		} else {
			out = append(out, el) // no label resource to find it in
		}
	}
	return out
}

// labelName is the name a write gives a label as: a string, or an object
// holding only a name ({"name": "bug"}, as GitHub also takes). A label
// object the twin made has an id and is no name.
func labelName(el any) (string, bool) {
	switch t := el.(type) {
	case string:
		return t, true
	case map[string]any:
		name, ok := t["name"].(string)
		return name, ok && len(t) == 1
	case *object.Object:
		return t.String("name"), t.Has("name") && t.Len() == 1
	}
	return "", false
}

// User is the simple-user object GitHub answers for login: its URLs under
// base as GitHub's are under https://api.github.com, type User. The twin
// keeps no users, so the id is derived from the login (FNV-1a), the same
// login answering the same id in every session and run.
func User(base, login string) *object.Object {
	h := fnv.New32a()
	h.Write([]byte(login))
	id := strconv.FormatUint(uint64(h.Sum32()), 10)
	u := base + "/users/" + login
	o := object.New(19)
	for _, kv := range [...]struct {
		k string
		v any
	}{
		{"login", login},
		{"id", json.Number(id)},
		{"node_id", "U_kgDO" + id},
		{"avatar_url", ""},
		{"gravatar_id", ""},
		{"url", u},
		{"html_url", base + "/" + login},
		{"followers_url", u + "/followers"},
		{"following_url", u + "/following{/other_user}"},
		{"gists_url", u + "/gists{/gist_id}"},
		{"starred_url", u + "/starred{/owner}{/repo}"},
		{"subscriptions_url", u + "/subscriptions"},
		{"organizations_url", u + "/orgs"},
		{"repos_url", u + "/repos"},
		{"events_url", u + "/events{/privacy}"},
		{"received_events_url", u + "/received_events"},
		{"type", "User"},
		{"site_admin", false},
		{"user_view_type", "public"},
	} {
		o.Set(kv.k, kv.v)
	}
	return o
}
