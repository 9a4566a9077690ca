package scrub

import (
	"bytes"
	"crypto/sha256"
	"strings"
	"testing"
)

func TestKeyFromEnv(t *testing.T) {
	for _, tc := range []struct {
		name    string
		env     map[string]string
		want    []byte // nil: random
		stable  bool
		wantErr string
	}{
		{"unset", nil, nil, false, ""},
		{"empty", map[string]string{"WRAITH_HMAC_KEY": ""}, nil, false, ""},
		{"set", map[string]string{"WRAITH_HMAC_KEY": "0123456789abcdef"}, []byte("0123456789abcdef"), true, ""},
		{"hex bytes are not decoded", map[string]string{"WRAITH_HMAC_KEY": strings.Repeat("ab", 32)}, []byte(strings.Repeat("ab", 32)), true, ""},
		{"too short", map[string]string{"WRAITH_HMAC_KEY": "hunter2"}, nil, false, "openssl rand -hex 32"},
		{"only spaces", map[string]string{"WRAITH_HMAC_KEY": strings.Repeat(" ", 16)}, nil, false, "only white space"},
		{"only tabs and newlines", map[string]string{"WRAITH_HMAC_KEY": strings.Repeat("\t\n", 16)}, nil, false, "openssl rand -hex 32"},
		{"trailing newline", map[string]string{"WRAITH_HMAC_KEY": "0123456789abcdef\n"}, nil, false, "white space"},
		{"leading space", map[string]string{"WRAITH_HMAC_KEY": " 0123456789abcdef"}, nil, false, "white space"},
		{"inner space is kept", map[string]string{"WRAITH_HMAC_KEY": "0123456789 abcdef"}, []byte("0123456789 abcdef"), true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key, stable, err := KeyFromEnv(func(name string) string { return tc.env[name] })
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("KeyFromEnv: want an error mentioning %q, have %v", tc.wantErr, err)
				}
				if strings.Contains(err.Error(), "hunter2") {
					t.Errorf("KeyFromEnv error: want the key kept out of it, have %q", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("KeyFromEnv: want no error, have %v", err)
			}
			if stable != tc.stable {
				t.Errorf("KeyFromEnv stable: want %v, have %v", tc.stable, stable)
			}
			if tc.want != nil {
				if !bytes.Equal(key, tc.want) {
					t.Errorf("KeyFromEnv: want %q, have %q", tc.want, key)
				}
				return
			}
			if len(key) != 32 {
				t.Errorf("KeyFromEnv random key: want 32 bytes, have %d", len(key))
			}
			other, _, _ := KeyFromEnv(func(string) string { return "" })
			if bytes.Equal(key, other) {
				t.Errorf("KeyFromEnv random keys: want them to differ, have %x twice", key)
			}
		})
	}
}

func TestDeriveKey(t *testing.T) {
	want := sha256.Sum256([]byte("wraith-serve-scrub-v1sha256:abc"))
	for _, tc := range []struct {
		name string
		seed string
		same bool
	}{
		{"same seed", "sha256:abc", true},
		{"other seed", "sha256:abd", false},
		{"empty seed", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			have := DeriveKey([]byte(tc.seed))
			if bytes.Equal(have, want[:]) != tc.same {
				t.Errorf("DeriveKey(%q): want same as sha256 of the prefixed seed=%v, have %x", tc.seed, tc.same, have)
			}
		})
	}
}
