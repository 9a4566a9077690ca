package scrub

import (
	"sort"
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/scrub/scrubtest"
)

// liveKey has the characters a provider escapes: "/", "+", "=" and "_".
const liveKey = "sk_live_Ab/Cd+Ef=Gh_51HxYz"

// TestContainsLive: every encoding of the key is found inside other text,
// and text without it is not.
func TestContainsLive(t *testing.T) {
	for name, enc := range scrubtest.LiveEncodings(liveKey) {
		t.Run(name, func(t *testing.T) {
			text := "before " + enc + " after"
			if !ContainsLive([]byte(text), liveKey) {
				t.Errorf("ContainsLive(%q): want true, have false", text)
			}
		})
	}
	for _, text := range []string{"", "sk_live_Ab/Cd+Ef=Gh_51HxY", "%73k_live_Ab/Cd+Ef=Gh_51HxYZz"[:10], "&#;&#x;&sol\\u00 %zz \\"} {
		if ContainsLive([]byte(text), liveKey) {
			t.Errorf("ContainsLive(%q): want false, have true", text)
		}
	}
}

// TestEchoReplacesEncodedLive: Echo replaces every encoding of a
// registered live key where it stands, and leaves the text around it.
func TestEchoReplacesEncodedLive(t *testing.T) {
	s := New([]byte("live-test-key-0123456789"), Policy{})
	tok := s.SecretToken(liveKey)
	for name, enc := range scrubtest.LiveEncodings(liveKey) {
		t.Run(name, func(t *testing.T) {
			p := s.NewPass()
			p.Secret(liveKey)
			have := p.Echo("before " + enc + " after")
			if ContainsLive([]byte(have), liveKey) {
				t.Errorf("Echo(%q) = %q: still holds the key", enc, have)
			}
			if !strings.HasPrefix(have, "before ") || !strings.HasSuffix(have, " after") {
				t.Errorf("Echo(%q) = %q: want the text around the key kept", enc, have)
			}
			if !strings.Contains(have, tok) {
				t.Errorf("Echo(%q) = %q: want the key's token %s in its place", enc, have, tok)
			}
		})
	}
}

// TestEchoPairsLive: in a form, the live key is found before the form is
// split and decoded: its "+" would read as a space, and an HTML-entity
// form of it would be split at every "&".
func TestEchoPairsLive(t *testing.T) {
	s := New([]byte("live-test-key-0123456789"), Policy{})
	for name, enc := range scrubtest.LiveEncodings(liveKey) {
		t.Run(name, func(t *testing.T) {
			p := s.NewPass()
			p.Secret(liveKey)
			have := p.EchoPairs("echo=" + enc + "&scope=read")
			if ContainsLive([]byte(have), liveKey) {
				t.Errorf("EchoPairs(echo=%s) = %q: still holds the key", enc, have)
			}
			if !strings.HasSuffix(have, "&scope=read") {
				t.Errorf("EchoPairs(echo=%s) = %q: want the other pair kept", enc, have)
			}
		})
	}
}

// BenchmarkContainsLive: the last check's cost on a 1 MiB body that holds
// no key, plain and full of escapes (every layer then decodes).
func BenchmarkContainsLive(b *testing.B) {
	for _, tc := range []struct{ name, unit string }{
		{"plain", "the quick brown fox jumps over the lazy dog. "},
		{"escapes", `%2541&#x41;\u0041&amp;\\x41 `},
	} {
		text := []byte(strings.Repeat(tc.unit, (1<<20)/len(tc.unit)))
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for i := 0; i < b.N; i++ {
				if ContainsLive(text, liveKey) {
					b.Fatal("found a key that is not there")
				}
			}
		})
	}
}

// FuzzEchoLive: whatever text surrounds an encoded key, Echo leaves no
// form of it that ContainsLive finds, and never touches text without one.
func FuzzEchoLive(f *testing.F) {
	encs := scrubtest.LiveEncodings(liveKey)
	names := make([]string, 0, len(encs))
	for n := range encs {
		names = append(names, n)
	}
	sort.Strings(names)
	f.Add("a ", " b", uint8(0), uint8(1))
	f.Add("%", "%25", uint8(3), uint8(7))
	f.Add("&#", ";\\", uint8(9), uint8(200))
	s := New([]byte("live-test-key-0123456789"), Policy{})
	f.Fuzz(func(t *testing.T, before, after string, a, b uint8) {
		text := before + encs[names[int(a)%len(names)]] + after
		if b%2 == 0 {
			text += encs[names[int(b)%len(names)]]
		}
		p := s.NewPass()
		p.Secret(liveKey)
		if have := p.Echo(text); ContainsLive([]byte(have), liveKey) {
			t.Errorf("Echo(%q) = %q: still holds the key", text, have)
		}
		if !ContainsLive([]byte(before), liveKey) {
			if have := p.Echo(before); have != before {
				t.Errorf("Echo(%q) = %q: changed text without the key", before, have)
			}
		}
	})
}
