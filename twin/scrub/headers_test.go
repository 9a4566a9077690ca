package scrub

import (
	"net/http"
	"slices"
	"testing"
)

func TestHeaders(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   http.Header
		want http.Header
	}{
		{"nil", nil, nil},
		{"empty", http.Header{}, http.Header{}},
		{"kept", http.Header{
			"Content-Type":    {"application/json"},
			"Stripe-Account":  {"acct_1"},
			"Idempotency-Key": {"k1"},
			"Request-Id":      {"req_1"},
			"Accept":          {"a", "b"},
		}, http.Header{
			"Content-Type":    {"application/json"},
			"Stripe-Account":  {"acct_1"},
			"Idempotency-Key": {"k1"},
			"Request-Id":      {"req_1"},
			"Accept":          {"a", "b"},
		}},
		{"credentials", http.Header{
			"Authorization":        {"Bearer sk_live_1"},
			"Proxy-Authorization":  {"Basic eA=="},
			"Cookie":               {"sid=1"},
			"Set-Cookie":           {"sid=1", "csrf=2"},
			"X-Api-Key":            {"k"},
			"Api-Key":              {"k"},
			"X-Auth-Token":         {"t"},
			"X-Csrf-Token":         {"t"},
			"X-Amz-Security-Token": {"t"},
			"X-Client-Secret":      {"s"},
			"Stripe-Account":       {"acct_1"},
		}, http.Header{
			"Stripe-Account": {"acct_1"},
		}},
		{"non-canonical names", http.Header{
			"authorization": {"Bearer x"},
			"x-api-key":     {"k"},
			"MY_SECRET":     {"s"},
			"x-request-id":  {"r"},
		}, http.Header{
			"x-request-id": {"r"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			have := Headers(tc.in)
			if (have == nil) != (tc.want == nil) || len(have) != len(tc.want) {
				t.Fatalf("Headers: want %v, have %v", tc.want, have)
			}
			for name, want := range tc.want {
				if got := have[name]; !slices.Equal(got, want) {
					t.Errorf("Headers[%s]: want %q, have %q", name, want, got)
				}
			}
		})
	}
}

func TestHeadersCopies(t *testing.T) {
	in := http.Header{"Accept": {"a"}}
	out := Headers(in)
	out["Accept"][0] = "changed"
	out.Set("X-New", "1")
	if have := in.Get("Accept"); have != "a" {
		t.Errorf("input Accept after editing the copy: want %q, have %q", "a", have)
	}
	if have := in.Get("X-New"); have != "" {
		t.Errorf("input X-New after editing the copy: want none, have %q", have)
	}
}
