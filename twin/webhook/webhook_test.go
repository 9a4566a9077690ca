package webhook

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/session"
	"github.com/wraithdev/wraith/twin/world"
)

// epoch is the tests' sessions' fixed clock.
const epoch = 1_700_000_000

// hmacSigner signs as Stripe does, for the tests (the stripe dialect's
// own Signer is tested against the clients' verifiers in twin/server).
type hmacSigner struct{}

func (hmacSigner) Sign(h http.Header, secret string, body []byte, at int64) {
	h.Set("X-Signature", "t="+strconv.FormatInt(at, 10)+",v1="+mac(secret, at, body))
}

func mac(secret string, at int64, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(strconv.FormatInt(at, 10) + "."))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// received is one post an endpoint got.
type received struct {
	header http.Header
	body   string
}

// endpoint is a loopback webhook endpoint that answers with the statuses
// given in turn (then 200) and hands each post to got.
func endpoint(tb testing.TB, statuses ...int) (url string, got chan received) {
	tb.Helper()
	got = make(chan received, 64)
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		status := http.StatusOK
		if n < len(statuses) {
			status = statuses[n]
		}
		n++ // the deliverer posts one at a time per session
		w.WriteHeader(status)
		io.WriteString(w, `{"received":true}`)
		got <- received{r.Header.Clone(), string(b)}
	}))
	tb.Cleanup(srv.Close)
	return srv.URL + "/hook", got
}

// fixture is a store with one session on a fixed clock and a deliverer
// journaling in it.
type fixture struct {
	store *session.Store
	sess  *session.Session
	d     *Deliverer
}

func newFixture(tb testing.TB, o Options) *fixture {
	tb.Helper()
	store := session.NewStore(0)
	set := session.Settings{Clock: session.Clock{Mode: session.ClockFixed, BaseEpoch: epoch}}
	sess, _, err := store.GetOrCreate("s1", func() *session.Session { return session.New("s1", set, nil, false) })
	if err != nil {
		tb.Fatal(err)
	}
	o.Journal = store
	if o.Signer == nil {
		o.Signer = hmacSigner{}
	}
	d := New(o)
	tb.Cleanup(func() { d.Close() })
	return &fixture{store: store, sess: sess, d: d}
}

// event keeps an event entity named id in the session: a retry is made
// only of an event the session still holds.
func (f *fixture) event(tb testing.TB, id string) {
	tb.Helper()
	err := f.sess.Do(func(st *session.State) {
		e := &world.Entity{ID: id, Resource: "event", Provenance: world.Handler, Seq: st.NextSeq()}
		e.SetBody([]byte(`{"id":"` + id + `"}`))
		st.Put(e)
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// deliveries returns the session's journaled attempts once it has n,
// waiting for them within a deadline.
func (f *fixture) deliveries(tb testing.TB, n int) []session.Entry {
	tb.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		all, _ := f.sess.Journal().Entries()
		var out []session.Entry
		for _, e := range all {
			if e.Delivery() != nil {
				out = append(out, e)
			}
		}
		if len(out) >= n {
			return out
		}
		if time.Now().After(deadline) {
			tb.Fatalf("want %d journaled attempts, have %d", n, len(out))
		}
		time.Sleep(5 * time.Millisecond) // polling a condition with a deadline, not waiting for a time
	}
}

func wait(tb testing.TB, got <-chan received) received {
	tb.Helper()
	select {
	case r := <-got:
		return r
	case <-time.After(10 * time.Second):
		tb.Fatal("no delivery reached the endpoint")
		return received{}
	}
}

func TestDeliversSignedInOrder(t *testing.T) {
	url, got := endpoint(t)
	wall := time.Unix(1_800_000_000, 0)
	f := newFixture(t, Options{Now: func() time.Time { return wall }})
	var ds []dialect.Delivery
	for i := range 5 {
		ds = append(ds, dialect.Delivery{
			URL: url, Secret: "whsec_test", Event: "evt_" + strconv.Itoa(i),
			Header: http.Header{"Content-Type": {"application/json; charset=utf-8"}},
			Body:   []byte(`{"id":"evt_` + strconv.Itoa(i) + `"}`),
		})
	}
	f.d.Deliver(f.sess, ds[:2])
	f.d.Deliver(f.sess, ds[2:])
	for i, want := range ds {
		r := wait(t, got)
		if r.body != string(want.Body) {
			t.Fatalf("post %d: want body %s, have %s", i, want.Body, r.body)
		}
		if have, want := r.header.Get("X-Signature"), "t=1800000000,v1="+mac("whsec_test", wall.Unix(), want.Body); have != want {
			t.Errorf("post %d: want signature %s, have %s", i, want, have)
		}
		if have := r.header.Get("Content-Type"); have != "application/json; charset=utf-8" {
			t.Errorf("post %d: want the delivery's Content-Type, have %q", i, have)
		}
	}
	if err := f.d.Wait(context.Background(), f.sess); err != nil {
		t.Fatal(err)
	}
	entries := f.deliveries(t, 5)
	for i, e := range entries {
		x := e.Delivery()
		if x.Event != ds[i].Event || x.Attempt != 1 || x.Error != "" || x.Retry != 0 {
			t.Errorf("entry %d: want %s attempt 1 without error, have %+v", i, ds[i].Event, *x)
		}
		if e.Status != 200 || e.Method != "POST" || e.Path != "/hook" || e.At != epoch || e.Provenance != "webhook" {
			t.Errorf("entry %d: want POST /hook 200 at the session's time, have %s %s %d at %d (%s)", i, e.Method, e.Path, e.Status, e.At, e.Provenance)
		}
		if string(e.ReqBody.Bytes) != string(ds[i].Body) || string(e.RespBody().Bytes) != `{"received":true}` {
			t.Errorf("entry %d: want the event and the endpoint's answer, have %s and %s", i, e.ReqBody.Bytes, e.RespBody().Bytes)
		}
	}
}

// resolver answers names from a table.
type resolver map[string][]netip.Addr

func (r resolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := r[host]; ok {
		return a, nil
	}
	return nil, &netError{host}
}

type netError struct{ host string }

func (e *netError) Error() string { return "no such host " + e.host }

func TestRefusesWhatIsNotLoopback(t *testing.T) {
	url, got := endpoint(t)
	port := url[strings.LastIndex(url, ":")+1 : strings.LastIndex(url, "/")]
	names := resolver{
		"hooks.test":   {netip.MustParseAddr("127.0.0.1")},
		"rebind.test":  {netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("10.0.0.7")},
		"outside.test": {netip.MustParseAddr("192.0.2.10")},
		"allowed.test": {netip.MustParseAddr("127.0.0.1")},
	}
	for _, tc := range []struct {
		name, url string
		want      string // "" for a delivery, else the start of the journaled error
	}{
		{"loopback name", "http://hooks.test:" + port + "/hook", ""},
		{"loopback address", "http://127.0.0.1:" + port + "/hook", ""},
		{"ipv6 loopback refused by nobody", "http://[::1]:" + port + "/hook", "unreachable"}, // the test server listens on 127.0.0.1 only
		{"public address", "http://192.0.2.10:" + port + "/hook", "refused: 192.0.2.10 resolves to 192.0.2.10, not a loopback address"},
		{"name resolving outside", "http://outside.test:" + port + "/hook", "refused: outside.test resolves to 192.0.2.10"},
		{"one address of several outside", "http://rebind.test:" + port + "/hook", "refused: rebind.test resolves to 10.0.0.7"},
		{"unknown name", "http://nowhere.test:" + port + "/hook", "refused: nowhere.test does not resolve"},
		{"not http", "ftp://127.0.0.1:" + port + "/hook", "refused: \"ftp://"},
		{"allowed name", "http://allowed.test:" + port + "/hook", ""},
		{"a password in the URL", "http://user:hunter2@127.0.0.1:" + port + "/hook", ""},
		{"the twin itself", "http://hooks.test:" + port + "/hook", "refused: 127.0.0.1:" + port + " is this twin's own address"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			own := netip.MustParseAddrPort("127.0.0.1:" + port)
			if tc.name != "the twin itself" {
				own = netip.MustParseAddrPort("127.0.0.1:1")
			}
			f := newFixture(t, Options{Resolver: names, Allow: []string{"ALLOWED.test"}, Retries: []time.Duration{}, Own: func(ap netip.AddrPort) bool { return ap == own }})
			f.d.Deliver(f.sess, []dialect.Delivery{{URL: tc.url, Secret: "s", Event: "evt_1", Body: []byte(`{}`)}})
			e := f.deliveries(t, 1)[0]
			x := e.Delivery()
			if tc.want == "" {
				wait(t, got)
				if x.Error != "" || e.Status != 200 {
					t.Fatalf("want a delivery, have status %d, error %q", e.Status, x.Error)
				}
				if strings.Contains(x.URL, "hunter2") {
					t.Errorf("the journal shows the URL's password: %s", x.URL)
				}
				return
			}
			if !strings.HasPrefix(x.Error, tc.want) || e.Status != 0 {
				t.Fatalf("want status 0 and an error starting %q, have %d and %q", tc.want, e.Status, x.Error)
			}
			select {
			case r := <-got:
				t.Fatalf("a refused delivery reached the endpoint: %s", r.body)
			default:
			}
		})
	}
}

func TestRetriesOnTheSessionClock(t *testing.T) {
	url, got := endpoint(t, 500, 503)
	f := newFixture(t, Options{Retries: []time.Duration{time.Hour, 2 * time.Hour}})
	f.event(t, "evt_1")
	f.d.Deliver(f.sess, []dialect.Delivery{{URL: url, Secret: "s", Event: "evt_1", Body: []byte(`{"id":"evt_1"}`)}})
	wait(t, got)
	first := f.deliveries(t, 1)[0].Delivery()
	if first.Error != "the endpoint answered 500, not a 2xx" || first.Retry != epoch+3600 {
		t.Fatalf("want a failure retried at %d, have %+v", epoch+3600, *first)
	}
	// The retry waits for the session's clock, whatever the wall clock
	// does: not due a second early.
	if err := f.d.Wait(context.Background(), f.sess); err != nil {
		t.Fatal(err)
	}
	f.d.Due(f.sess, epoch+3599)
	if now, later := f.d.Pending(f.sess); now != 0 || later != 1 {
		t.Fatalf("before its time: want 0 to post and 1 waiting, have %d and %d", now, later)
	}
	f.d.Due(f.sess, epoch+3600)
	wait(t, got)
	second := f.deliveries(t, 2)[1].Delivery()
	if second.Attempt != 2 || second.Retry != epoch+7200 {
		t.Fatalf("want attempt 2 retried 2h after the first, have %+v", *second)
	}
	f.d.Due(f.sess, epoch+7200)
	wait(t, got)
	third := f.deliveries(t, 3)[2]
	if x := third.Delivery(); x.Attempt != 3 || x.Error != "" || x.Retry != 0 || third.Status != 200 {
		t.Fatalf("want attempt 3 delivered, have %d %+v", third.Status, *x)
	}
	if err := f.d.Wait(context.Background(), f.sess); err != nil {
		t.Fatal(err)
	}
	if now, later := f.d.Pending(f.sess); now != 0 || later != 0 {
		t.Fatalf("delivered: want nothing pending, have %d and %d", now, later)
	}
}

func TestGivesUpAfterTheSchedule(t *testing.T) {
	url, got := endpoint(t, 500, 500, 500)
	f := newFixture(t, Options{Retries: []time.Duration{time.Hour}})
	f.event(t, "evt_1")
	f.d.Deliver(f.sess, []dialect.Delivery{{URL: url, Event: "evt_1", Body: []byte(`{}`)}})
	wait(t, got)
	f.deliveries(t, 1)
	f.d.Wait(context.Background(), f.sess)
	f.d.Due(f.sess, epoch+10*3600)
	wait(t, got)
	last := f.deliveries(t, 2)[1].Delivery()
	if last.Attempt != 2 || last.Retry != 0 {
		t.Fatalf("want the last attempt with no retry, have %+v", *last)
	}
	f.d.Wait(context.Background(), f.sess)
	if now, later := f.d.Pending(f.sess); now+later != 0 {
		t.Fatalf("want nothing left, have %d and %d", now, later)
	}
}

func TestCapsWhatASessionHolds(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release
	}))
	defer srv.Close()
	f := newFixture(t, Options{MaxPending: 2})
	ds := make([]dialect.Delivery, 4)
	for i := range ds {
		ds[i] = dialect.Delivery{URL: srv.URL, Event: "evt_" + strconv.Itoa(i), Body: []byte(`{}`)}
	}
	f.d.Deliver(f.sess, ds)
	dropped := f.deliveries(t, 2)
	for i, e := range dropped {
		if x := e.Delivery(); x.Event != ds[2+i].Event || !strings.HasPrefix(x.Error, "dropped: the session has 2 deliveries") {
			t.Errorf("want %s dropped, have %+v", ds[2+i].Event, *x)
		}
	}
	close(release)
	f.d.Wait(context.Background(), f.sess)
	if have := len(f.deliveries(t, 4)); have != 4 {
		t.Fatalf("want 2 dropped and 2 delivered, have %d entries", have)
	}
}

func TestCloseCancelsWhatIsUnderWay(t *testing.T) {
	entered := make(chan struct{})
	gone := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body) // the server notices a client gone only once the body is read
		close(entered)
		<-r.Context().Done()
		close(gone)
	}))
	defer srv.Close()
	f := newFixture(t, Options{Timeout: time.Hour})
	f.d.Deliver(f.sess, []dialect.Delivery{{URL: srv.URL, Event: "evt_1", Body: []byte(`{}`)}, {URL: srv.URL, Event: "evt_2", Body: []byte(`{}`)}})
	<-entered
	f.d.Close() // returns only once the attempt's goroutine has
	<-gone
	// A goroutine that called wg.Done is still finishing its return:
	// look until none is left, within a deadline, as goleak does.
	for deadline := time.Now().Add(5 * time.Second); strings.Contains(goroutines(), "webhook.(*Deliverer).run"); {
		if time.Now().After(deadline) {
			t.Fatalf("a delivery goroutine outlived Close:\n%s", goroutines())
		}
		runtime.Gosched()
	}
	if now, later := f.d.Pending(f.sess); now+later != 0 {
		t.Fatalf("closed: want nothing held, have %d and %d", now, later)
	}
	f.d.Deliver(f.sess, []dialect.Delivery{{URL: srv.URL, Event: "evt_3", Body: []byte(`{}`)}})
	if now, later := f.d.Pending(f.sess); now+later != 0 {
		t.Fatalf("closed: a delivery was queued (%d, %d)", now, later)
	}
}

func TestDropsARetryOfAnEventTheSessionLost(t *testing.T) {
	url, got := endpoint(t, 500)
	f := newFixture(t, Options{Retries: []time.Duration{time.Hour}})
	f.event(t, "evt_1")
	f.d.Deliver(f.sess, []dialect.Delivery{{URL: url, Event: "evt_1", Body: []byte(`{}`)}})
	wait(t, got)
	f.deliveries(t, 1)
	f.d.Wait(context.Background(), f.sess)
	if err := f.sess.Reset(); err != nil {
		t.Fatal(err)
	}
	f.d.Due(f.sess, epoch+3600)
	x := f.deliveries(t, 1)[0].Delivery() // the reset emptied the journal
	if x.Attempt != 2 || !strings.HasPrefix(x.Error, "dropped: the session no longer holds evt_1") {
		t.Fatalf("want the retry dropped, have %+v", *x)
	}
	select {
	case r := <-got:
		t.Fatalf("a retry of a lost event reached the endpoint: %s", r.body)
	default:
	}
}

func TestForgetsDeletedSessions(t *testing.T) {
	url, got := endpoint(t, slices.Repeat([]int{500}, 40)...)
	f := newFixture(t, Options{Retries: []time.Duration{time.Hour}})
	set := session.Settings{Clock: session.Clock{Mode: session.ClockFixed, BaseEpoch: epoch}}
	for i := range 20 {
		name := "gone-" + strconv.Itoa(i)
		s, _, err := f.store.GetOrCreate(name, func() *session.Session { return session.New(name, set, nil, false) })
		if err != nil {
			t.Fatal(err)
		}
		f.d.Deliver(s, []dialect.Delivery{{URL: url, Event: "evt_1", Body: []byte(`{}`)}})
		wait(t, got)
		if err := f.d.Wait(context.Background(), s); err != nil {
			t.Fatal(err)
		}
		if _, later := f.d.Pending(s); later != 1 {
			t.Fatalf("%s: want its failed delivery waiting for a retry, have %d", name, later)
		}
		f.store.Delete(name)
	}
	f.d.Deliver(f.sess, []dialect.Delivery{{URL: url, Event: "evt_2", Body: []byte(`{}`)}})
	wait(t, got)
	f.d.mu.Lock()
	held := len(f.d.queues)
	f.d.mu.Unlock()
	// Sweeps come as the queues double (from 16): of 20 deleted
	// sessions, the 16 queued before the sweep are gone.
	if held != 5 {
		t.Fatalf("want the live session's queue and the 4 made after the sweep, have %d", held)
	}
}

// goroutines is every goroutine's stack, as a leak check reads them.
func goroutines() string {
	buf := make([]byte, 1<<20)
	return string(buf[:runtime.Stack(buf, true)])
}
