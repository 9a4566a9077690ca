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

// TestRepeatedNames: the names a form or query sends more than once are
// their values in order, under the names Params reads them as; Params
// itself keeps canon's last value, so that a scalar sent twice is one.
func TestRepeatedNames(t *testing.T) {
	d := New()
	const form = "application/x-www-form-urlencoded"
	for _, tc := range []struct {
		name, ctype, body, query string
		want                     map[string][]any
	}{
		{"form", form, "Permission=sendMessage&FriendlyName=r&Permission=leave%20it", "",
			map[string][]any{"permission": {"sendMessage", "leave it"}}},
		{"once", form, "Permission=sendMessage", "", nil},
		{"query", "", "", "Status=a&Status=b&PageSize=2", map[string][]any{"status": {"a", "b"}}},
		{"the body's replaces the query's", form, "Status[0]=c", "Status=a&Status=b", nil},
		{"a JSON body keeps names as sent", "application/json", `{"x":1}`, "Status=a&Status=b", map[string][]any{"Status": {"a", "b"}}},
		{"a dotted name is Params'", form, "A.B=1&A.B=2", "", map[string][]any{}},
		{"a lower-case dotted name is a name", form, "tag.name=a&tag.name=b", "", map[string][]any{"tag.name": {"a", "b"}}},
		{"both spellings repeated: the snake_case one's", form, "Permission=a&Permission=b&permission=c&permission=d", "", map[string][]any{"permission": {"c", "d"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if have := d.Repeated(tc.ctype, []byte(tc.body), tc.query); !reflect.DeepEqual(have, tc.want) {
				t.Errorf("Repeated: want %v, have %v", tc.want, have)
			}
		})
	}
	p, err := d.Params(form, []byte("FriendlyName=a&FriendlyName=b"), "")
	if err != nil || p["friendly_name"] != "b" {
		t.Errorf("Params: a name sent twice keeps its last value, as canon reads it: want friendly_name b, have %v (%v)", p, err)
	}
}
