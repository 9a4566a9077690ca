package format

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"
)

const goodManifest = `format = 1
name = "demo"
[[resources]]
name = "widget"
collection = "/widgets"
item = "/widgets/{id}"
id_prefix = "wid_"
skeleton = '{"id":"","object":"widget"}'
`

const goodExchange = `{"format":1,"recorded_at":"2026-01-01T00:00:00Z",
 "request":{"method":"GET","path":"/widgets/wid_1"},
 "response":{"status":200,"body":{"id":"wid_1","object":"widget"}}}`

func TestLoadGoodTwin(t *testing.T) {
	fsys := fstest.MapFS{
		"twin.toml":              {Data: []byte(goodManifest)},
		"recordings/r1/0.json":   {Data: []byte(goodExchange)},
		"recordings/r1/1.json":   {Data: []byte(strings.Replace(goodExchange, "00:00:00", "00:00:05", 1))},
		"recordings/r0/0.json":   {Data: []byte(goodExchange)},
		"fixtures/baseline.json": {Data: []byte(`{"format":1,"entities":[{"id":"wid_f","object":"widget"}]}`)},
	}
	tw, err := Load(fsys, "demo")
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if len(tw.Exchanges) != 3 || tw.Exchanges[0].Recording != "r0" || tw.Exchanges[2].Index != 1 {
		t.Errorf("exchanges: want r0/0, r1/0, r1/1 in order, have %d", len(tw.Exchanges))
	}
	if have := tw.RecordedAt.Format("15:04:05"); have != "00:00:05" {
		t.Errorf("recorded_at: want the newest exchange's 00:00:05, have %s", have)
	}
	if !strings.HasPrefix(tw.Digest, "sha256:") || len(tw.Digest) != len("sha256:")+64 {
		t.Errorf("digest %q", tw.Digest)
	}
	again, _ := Load(fsys, "demo")
	if again.Digest != tw.Digest {
		t.Error("digest is not stable across loads")
	}
	fsys[".git/HEAD"] = &fstest.MapFile{Data: []byte("ref: main")}
	fsys["fixtures/.baseline.json.swp"] = &fstest.MapFile{Data: []byte("x")}
	if d, err := Digest(fsys); err != nil || d != tw.Digest {
		t.Errorf("dotfiles and dot-folders must not count: digest %s, want %s (%v)", d, tw.Digest, err)
	}
	fsys["recordings/r0/0.json"] = &fstest.MapFile{Data: []byte(strings.Replace(goodExchange, "wid_1", "wid_2", 2))}
	changed, _ := Load(fsys, "demo")
	if changed.Digest == tw.Digest {
		t.Error("digest did not change when a recording changed")
	}
}

func TestLoadReportsEveryProblem(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"no manifest", map[string]string{}, []string{"no twin.toml"}},
		{"unknown key", map[string]string{"twin.toml": goodManifest + "colour = 1\n"}, []string{"line 9", `unknown key "resources.colour"`}},
		{"wrong type", map[string]string{"twin.toml": "format = \"one\"\n"}, []string{"line 1", "format"}},
		{"bad resource", map[string]string{"twin.toml": "format = 1\nname = \"x\"\n[[resources]]\nname = \"w\"\ncollection = \"widgets\"\nitem = \"/w/{id}\"\nskeleton = \"[\"\ndelete = \"sometimes\"\n"},
			[]string{"collection \"widgets\" must be a path", "item \"/w/{id}\"", "id_prefix is required", "skeleton is not a JSON object", `delete "sometimes"`}},
		{"bad name and format", map[string]string{"twin.toml": "format = 2\nname = \"../etc\"\n"}, []string{"format is 2, want 1", `name "../etc"`}},
		{"bad exchange", map[string]string{"twin.toml": goodManifest, "recordings/r1/0.json": `{"format":1,"request":{"method":"FETCH","path":"x"},"response":{"status":42}}`},
			[]string{"recordings/r1/0.json", "recorded_at is missing", `method "FETCH"`, `path "x" must start with /`, "status 42"}},
		{"unknown exchange field", map[string]string{"twin.toml": goodManifest, "recordings/r1/0.json": `{"format":1,"extra":true}`}, []string{"recordings/r1/0.json", "unknown field"}},
		{"misnamed exchange", map[string]string{"twin.toml": goodManifest, "recordings/r1/first.json": goodExchange}, []string{"first.json", "<index>.json"}},
		{"bad fixture", map[string]string{"twin.toml": goodManifest, "fixtures/base.json": `{"format":1,"entities":[{"object":"widget"}]}`}, []string{"fixtures/base.json", "entities[0]"}},
		{"bad rule", map[string]string{"twin.toml": goodManifest + "[[resources.create]]\nset = { at = \"$later\" }\n"}, []string{"$later", "$now"}},
		{"bad answer", map[string]string{"twin.toml": goodManifest + "[errors.not_found]\nstatus = 1000\nbody = \"{\"\n"}, []string{"errors.not_found.status 1000", "errors.not_found.body is not valid JSON"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for name, data := range tt.files {
				fsys[name] = &fstest.MapFile{Data: []byte(data)}
			}
			_, err := Load(fsys, "demo")
			if err == nil {
				t.Fatal("want an error, have none")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not mention %q:\n%v", w, err)
				}
			}
			var p Problems
			if tt.name != "no manifest" && !errors.As(err, &p) {
				t.Errorf("want Problems, have %T", err)
			}
		})
	}
}

func TestFill(t *testing.T) {
	tests := []struct{ tmpl, want string }{
		{`{"m":"No such {object}: '{id}'"}`, `{"m":"No such customer: 'cus_\"x'"}`},
		{`{"m":"{unknown} {id"}`, `{"m":"{unknown} {id"}`},
		{`{"plain":true}`, `{"plain":true}`},
	}
	for _, tt := range tests {
		if have := Fill(tt.tmpl, map[string]string{"id": `cus_"x`, "object": "customer"}); have != tt.want {
			t.Errorf("Fill(%s): want %s, have %s", tt.tmpl, tt.want, have)
		}
	}
}
