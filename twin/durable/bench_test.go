package durable

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/wraithdev/wraith/twin/session"
)

// BenchmarkCommit is the journal's group commit alone: 32 writers, each
// write a customer answered once on disk, over 64 sessions.
// records/commit says how many writes shared each sync.
func BenchmarkCommit(b *testing.B) {
	ds, ss := open(b, b.TempDir(), Options{})
	defer ds.Close()
	sessions := make([]*session.Session, 64)
	for i := range sessions {
		sessions[i] = create(b, ss, fmt.Sprintf("s%d", i))
	}
	var n atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	for g := range 32 {
		wg.Go(func() {
			for i := g; n.Add(1) <= int64(b.N); i += 32 {
				write(b, sessions[i%len(sessions)], "")
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/float64(ds.commits.Load()), "records/commit")
}
