package durable

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wraithdev/wraith/twin/session"
	"github.com/wraithdev/wraith/twin/world"
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

// BenchmarkCheckpointStall is what a checkpoint costs the writers that
// run beside it: 8 writers of small sessions, while one more goroutine
// keeps rewriting a session of 20,000 entities, whose records pass the
// journal's bound every few writes, so that checkpoints of it run all
// along. p99-ns and max-ns are one small write's wait; checkpoints is how
// many ran.
func BenchmarkCheckpointStall(b *testing.B) {
	ds, ss := open(b, b.TempDir(), Options{CheckpointBytes: 4 << 20})
	defer ds.Close()
	big := create(b, ss, "big")
	small := make([]*session.Session, 8)
	for i := range small {
		small[i] = create(b, ss, fmt.Sprintf("s%d", i))
	}
	stop := make(chan struct{})
	var bg sync.WaitGroup
	bg.Go(func() {
		for n := 0; ; n++ {
			select {
			case <-stop:
				return
			default:
			}
			err := big.Do(func(st *session.State) {
				for i := range 20_000 {
					id := fmt.Sprintf("cus_%d", i)
					e := &world.Entity{ID: id, Resource: "customer", Seq: st.NextSeq(), Provenance: world.Handler}
					e.SetBody(fmt.Appendf(nil, `{"id":%q,"object":"customer","round":%d}`, id, n))
					st.Put(e)
				}
			})
			if err != nil {
				b.Error(err)
				return
			}
		}
	})
	var n atomic.Int64
	var mu sync.Mutex
	var waits []time.Duration
	var wg sync.WaitGroup
	b.ResetTimer()
	for g := range small {
		wg.Go(func() {
			var mine []time.Duration
			for n.Add(1) <= int64(b.N) {
				t0 := time.Now()
				write(b, small[g], "")
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			waits = append(waits, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	b.StopTimer()
	close(stop)
	bg.Wait()
	slices.Sort(waits)
	b.ReportMetric(float64(waits[len(waits)*99/100].Nanoseconds()), "p99-ns")
	b.ReportMetric(float64(waits[len(waits)-1].Nanoseconds()), "max-ns")
	b.ReportMetric(float64(ds.checkpoints.Load()), "checkpoints")
}
