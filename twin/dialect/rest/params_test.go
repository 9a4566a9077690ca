package rest

import (
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
