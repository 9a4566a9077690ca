package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/wraithdev/wraith/twin/format"
)

// emit writes the twin's files: twin.toml, fixtures/baseline.json (when
// the import has fixtures of its resources) and import-report.json.
func (im *importer) emit() (*Result, error) {
	trie := newParamTrie()
	for _, o := range im.ops {
		trie.add(o.path, false)
	}
	for _, r := range im.resources {
		if !r.nested {
			trie.add(r.collection+"/{"+r.itemParam+"}", true)
		}
	}
	trie.assign(map[string]bool{})

	m := format.Manifest{
		Format:      format.Version,
		Name:        firstOf(im.opts.Name, im.ov.Twin.Name, "imported"),
		Provider:    firstOf(im.opts.Provider, im.ov.Twin.Provider, slug(im.doc.Info.Title), "api"),
		Upstream:    firstOf(im.ov.Twin.Upstream, im.server()),
		Description: firstOf(im.ov.Twin.Description, strings.TrimSpace(fmt.Sprintf("imported from %s %s", im.doc.Info.Title, im.doc.Info.Version))),
		Errors:      withExtraErrors(im.errorShapes(), im.ov.Errors),
		PII:         format.PII{Verbatim: im.verbatim()},
	}
	if v := m.PII.Verbatim; len(v) > 0 {
		im.report.inferred("pii", "verbatim", strings.Join(v, ","), "PII-shaped names whose schema a token would break (enums, patterns)", 1)
	}
	if !format.ValidName(m.Name) {
		return nil, fmt.Errorf("twin name %q must match %s: pass --name", m.Name, format.NamePattern)
	}
	if err := stamp(&m, im.report, im.ov.Source.Date, im.doc.Info, im.opts.Modified); err != nil {
		return nil, err
	}
	for _, r := range im.resources {
		m.Resources = append(m.Resources, im.manifestResource(r))
	}
	rep := im.report
	rep.Source = ReportSource{OpenAPI: im.doc.OpenAPI, Title: im.doc.Info.Title, Version: im.doc.Info.Version}
	rep.Counts.Operations = len(im.ops)
	rep.Counts.Resources = len(im.resources)
	for _, o := range im.ops {
		if im.sp.stopped() {
			return nil, im.sp.err
		}
		if _, ok := im.claimed[o.method+" "+o.path]; ok {
			rep.Counts.Stateful++
			continue
		}
		rt := format.Route{Method: o.method, Path: trie.rename(o.path)}
		if im.skipped(o, rt.Path) {
			continue
		}
		if status, s, _ := success(o.op); s != nil && s.Value != nil {
			rt.Body = compact(im.templateBody(s, o.path))
			if status != 200 {
				rt.Status = status
			}
			rep.Counts.Template++
		} else {
			rep.Counts.Unserved++
		}
		m.Routes = append(m.Routes, rt)
	}

	if im.sp.err != nil {
		return nil, im.sp.err
	}
	var buf bytes.Buffer
	if err := format.WriteManifest(&buf, &m); err != nil {
		return nil, err
	}
	files := map[string][]byte{"twin.toml": buf.Bytes()}
	if set := im.baseline(); set != nil {
		files["fixtures/baseline.json"] = set
	}
	files["import-report.json"] = rep.encode()
	return &Result{Files: files, Report: rep}, nil
}

// manifestResource is r as twin.toml declares it, the overlay merged in.
func (im *importer) manifestResource(r *resource) format.Resource {
	fr := format.Resource{
		Name:       r.name,
		Collection: r.collection,
		Item:       r.collection + "/{id}",
		IDPrefix:   r.idPrefix,
		Skeleton:   compact(r.skeleton),
		Delete:     r.delete,
		Omit:       r.omit,
		ListURL:    r.listURL,
	}
	im.nestedFields(r, &fr)
	if _, ok := r.skeleton["created"].(json.Number); ok {
		fr.Timestamps = []string{"created"}
	}
	for _, f := range []string{"id", "object", "created", "livemode"} {
		if _, ok := r.skeleton[f]; ok {
			fr.Immutable = append(fr.Immutable, f)
		}
	}
	if r.delete == "tombstone" {
		body, _ := im.sp.sample(r.deleted).(map[string]any)
		if body == nil {
			body = map[string]any{}
		}
		body["id"], body["deleted"] = "{id}", true
		if o := objectEnum(r.deleted.Value); o != "" {
			body["object"] = o
		}
		fr.DeletedBody = compact(body)
	}
	ov := im.ov.resource(r.name)
	overridden := map[string]*format.Action{}
	if ov != nil {
		for i := range ov.Actions {
			overridden[ov.Actions[i].Name] = &ov.Actions[i]
		}
	}
	for _, verb := range r.actions {
		a := format.Action{Name: verb}
		if o := overridden[verb]; o != nil {
			a = *o
			delete(overridden, verb)
		}
		fr.Actions = append(fr.Actions, a)
	}
	im.report.inferred(r.name, "routes", r.collection+" "+strings.Join(r.actions, ","), "collection/item pair", 1)
	if ov == nil {
		return fr
	}
	for _, name := range slices.Sorted(maps.Keys(overridden)) {
		im.report.unresolved(r.name, "overlay action "+name+" has no POST "+r.collection+"/{id}/"+name+" in the description: not served", "high")
	}
	fr.Create = ov.Create
	if ov.Delete != "" {
		fr.Delete = ov.Delete
	}
	fr.OnDelete = ov.OnDelete
	fr.Immutable = mergeSorted(fr.Immutable, ov.Immutable)
	fr.NestedDefaults, fr.Expand = ov.NestedDefaults, ov.Expand
	return fr
}

// baseline is fixtures/baseline.json: the fixtures of the stateful
// resources, one entity each, or nil.
func (im *importer) baseline() []byte {
	var ents []json.RawMessage
	taken := map[string]bool{}
	for _, r := range im.resources {
		if !strings.HasPrefix(r.from, "fixture") || r.nested {
			continue
		}
		o, _ := im.instance(r.ref, r.name)
		id, _ := o["id"].(string)
		if id == "" || o["object"] != r.name {
			continue
		}
		if taken[id] {
			// A session's world holds one entity per id; the description's
			// fixtures share placeholders (obj_123) across types, and a
			// resource without create is only ever read at its fixture.
			o["id"] = r.idPrefix + "baseline"
			im.report.inferred(r.name, "fixture_id", r.idPrefix+"baseline", "the fixture's id "+id+" is another type's too", 1)
		}
		taken[o["id"].(string)] = true
		ents = append(ents, json.RawMessage(compact(o)))
	}
	if len(ents) == 0 {
		return nil
	}
	b, _ := json.MarshalIndent(format.FixtureSet{Format: format.Version, Description: "one object of each stateful resource, from the description's fixtures", Entities: ents}, "", " ")
	return append(b, '\n')
}

func (im *importer) server() string {
	if len(im.doc.Servers) > 0 && im.doc.Servers[0] != nil {
		return im.doc.Servers[0].URL
	}
	return ""
}

var nonName = regexp.MustCompile(`[^a-z0-9]+`)

// slug makes a provider name from a title: "Stripe API" -> "stripe-api".
func slug(s string) string {
	return strings.Trim(nonName.ReplaceAllString(strings.ToLower(s), "-"), "-")
}

func firstOf(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

func mergeSorted(a, b []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range append(append([]string(nil), a...), b...) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}
