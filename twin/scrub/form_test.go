package scrub

import (
	"net/url"
	"testing"
)

func TestQuery(t *testing.T) {
	for _, tc := range []struct {
		name   string
		policy Policy
		in     string
		want   string
	}{
		{"empty", Policy{}, "", ""},
		{"untouched", Policy{}, "limit=3&starting_after=cus_1&expand%5B%5D=data.customer", "limit=3&starting_after=cus_1&expand%5B%5D=data.customer"},
		{"email", Policy{}, "email=jenny%40example.com&limit=1", "email=<<jenny@example.com>>&limit=1"},
		{"bracket field", Policy{}, "customer[email]=a%40b.co", "customer[email]=<<a@b.co>>"},
		{"encoded brackets", Policy{}, "customer%5Bemail%5D=a%40b.co", "customer%5Bemail%5D=<<a@b.co>>"},
		{"under a pii segment", Policy{}, "shipping[address][country]=US", "shipping[address][country]=<<US>>"},
		{"suffix segment", Policy{}, "billing_details[billing_email]=a%40b.co", "billing_details[billing_email]=<<a@b.co>>"},
		{"array element", Policy{}, "name[]=Jenny&name[]=Bob", "name[]=<<Jenny>>&name[]=<<Bob>>"},
		{"indexed", Policy{}, "items[0][name]=Jenny+Rosen", "items[0][name]=<<Jenny Rosen>>"},
		{"metadata", Policy{}, "metadata[order_id]=6735&metadata[email]=a%40b.co", "metadata[order_id]=6735&metadata[email]=<<a@b.co>>"},
		{"metadata named like a field", Policy{}, "metadata[source]=email", "metadata[source]=email"},
		{"empty value", Policy{}, "email=&name", "email=&name"},
		{"phone", Policy{}, "phone=%2B14155550199", "phone=<<+14155550199>>"},
		{"bad escape tokenized raw", Policy{}, "name=%zz", "name=<<%zz>>"},
		{"verbatim", Policy{Verbatim: []string{"name"}}, "name=Gold&customer_name=Jenny", "name=Gold&customer_name=<<Jenny>>"},
		{"verbatim segment", Policy{Verbatim: []string{"metadata"}}, "metadata[email]=a%40b.co", "metadata[email]=a%40b.co"},
		{"credential", Policy{}, "api_key=sk_live_1&limit=3", "limit=3"},
		{"credential last", Policy{}, "limit=3&access_token=abc", "limit=3"},
		{"credential middle", Policy{}, "a=1&token=abc&b=2", "a=1&b=2"},
		{"credential case", Policy{}, "API_KEY=x&Password=y&Secret=z&Key=k&apikey=a&client_secret=c", ""},
		{"credential without value", Policy{}, "token&a=1", "a=1"},
		{"encoded credential", Policy{}, "api%5Fkey=x&a=1", "a=1"},
		{"bracketed credential", Policy{}, "card[token]=tok_visa&card[cvc]=123&a=1", "a=1"},
		{"credential by pattern", Policy{}, "refresh_token=r&X-Amz-Signature=s&X-Amz-Credential=c&db_passwd=p&oauth_verifier=v&sig=s&a=1", "a=1"},
		{"credential-like names kept", Policy{}, "idempotency_key=1&token_type=bearer&author=me&max_tokens=100", "idempotency_key=1&token_type=bearer&author=me&max_tokens=100"},
		{"countable name with a secret", Policy{}, "tokens=abc&a=1", "a=1"},
		{"empty pairs kept", Policy{}, "a=1&&email=x", "a=1&&email=<<x>>"},
		{"already scrubbed", Policy{}, "email=tok_0123456789ab%40example.invalid", "email=tok_0123456789ab%40example.invalid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New([]byte(testKey), tc.policy)
			want := expand(t, tc.want, func(v string) string { return url.QueryEscape(s.Token("", v)) })
			if have := s.Query(tc.in); have != want {
				t.Errorf("Query(%q):\nwant %q\nhave %q", tc.in, want, have)
			}
			if have := s.Form(tc.in); have != want {
				t.Errorf("Form(%q):\nwant %q\nhave %q", tc.in, want, have)
			}
			if again := s.Query(want); again != want {
				t.Errorf("Query twice: want %q, have %q", want, again)
			}
		})
	}
}
