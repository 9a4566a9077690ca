package scrub

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"regexp"
	"testing"
)

// testKey is a fixed key so that failures reproduce.
const testKey = "0123456789abcdef0123456789abcdef"

func TestTokenShape(t *testing.T) {
	var (
		genericShape = regexp.MustCompile(`^tok_[0-9a-f]{12}$`)
		emailShape   = regexp.MustCompile(`^tok_[0-9a-f]{12}@example\.invalid$`)
		phoneShape   = regexp.MustCompile(`^\+1555[0-9]{7}$`)
	)
	s := New([]byte(testKey), Policy{})
	for _, tc := range []struct {
		name  string
		value string
		shape *regexp.Regexp // nil: unchanged
	}{
		{"empty", "", nil},
		{"email", "jenny.rosen@example.com", emailShape},
		{"email with plus", "jenny+test@mail.example.co.uk", emailShape},
		{"two @ is not an email", "a@b@example.com", genericShape},
		{"no dot in domain", "root@localhost", genericShape},
		{"dot at domain end", "a@example.", genericShape},
		{"dot at domain start", "a@.example", genericShape},
		{"empty local part", "@example.com", genericShape},
		{"space in email", "jenny rosen@example.com", genericShape},
		{"phone e164", "+14155550199", phoneShape},
		{"phone formatted", "+1 (415) 555-0199", phoneShape},
		{"phone national", "030 1234567", phoneShape},
		{"phone seven digits", "5550199", phoneShape},
		{"six digits", "555019", genericShape},
		{"twenty one bytes", "+1 415 555 0199 00 00", genericShape},
		{"plus inside", "415+5550199", genericShape},
		{"mostly punctuation", "(1)-(2)-(3)-(4)-(5)-(6)-(7)", genericShape},
		{"ipv4", "192.168.100.200", genericShape},
		{"iso date", "1990-01-15", genericShape},
		{"ssn", "123-45-6789", phoneShape},
		{"name", "Jenny Rosen", genericShape},
		{"unicode", "Zoë Ångström", genericShape},
		{"postal code", "94103", genericShape},
		{"generic token", "tok_0123456789ab", nil},
		{"email token", "tok_0123456789ab@example.invalid", nil},
		{"phone token", "+15550123456", nil},
		{"upper hex is not a token", "tok_0123456789AB", genericShape},
		{"short hex is not a token", "tok_0123456789a", genericShape},
		{"other domain is not a token", "tok_0123456789ab@example.com", emailShape},
		{"stripe token is not ours", "tok_visa", genericShape},
	} {
		t.Run(tc.name, func(t *testing.T) {
			have := s.Token("field", tc.value)
			if tc.shape == nil {
				if have != tc.value {
					t.Errorf("Token(%q): want it unchanged, have %q", tc.value, have)
				}
				return
			}
			if !tc.shape.MatchString(have) {
				t.Errorf("Token(%q): want shape %s, have %q", tc.value, tc.shape, have)
			}
			if again := s.Token("field", have); again != have {
				t.Errorf("Token(Token(%q)): want %q, have %q", tc.value, have, again)
			}
		})
	}
}

// TestTokenDerivation pins the derivation, since changing it changes every
// packed twin's digest: an independent HMAC computation must agree.
func TestTokenDerivation(t *testing.T) {
	s := New([]byte(testKey), Policy{})
	for _, tc := range []struct {
		name  string
		value string
		want  func(sum []byte) string
	}{
		{"generic", "Jenny Rosen", func(sum []byte) string { return "tok_" + hex.EncodeToString(sum[:6]) }},
		{"email", "jenny@example.com", func(sum []byte) string { return "tok_" + hex.EncodeToString(sum[:6]) + "@example.invalid" }},
		{"phone", "+14155550199", func(sum []byte) string {
			return fmt.Sprintf("+1555%07d", binary.BigEndian.Uint64(sum[:8])%10_000_000)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := hmac.New(sha256.New, []byte(testKey))
			m.Write([]byte(tc.value))
			want := tc.want(m.Sum(nil))
			if have := s.Token("", tc.value); have != want {
				t.Errorf("Token(%q): want %q, have %q", tc.value, want, have)
			}
		})
	}
}

func TestTokenKey(t *testing.T) {
	const value = "jenny.rosen@example.com"
	a := New([]byte(testKey), Policy{}).Token("email", value)
	for _, tc := range []struct {
		name  string
		key   []byte
		field string
		same  bool
	}{
		{"same key", []byte(testKey), "email", true},
		{"same key, other field", []byte(testKey), "billing_email", true},
		{"same key, other policy", []byte(testKey), "", true},
		{"other key", []byte("fedcba9876543210fedcba9876543210"), "email", false},
		{"derived key", DeriveKey([]byte("twin digest")), "email", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := New(tc.key, Policy{Fields: []string{"x"}}).Token(tc.field, value)
			if (a == b) != tc.same {
				t.Errorf("Token(%q) under %q: want same=%v, have %q and %q", value, tc.key, tc.same, a, b)
			}
		})
	}
}

func TestNewCopiesKey(t *testing.T) {
	key := []byte(testKey)
	s := New(key, Policy{})
	want := s.Token("", "Jenny Rosen")
	key[0] ^= 0xff
	if have := New([]byte(testKey), Policy{}).Token("", "Jenny Rosen"); have != want {
		t.Errorf("Token after the caller changed its key: want %q, have %q", want, have)
	}
	if have := s.Token("", "Jenny Rosen"); have != want {
		t.Errorf("Token after the caller changed its key: want %q, have %q", want, have)
	}
}

func TestTokenConcurrent(t *testing.T) {
	s := New([]byte(testKey), Policy{})
	want := s.Token("", "jenny@example.com")
	done := make(chan string)
	for range 8 {
		go func() {
			var have string
			for range 200 {
				have = s.Token("", "jenny@example.com")
				if have != want {
					break
				}
			}
			done <- have
		}()
	}
	for range 8 {
		if have := <-done; have != want {
			t.Errorf("concurrent Token: want %q, have %q", want, have)
		}
	}
}
