package fault

import (
	"strings"
	"testing"
	"time"

	"github.com/wraithdev/wraith/internal/rate"
)

// window is a fixed answer to Allow that remembers being asked; Limit's
// logic is pure, and the session's real window is tested with the session.
type window struct {
	ok    bool
	wait  int
	asked int
}

func (w *window) Allow(time.Time, int, time.Duration) (bool, int) {
	w.asked++
	return w.ok, w.wait
}

func TestLimit(t *testing.T) {
	for _, c := range []struct {
		name      string
		lim       rate.Limit
		w         window
		wantOver  bool
		wantWait  int
		wantAsked int
	}{
		{"no limit asks nothing", rate.Limit{}, window{}, false, 0, 0},
		{"under", rate.Limit{N: 2, Window: time.Second}, window{ok: true}, false, 0, 1},
		{"over", rate.Limit{N: 2, Window: time.Minute}, window{wait: 42}, true, 42, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			over, wait := Limit(&c.w, c.lim, time.Unix(1700000000, 0))
			if over != c.wantOver || wait != c.wantWait || c.w.asked != c.wantAsked {
				t.Errorf("want over %v wait %d asked %d, have %v %d %d", c.wantOver, c.wantWait, c.wantAsked, over, wait, c.w.asked)
			}
		})
	}
}

func TestLimitError(t *testing.T) {
	for _, c := range []struct {
		lim  rate.Limit
		want string
	}{
		{rate.Limit{N: 2, Window: time.Second}, "more than 2 requests per second"},
		{rate.Limit{N: 9, Window: time.Minute}, "more than 9 requests per minute"},
	} {
		err := LimitError(c.lim)
		if want, have := 429, err.Status(); want != have {
			t.Errorf("status: want %d, have %d", want, have)
		}
		if !strings.Contains(string(err.Body()), c.want) {
			t.Errorf("body: want %q in it, have %s", c.want, err.Body())
		}
	}
}
