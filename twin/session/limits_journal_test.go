package session

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"
	"unsafe"
)

// bigHeader is a request's headers with one value of n bytes that starts
// with tag, so that no two requests share a header block.
func bigHeader(tag string, n int) http.Header {
	return http.Header{"User-Agent": {"agent/1"}, "X-Trace": {tag + strings.Repeat("t", n-len(tag))}}
}

// fill journals n GETs in each of sessions sessions of st, round robin,
// with 60 KB headers unlike every other request's.
func fill(tb testing.TB, st *Store, sessions, n int) []*Session {
	tb.Helper()
	ss := make([]*Session, sessions)
	for i := range ss {
		s, _, err := st.GetOrCreate(fmt.Sprint("s", i), func() *Session { return New(fmt.Sprint("s", i), Settings{}, nil, false) })
		if err != nil {
			tb.Fatal(err)
		}
		ss[i] = s
	}
	for k := range n {
		for i, s := range ss {
			st.Begin(s, &Entry{Method: "GET", Path: "/v1/customers/cus_1", Host: "127.0.0.1"}, bigHeader(fmt.Sprint(i, ".", k, ":"), 60<<10))
		}
	}
	return ss
}

// TestJournalBudgetDropsOldestServeWide: past the store's budget the
// journals give up their oldest entries whatever session holds them, the
// accounted bytes stay within the budget, and every session's dropped
// count is what it lost (old code: 60 KB headers kept whole and no byte
// budget, so 40 sessions × 100 such entries held 240 MB).
func TestJournalBudgetDropsOldestServeWide(t *testing.T) {
	const budget = 1 << 20
	st := NewStore(0)
	st.SetJournalMemory(budget)
	ss := fill(t, st, 40, 100)
	mem := st.Memory()
	if have := mem.Journal(); have > budget || have <= 0 {
		t.Errorf("journal bytes after 4,000 entries of 60 KB headers: want 1 to %d, have %d", budget, have)
	}
	var sum, kept, dropped int64
	for _, s := range ss {
		ents, d := s.Journal().Entries()
		kept += int64(len(ents))
		dropped += d
		sum += s.Journal().Bytes()
		if want := int64(100); int64(len(ents))+d != want {
			t.Errorf("%s: kept %d and dropped %d, want them to sum to %d", s.Name(), len(ents), d, want)
		}
		for _, e := range ents {
			if len(e.ReqHeader) > HeaderExcerpt+128 {
				t.Errorf("%s #%d: a header block of %d bytes kept, want at most about %d", s.Name(), e.Index, len(e.ReqHeader), HeaderExcerpt)
			}
			if !strings.Contains(e.ReqHeader.Get("X-Trace"), "[truncated by wraith: 61440 bytes]") {
				t.Errorf("%s #%d: the 60 KB X-Trace value is not marked truncated: %.80q", s.Name(), e.Index, e.ReqHeader.Get("X-Trace"))
			}
		}
	}
	if sum != mem.Journal() {
		t.Errorf("the journals' own counts sum to %d bytes, the store's account says %d", sum, mem.Journal())
	}
	if dropped != mem.Swept() || dropped == 0 {
		t.Errorf("want every dropped entry (%d) dropped by the budget (%d), and some", dropped, mem.Swept())
	}
	// Oldest first, serve-wide: the entries kept are the newest of all
	// sessions, so every session keeps about as many, its last ones.
	for _, s := range ss {
		ents, _ := s.Journal().Entries()
		if len(ents) == 0 || ents[len(ents)-1].Index != 99 {
			t.Errorf("%s: want its newest entry (99) kept, have %d entries", s.Name(), len(ents))
			continue
		}
		if n := int64(len(ents)); n < kept/int64(len(ss))-1 || n > kept/int64(len(ss))+1 {
			t.Errorf("%s keeps %d entries, want about %d (the newest of all sessions)", s.Name(), n, kept/int64(len(ss)))
		}
	}
}

// TestJournalBudgetOldSessionGoesFirst: a session written long ago loses
// its entries before a busy session loses its recent ones, even though
// the busy session is the one writing.
func TestJournalBudgetOldSessionGoesFirst(t *testing.T) {
	st := NewStore(0)
	st.SetJournalMemory(128 << 10) // some 85 entries of 1.5 KB
	old := fill(t, st, 1, 50)[0]
	busy, _, _ := st.GetOrCreate("busy", func() *Session { return New("busy", Settings{}, nil, false) })
	for k := range 150 {
		st.Begin(busy, &Entry{Method: "GET", Path: "/x"}, bigHeader(fmt.Sprint("b", k, ":"), 60<<10))
	}
	oldKept, oldDropped := old.Journal().Entries()
	busyKept, busyDropped := busy.Journal().Entries()
	if len(oldKept) != 0 || oldDropped != 50 {
		t.Errorf("the idle session: want all 50 entries dropped first, have %d kept, %d dropped", len(oldKept), oldDropped)
	}
	if len(busyKept) == 0 || busyDropped == 0 || int64(len(busyKept))+busyDropped != 150 {
		t.Errorf("the busy session: want its newest kept and the rest counted, have %d kept, %d dropped", len(busyKept), busyDropped)
	}
	if old.Journal().Bytes() != 0 {
		t.Errorf("an emptied journal: want 0 bytes accounted, have %d", old.Journal().Bytes())
	}
}

// TestJournalAccountsExactly drives journals through every way an entry
// leaves (the count limit, the budget, reset, delete), with headers,
// paths and hosts that repeat or not, and checks after each step that
// the store's account is the sum of the journals' and that each journal's
// is the sum of its entries' costs and its residue: shared values move
// to the entry that still holds them, never freed twice or kept forever.
func TestJournalAccountsExactly(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	st := NewStore(0)
	st.SetJournalMemory(256 << 10)
	st.SetJournalLimit(7)
	var live []*Session
	check := func(step int) {
		t.Helper()
		var sum int64
		for _, s := range live {
			j := s.Journal()
			j.mu.Lock()
			own := int64(0)
			for i := j.next - int64(j.n); i < j.next; i++ {
				own += int64(j.ring[i%int64(len(j.ring))].cost)
			}
			for _, r := range j.resid {
				own += int64(r)
			}
			if own != j.bytes {
				t.Fatalf("step %d, %s: entries and residue cost %d, the journal says %d", step, s.Name(), own, j.bytes)
			}
			sum += j.bytes
			j.mu.Unlock()
		}
		if have := st.Memory().Journal(); have != sum {
			t.Fatalf("step %d: the journals hold %d, the store's account says %d", step, sum, have)
		}
	}
	headers := []http.Header{{"A": {"1"}}, {"A": {"2"}}, bigHeader("x", 3000)}
	paths := []string{"/a", "/b", strings.Repeat("p", 900)}
	for step := range 3000 {
		switch op := rng.IntN(100); {
		case op < 3 || len(live) == 0:
			name := fmt.Sprint("s", step)
			s, _, _ := st.GetOrCreate(name, func() *Session { return New(name, Settings{}, nil, false) })
			live = append(live, s)
		case op < 5:
			live[rng.IntN(len(live))].Reset()
		case op < 6:
			i := rng.IntN(len(live))
			st.Delete(live[i].Name())
			live = append(live[:i], live[i+1:]...)
		default:
			s := live[rng.IntN(len(live))]
			e := &Entry{Method: "GET", Path: strings.Clone(paths[rng.IntN(len(paths))]), Host: strings.Clone(paths[rng.IntN(2)])}
			if rng.IntN(4) == 0 {
				e.ReqBody = KeepBody(make([]byte, rng.IntN(9000)), false)
			}
			st.Begin(s, e, headers[rng.IntN(len(headers))])
		}
		check(step)
	}
	for _, s := range live {
		st.Delete(s.Name())
	}
	live = nil
	if have := st.Memory().Journal(); have != 0 {
		t.Errorf("every session deleted: want 0 journal bytes, have %d", have)
	}
}

// TestJournalHeaderExcerpt: a long header value is kept as its start and
// marked with its whole length; past HeaderExcerpt the remaining headers
// are left out and counted in one line; a short block is kept as it is.
func TestJournalHeaderExcerpt(t *testing.T) {
	many := http.Header{}
	for i := range 40 {
		many[fmt.Sprintf("X-H%02d", i)] = []string{strings.Repeat("v", 1000)}
	}
	tests := []struct {
		name string
		h    http.Header
		want []string // substrings of the kept block
		max  int
	}{
		{"short", http.Header{"Accept": {"*/*"}}, []string{"Accept: */*\r\n"}, 64},
		{"one 60 KB value", bigHeader("x", 60<<10), []string{"X-Trace: xttt", "[truncated by wraith: 61440 bytes]", "User-Agent: agent/1"}, HeaderValueExcerpt + 128},
		{"forty 1 KB headers", many, []string{"X-H00: vvv", TruncatedHeader + ": 32 headers (32288 bytes) left out"}, HeaderExcerpt + 128},
		{"a credential", http.Header{"Authorization": {"Bearer " + strings.Repeat("s", 5000)}}, []string{"Authorization: Bearer [redacted]\r\n"}, 64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			have := string(appendHeaders(nil, tt.h))
			for _, w := range tt.want {
				if !strings.Contains(have, w) {
					t.Errorf("want the block to hold %q, have %d bytes ending %q", w, len(have), have[max(0, len(have)-100):])
				}
			}
			if len(have) > tt.max {
				t.Errorf("want at most %d bytes kept, have %d", tt.max, len(have))
			}
		})
	}
}

// TestJournalSweepShrinksRing: a journal a sweep leaves mostly empty
// gives back its ring's slots, so what its slots cost stays within a
// small factor of the entries charged for them.
func TestJournalSweepShrinksRing(t *testing.T) {
	st := NewStore(0)
	st.SetJournalMemory(512 << 10)
	quiet, _, _ := st.GetOrCreate("quiet", func() *Session { return New("quiet", Settings{}, nil, false) })
	for range 500 {
		st.Begin(quiet, &Entry{Method: "GET", Path: "/x"}, nil)
	}
	busy, _, _ := st.GetOrCreate("busy", func() *Session { return New("busy", Settings{}, nil, false) })
	for k := 0; ; k++ {
		j := quiet.Journal()
		j.mu.Lock()
		n, slots := j.n, len(j.ring)
		j.mu.Unlock()
		if n < 500 && n > 0 && n <= 100 {
			if slots > max(4*n, 16) {
				t.Errorf("a journal swept down to %d entries keeps %d slots, want at most %d", n, slots, max(4*n, 16))
			}
			return
		}
		if n == 0 || k > 10000 {
			t.Fatalf("after %d busy entries the quiet journal holds %d entries", k, n)
		}
		st.Begin(busy, &Entry{Method: "GET", Path: "/y"}, bigHeader(fmt.Sprint(k, ":"), 2000))
	}
}

// TestEntryStaysSmall: the journal's accounting fields fill the entry's
// padding, so an entry is still one 288-byte allocation (a GET's
// allocation count and bytes do not grow with the budget).
func TestEntryStaysSmall(t *testing.T) {
	if have := unsafe.Sizeof(Entry{}); have > 288 {
		t.Errorf("an Entry is %d bytes, past the 288-byte size class", have)
	}
}

// TestJournalBudgetConcurrent: requests of many sessions journal at once
// while sweeps run, sessions are reset and deleted and journals read;
// under -race nothing races, and once all is done the store's account is
// exactly what the journals left hold, and within the budget.
func TestJournalBudgetConcurrent(t *testing.T) {
	const budget = 256 << 10
	st := NewStore(0)
	st.SetJournalMemory(budget)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 400 {
				name := fmt.Sprint("s", (w*7+k)%24)
				s, _, err := st.GetOrCreate(name, func() *Session { return New(name, Settings{}, nil, false) })
				if err != nil {
					t.Error(err)
					return
				}
				switch k % 50 {
				case 17:
					s.Reset()
				case 33:
					st.Delete(name)
				case 41:
					s.Journal().Entries()
				default:
					s.ReadContext(context.Background(), func(Reader) {
						st.Begin(s, &Entry{Method: "GET", Path: "/x"}, bigHeader(fmt.Sprint(w, ".", k, ":"), 3000))
					})
				}
			}
		}()
	}
	wg.Wait()
	var sum int64
	for _, s := range st.All() {
		sum += s.Journal().Bytes()
	}
	if have := st.Memory().Journal(); have != sum || have > budget {
		t.Errorf("after the storm: the journals hold %d bytes and the account says %d, want equal and at most %d", sum, have, budget)
	}
}
