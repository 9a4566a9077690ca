package server

import (
	"fmt"
	"testing"
)

// TestAnswersCarryContentLength checks that every kind of answer, small or
// large, goes out with a Content-Length and unchunked: the engine sets the
// header itself only for bodies of 2 KiB and more and leaves smaller ones
// to net/http, which counts them.
func TestAnswersCarryContentLength(t *testing.T) {
	checkout := startServer(t, "checkout", "--port", "0", "--seed", "42", "--clock", "deterministic").URL()
	minimal := startServer(t, "testdata/twins/minimal", "--port", "0").URL()
	for i := 0; i < 10; i++ {
		do(t, checkout, call{method: "POST", path: "/v1/customers", session: "len", form: fmt.Sprintf("email=c%d%%40example.com&description=customer+number+%d", i, i)})
	}
	tests := []struct {
		name string
		base string
		call call
		big  bool
	}{
		{"recorded", checkout, call{path: "/v1/customers/cus_123", session: "len"}, false},
		{"recorded, over 2 KiB", minimal, call{path: "/report"}, true},
		{"handler create", checkout, call{method: "POST", path: "/v1/customers", session: "len", form: "email=x%40example.com"}, false},
		{"handler list, over 2 KiB", checkout, call{path: "/v1/customers?limit=100", session: "len"}, true},
		{"route miss", checkout, call{path: "/v1/nothing-here", session: "len"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := do(t, tt.base, tt.call)
			if resp.StatusCode == 0 || len(body) == 0 {
				t.Fatalf("no answer: %d, %d bytes", resp.StatusCode, len(body))
			}
			if big := len(body) >= 2048; big != tt.big {
				t.Fatalf("the case needs a body %s 2 KiB; it has %d bytes", map[bool]string{true: "of at least", false: "under"}[tt.big], len(body))
			}
			if resp.ContentLength != int64(len(body)) || len(resp.TransferEncoding) > 0 {
				t.Errorf("Content-Length %d, Transfer-Encoding %v for a %d-byte body", resp.ContentLength, resp.TransferEncoding, len(body))
			}
		})
	}
}
