package embedded_test

import (
	"io/fs"
	"strings"
	"sync"
	"testing"

	"github.com/wraithdev/wraith/twin/embedded"
	"github.com/wraithdev/wraith/twin/resolve"
)

// openLog is the embedded file system, noting every path opened.
type openLog struct {
	fs.FS
	mu     sync.Mutex
	opened []string
}

func (o *openLog) Open(name string) (fs.File, error) {
	o.mu.Lock()
	o.opened = append(o.opened, name)
	o.mu.Unlock()
	return o.FS.Open(name)
}

// TestServingOneTwinReadsNoOther resolves and loads each embedded twin and
// checks that no other twin's file was opened: the large stripe twin costs
// nothing to a user of checkout.
func TestServingOneTwinReadsNoOther(t *testing.T) {
	for _, tt := range []struct{ twin, other string }{{"checkout", "stripe/"}, {"billing", "stripe/"}, {"stripe", "checkout/"}} {
		log := &openLog{FS: embedded.FS()}
		src, err := resolve.New(t.TempDir(), "", log).Resolve(tt.twin)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := src.Load(); err != nil {
			t.Fatal(err)
		}
		if len(log.opened) == 0 {
			t.Fatalf("%s: the log saw no file opened; the test cannot see what loading reads", tt.twin)
		}
		for _, p := range log.opened {
			if strings.HasPrefix(p, tt.other) {
				t.Errorf("serving %s opened %s", tt.twin, p)
			}
		}
	}
}
