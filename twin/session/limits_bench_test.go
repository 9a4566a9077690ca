package session

import (
	"fmt"
	"net/http"
	"testing"
)

// BenchmarkBeginOverBudget journals GETs round robin over 10,000 sessions
// whose journals fill the store's budget, so every op carries its share of
// the sweeps (each visits every session); under a budget that is never
// reached, the same loop measures journaling alone.
func BenchmarkBeginOverBudget(b *testing.B) {
	for _, budget := range []int64{4 << 20, 1 << 40} {
		b.Run(fmt.Sprintf("budget=%dMiB", budget>>20), func(b *testing.B) {
			st := NewStore(0)
			st.SetJournalMemory(budget)
			ss := make([]*Session, 10000)
			for i := range ss {
				name := fmt.Sprint("s", i)
				ss[i], _, _ = st.GetOrCreate(name, func() *Session { return New(name, Settings{}, nil, false) })
			}
			h := http.Header{"Accept": {"application/json"}, "User-Agent": {"agent/1"}}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				st.Begin(ss[i%len(ss)], &Entry{Method: "GET", Path: "/v1/customers/cus_1"}, h)
				i++
			}
			b.ReportMetric(float64(st.Memory().Swept())/float64(i), "swept/op")
		})
	}
}
