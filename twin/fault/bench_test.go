package fault

import "testing"

// BenchmarkDecide is the per-request cost of a profile with rules for
// every method: it must not allocate.
func BenchmarkDecide(b *testing.B) {
	p := mustCompile(b, testTwin(false)).Profile("flaky")
	counts := make([]Count, p.Len())
	b.ReportAllocs()
	for b.Loop() {
		p.Decide(7, counts, "POST", "/v1/things/{id}")
	}
}

// BenchmarkCompile is what parsing builtin.toml anew costs each twin.
func BenchmarkCompile(b *testing.B) {
	t := testTwin(false)
	b.ReportAllocs()
	for b.Loop() {
		mustCompile(b, t)
	}
}
