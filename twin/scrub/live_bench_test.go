package scrub

import (
	"fmt"
	"strings"
	"testing"
)

// largeEcho is the review's body: 28 MB of text/plain whose filler is
// percent-escapes ("%41"), holding the percent-encoded key 64 times.
func largeEcho(key string) string {
	var enc strings.Builder
	for i := 0; i < len(key); i++ {
		fmt.Fprintf(&enc, "%%%02X", key[i])
	}
	filler := strings.Repeat("%41", 150000)
	var b strings.Builder
	for range 64 {
		b.WriteString(filler)
		b.WriteString(enc.String())
	}
	return b.String()
}

func BenchmarkEchoLiveLarge(b *testing.B) {
	s := New([]byte(testKey), Policy{})
	text := largeEcho(liveKey)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		p := s.NewPass()
		p.Secret(liveKey)
		if out := p.Echo(text); ContainsLive([]byte(out), liveKey) {
			b.Fatal("the key is still there")
		}
	}
}
