package scrub

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

// expand replaces each <<value>> in want with tok(value), so that
// expectations read as the documents they describe.
func expand(tb testing.TB, want string, tok func(value string) string) string {
	tb.Helper()
	return regexp.MustCompile(`<<([^>]*)>>`).ReplaceAllStringFunc(want, func(m string) string {
		return tok(m[2 : len(m)-2])
	})
}

func TestJSON(t *testing.T) {
	for _, tc := range []struct {
		name   string
		policy Policy
		in     string
		want   string
	}{
		{"top-level fields", Policy{},
			`{"id":"cus_1","email":"jenny@example.com","name":"Jenny Rosen","phone":"+14155550199"}`,
			`{"id":"cus_1","email":"<<jenny@example.com>>","name":"<<Jenny Rosen>>","phone":"<<+14155550199>>"}`},
		{"key order kept", Policy{},
			`{"z":1,"name":"a","b":2,"a":3}`,
			`{"z":1,"name":"<<a>>","b":2,"a":3}`},
		{"compacted", Policy{},
			"{\n  \"name\" : \"a\" ,\n\t\"n\": [ 1 , 2 ]\r\n}\n",
			`{"name":"<<a>>","n":[1,2]}`},
		{"numbers kept as written", Policy{},
			`{"a":1.50,"b":-0e+10,"c":12345678901234567890,"phone":5550199}`,
			`{"a":1.50,"b":-0e+10,"c":12345678901234567890,"phone":5550199}`},
		{"literals under pii", Policy{},
			`{"email":null,"name":true,"phone":false}`,
			`{"email":null,"name":true,"phone":false}`},
		{"empty string stays", Policy{}, `{"email":""}`, `{"email":""}`},
		{"nested field", Policy{},
			`{"data":[{"customer":{"email":"a@b.co","id":"x"}}]}`,
			`{"data":[{"customer":{"email":"<<a@b.co>>","id":"x"}}]}`},
		{"object under pii", Policy{},
			`{"address":{"line1":"1 Main St","state":"CA","country":"US","geo":{"lat":1.5,"label":"home"}},"state":"open"}`,
			`{"address":{"line1":"<<1 Main St>>","state":"<<CA>>","country":"<<US>>","geo":{"lat":1.5,"label":"<<home>>"}},"state":"open"}`},
		{"array under pii", Policy{},
			`{"emails":["a"],"email":["a@b.co","c@d.co",7,null,["nested"]]}`,
			`{"emails":["<<a>>"],"email":["<<a@b.co>>","<<c@d.co>>",7,null,["<<nested>>"]]}`},
		{"suffix", Policy{},
			`{"billing_email":"a@b.co","receipt_email":"a@b.co","email_verified":"yes"}`,
			`{"billing_email":"<<a@b.co>>","receipt_email":"<<a@b.co>>","email_verified":"yes"}`},
		{"key case", Policy{}, `{"EMAIL":"a@b.co"}`, `{"EMAIL":"<<a@b.co>>"}`},
		{"escaped key", Policy{}, `{"em\u0061il":"a@b.co"}`, `{"em\u0061il":"<<a@b.co>>"}`},
		{"escaped value", Policy{}, `{"name":"J\u00e9nny \"R\""}`, `{"name":"<<Jénny "R">>"}`},
		{"escapes outside pii kept", Policy{}, `{"d":"\u00e9\n\/"}`, `{"d":"\u00e9\n\/"}`},
		{"metadata keys", Policy{},
			`{"metadata":{"order_id":"6735","email":"a@b.co"}}`,
			`{"metadata":{"order_id":"6735","email":"<<a@b.co>>"}}`},
		{"key that is a pii value", Policy{}, `{"name":{"name":"x"}}`, `{"name":{"name":"<<x>>"}}`},
		{"values named like fields", Policy{}, `{"type":"email","list":["name"]}`, `{"type":"email","list":["name"]}`},
		{"verbatim field", Policy{Verbatim: []string{"name"}},
			`{"name":"Gold plan","customer_name":"Jenny"}`,
			`{"name":"Gold plan","customer_name":"<<Jenny>>"}`},
		{"verbatim subtree", Policy{Verbatim: []string{"metadata"}},
			`{"metadata":{"email":"a@b.co"},"email":"a@b.co"}`,
			`{"metadata":{"email":"a@b.co"},"email":"<<a@b.co>>"}`},
		{"verbatim inside pii", Policy{Verbatim: []string{"country"}},
			`{"address":{"country":"US","city":"Paris"}}`,
			`{"address":{"country":"US","city":"<<Paris>>"}}`},
		{"custom fields", Policy{Fields: []string{"handle"}},
			`{"handle":"@jr","email":"a@b.co"}`,
			`{"handle":"<<@jr>>","email":"a@b.co"}`},
		{"already scrubbed", Policy{},
			`{"email":"tok_0123456789ab@example.invalid","phone":"+15550123456","name":"tok_0123456789ab"}`,
			`{"email":"tok_0123456789ab@example.invalid","phone":"+15550123456","name":"tok_0123456789ab"}`},
		{"top-level string", Policy{}, `"jenny@example.com"`, `"jenny@example.com"`},
		{"top-level array", Policy{}, ` [ {"name":"a"} , {} , [] ] `, `[{"name":"<<a>>"},{},[]]`},
		{"empty object", Policy{}, `{}`, `{}`},
		{"duplicate keys", Policy{}, `{"name":"a","name":"b"}`, `{"name":"<<a>>","name":"<<b>>"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New([]byte(testKey), tc.policy)
			want := expand(t, tc.want, func(v string) string { return s.Token("", v) })
			have, err := s.JSON([]byte(tc.in))
			if err != nil {
				t.Fatalf("JSON(%s): want no error, have %v", tc.in, err)
			}
			if !json.Valid(have) {
				t.Errorf("JSON(%s): want valid JSON, have %s", tc.in, have)
			}
			if string(have) != want {
				t.Errorf("JSON(%s):\nwant %s\nhave %s", tc.in, want, have)
			}
			again, err := s.JSON(have)
			if err != nil || string(again) != string(have) {
				t.Errorf("JSON twice: want %s, have %s (%v)", have, again, err)
			}
		})
	}
}

func TestJSONInvalid(t *testing.T) {
	s := New([]byte(testKey), Policy{})
	for _, in := range []string{``, `{`, `{"a":}`, `{"a":1,}`, `[1 2]`, `"\x"`, `{} {}`, `nul`} {
		t.Run(in, func(t *testing.T) {
			have, err := s.JSON([]byte(in))
			if err == nil {
				t.Errorf("JSON(%q): want an error, have %s", in, have)
			}
		})
	}
}

func TestJSONCustomer(t *testing.T) {
	body, err := os.ReadFile("testdata/customer.json")
	if err != nil {
		t.Fatal(err)
	}
	s := New([]byte(testKey), Policy{})
	out, err := s.JSON(body)
	if err != nil {
		t.Fatalf("JSON(customer): %v", err)
	}
	var have struct {
		ID       string            `json:"id"`
		Email    string            `json:"email"`
		Phone    string            `json:"phone"`
		Address  map[string]string `json:"address"`
		Metadata map[string]string `json:"metadata"`
		Shipping struct {
			Name    string         `json:"name"`
			Phone   string         `json:"phone"`
			Address map[string]any `json:"address"`
		} `json:"shipping"`
		Description string `json:"description"`
	}
	if err := json.Unmarshal(out, &have); err != nil {
		t.Fatalf("JSON(customer) output: %v\n%s", err, out)
	}
	for _, tc := range []struct{ name, want, have string }{
		{"id", "cus_PqR7sT9uVwXyZa", have.ID},
		{"email", s.Token("", "jenny.rosen@example.com"), have.Email},
		{"phone", s.Token("", "+1 (415) 555-0199"), have.Phone},
		{"address.line1", s.Token("", "510 Townsend Street"), have.Address["line1"]},
		{"address.state", s.Token("", "CA"), have.Address["state"]},
		{"metadata.order_id", "6735", have.Metadata["order_id"]},
		{"shipping.name", s.Token("", "Jenny Rosen"), have.Shipping.Name},
		{"shipping.address.city", s.Token("", "Oakland"), have.Shipping.Address["city"].(string)},
		{"description", "Enterprise plan, invoiced monthly", have.Description},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.have != tc.want {
				t.Errorf("%s: want %q, have %q", tc.name, tc.want, tc.have)
			}
		})
	}
	if have.Shipping.Address["line2"] != nil {
		t.Errorf("shipping.address.line2: want null, have %v", have.Shipping.Address["line2"])
	}
}

func TestJSONDeep(t *testing.T) {
	s := New([]byte(testKey), Policy{})
	for _, tc := range []struct {
		name  string
		depth int
		valid bool
	}{
		{"deepest json.Valid allows", 10000, true},
		{"deeper", 10001, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := strings.Repeat(`{"name":[`, tc.depth/2) + `"x"` + strings.Repeat(`]}`, tc.depth/2)
			if tc.depth%2 == 1 {
				in = "[" + in + "]"
			}
			out, err := s.JSON([]byte(in))
			if (err == nil) != tc.valid {
				t.Fatalf("JSON at depth %d: want valid=%v, have error %v", tc.depth, tc.valid, err)
			}
			if tc.valid && !json.Valid(out) {
				t.Errorf("JSON at depth %d: want valid output", tc.depth)
			}
		})
	}
}
