package server

import (
	"errors"
	"strings"
	"testing"
)

// TestShortHMACKeyRefused: a WRAITH_HMAC_KEY under 16 bytes is a usage
// error naming the variable and how to make a good key, as `wraith record`
// refuses it (one rule, scrub.KeyFromEnv); 16 bytes, or none, serves.
func TestShortHMACKeyRefused(t *testing.T) {
	for _, tc := range []struct {
		key    string
		refuse bool
	}{{"x", true}, {"0123456789abcde", true}, {"0123456789abcdef", false}, {"", false}} {
		srv, err := openWith(t, map[string]string{"WRAITH_HMAC_KEY": tc.key}, nil)
		if err == nil {
			srv.ln.Close()
		}
		var ue *UsageError
		refused := errors.As(err, &ue) && strings.Contains(err.Error(), "WRAITH_HMAC_KEY is") && strings.Contains(err.Error(), "openssl rand")
		if refused != tc.refuse || !tc.refuse && err != nil {
			t.Errorf("key of %d bytes: want refused %v, have %v", len(tc.key), tc.refuse, err)
		}
	}
}
