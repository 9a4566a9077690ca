package rest

import (
	"reflect"
	"testing"
)

func TestSnake(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"FriendlyName", "friendly_name", true},
		{"SmsUrl", "sms_url", true},
		{"SIPDomainSid", "sip_domain_sid", true},
		{"ApiVersion", "api_version", true},
		{"Area51Code", "area51_code", true},
		{"Sid", "sid", true},
		{"friendlyName", "", false},
		{"photoUrls", "", false},
		{"AutoCreation.WebhookUrl", "", false},
		{"", "", false},
	} {
		have, ok := snake(c.in)
		if have != c.want || ok != c.ok {
			t.Errorf("snake(%q): want %q %v, have %q %v", c.in, c.want, c.ok, have, ok)
		}
	}
}

// TestParamsSnakeCase: a form body's and a query's PascalCase names are
// read as snake_case on both paths the engine takes (Params and its fast
// path FlatParams); a JSON body's names are kept as sent.
func TestParamsSnakeCase(t *testing.T) {
	d := New()
	const form = "application/x-www-form-urlencoded"
	p, err := d.Params(form, []byte("FriendlyName=Ada&VoiceUrl=https%3A%2F%2Fx&tag=t"), "")
	if err != nil {
		t.Fatal(err)
	}
	if p["friendly_name"] != "Ada" || p["voice_url"] != "https://x" || p["tag"] != "t" || p["FriendlyName"] != nil {
		t.Errorf("Params of a form: want friendly_name, voice_url and tag, have %v", p)
	}
	flat, ok := d.FlatParams(nil, form, []byte("FriendlyName=Ada&VoiceUrl=https%3A%2F%2Fx&tag=t"), "")
	if !ok || len(flat) != 3 || flat[0].Name != "friendly_name" || flat[1].Name != "tag" || flat[2].Name != "voice_url" {
		t.Errorf("FlatParams of a form: want friendly_name, tag, voice_url sorted, have %v %v", flat, ok)
	}
	if _, ok := d.FlatParams(nil, form, []byte("FriendlyName=a&friendly_name=b"), ""); ok {
		t.Error("FlatParams: want a name sent in both spellings left to Params")
	}
	p, err = d.Params("application/json", []byte(`{"FriendlyName":"Ada"}`), "")
	if err != nil || p["FriendlyName"] != "Ada" || p["friendly_name"] != nil {
		t.Errorf("Params of JSON: want FriendlyName kept, have %v %v", p, err)
	}
}

// TestParamsMultipart: a multipart/form-data body is read as a form: a
// text part is its value, a file part its file name.
func TestParamsMultipart(t *testing.T) {
	body := "--b\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nfine-tune\r\n" +
		"--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"data.jsonl\"\r\nContent-Type: application/octet-stream\r\n\r\n{\"a\":1}\r\n--b--\r\n"
	d := New()
	p, err := d.Params("multipart/form-data; boundary=b", []byte(body), "")
	if err != nil || p["purpose"] != "fine-tune" || p["file"] != "data.jsonl" {
		t.Errorf("Params: want purpose and the file's name, have %v %v", p, err)
	}
	flat, ok := d.FlatParams(nil, "multipart/form-data; boundary=b", []byte(body), "")
	if !ok || len(flat) != 2 || flat[0].Name != "file" || flat[1].Value != "fine-tune" {
		t.Errorf("FlatParams: want file and purpose, have %v %v", flat, ok)
	}
	if _, err := d.Params("multipart/form-data; boundary=b", []byte("--b\r\nbroken"), ""); err == nil {
		t.Error("Params: want a broken multipart body refused")
	}
}

// TestParamsDotted: a form's dotted PascalCase name sets the nested
// snake_case field, and leaves the fast path to Params.
func TestParamsDotted(t *testing.T) {
	const form = "application/x-www-form-urlencoded"
	body := []byte("AutoCreation.WebhookUrl=https%3A%2F%2Fh&AutoCreation.Type=webhook&Type=sms&a.b=c")
	p, err := New().Params(form, body, "")
	if err != nil {
		t.Fatal(err)
	}
	ac, _ := p["auto_creation"].(map[string]any)
	if ac["webhook_url"] != "https://h" || ac["type"] != "webhook" || p["type"] != "sms" || p["a.b"] != "c" {
		t.Errorf("want auto_creation{webhook_url,type}, type, and a.b kept, have %v", p)
	}
	if _, ok := New().FlatParams(nil, form, body, ""); ok {
		t.Error("FlatParams: want a dotted name left to Params")
	}
}

// TestParamsRepeatedNames: a name sent more than once in a form or a
// query is the list of its values, in order (OpenAPI's form style,
// exploded), where canon keeps the last; the body's replaces the
// query's; the fast path leaves such a request to Params.
func TestParamsRepeatedNames(t *testing.T) {
	d := New()
	const form = "application/x-www-form-urlencoded"
	for _, tc := range []struct {
		name, body, query string
		want              map[string]any
	}{
		{"form", "Permission=sendMessage&FriendlyName=r&Permission=leave%20it", "",
			map[string]any{"permission": []any{"sendMessage", "leave it"}, "friendly_name": "r"}},
		{"once", "Permission=sendMessage", "", map[string]any{"permission": "sendMessage"}},
		{"query", "", "Status=a&Status=b&PageSize=2",
			map[string]any{"status": []any{"a", "b"}, "page_size": "2"}},
		{"the body's replaces the query's", "Status=c", "Status=a&Status=b", map[string]any{"status": "c"}},
		{"bracketed names are canon's", "tags[]=a&tags[]=b", "", map[string]any{"tags": []any{"a", "b"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := d.Params(form, []byte(tc.body), tc.query)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p, tc.want) {
				t.Errorf("Params: want %v, have %v", tc.want, p)
			}
		})
	}
	if _, ok := d.FlatParams(nil, form, []byte("Permission=a&Permission=b"), ""); ok {
		t.Error("FlatParams read a repeated name: want it left to Params, which keeps every value")
	}
	if flat, ok := d.FlatParams(nil, form, []byte("Permission=a&FriendlyName=r"), ""); !ok || len(flat) != 2 {
		t.Errorf("FlatParams: want the two names of a form that repeats none, have %v %v", flat, ok)
	}
	p, err := d.Params("application/json", []byte(`{"Permission":"a"}`), "Permission=a&Permission=b")
	if err != nil || p["Permission"] != "a" {
		t.Errorf("a JSON body's name replaces the query's: want Permission a, have %v (%v)", p, err)
	}
}
