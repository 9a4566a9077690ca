package server

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strconv"
	"testing"

	"github.com/wraithdev/wraith/internal/testbin"
	"github.com/wraithdev/wraith/twin/session"
)

// TestJournalBoundsBodyMemory sends 40 requests of 9 MB bodies, each in a
// session of its own, to a real wraith-twin process with --journal-limit
// 100 and reads its peak resident memory (VmHWM) from /proc. The journal
// kept every body whole (120 such requests took RSS from 28 MB to 1.08
// GB); it now keeps 4 KiB of each, so the peak is what one request in
// flight needs. The HAR says what it left out.
func TestJournalBoundsBodyMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds wraith-twin")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("needs /proc to read resident memory")
	}
	bin := bins.Path(t, "./cmd/wraith-twin")
	twin := testbin.StartTwin(t, bin, "github", "--port", "0", "--journal-limit", "100")
	pid := twin.Cmd.Process.Pid
	before := vmHWM(t, pid)

	body := bytes.Repeat([]byte("x"), 9<<20)
	const n = 40
	for i := range n {
		req, _ := http.NewRequest("GET", twin.URL+"/zen", bytes.NewReader(body))
		req.Header.Set("X-Wraith-Session", "hog"+strconv.Itoa(i))
		req.Header.Set("Content-Type", "text/plain")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	after := vmHWM(t, pid)
	t.Logf("%d bodies of %d bytes; wraith-twin VmHWM %d KiB before, %d KiB after", n, len(body), before, after)
	// Journaled whole, 40 bodies are 360 MiB held at once; a request in
	// flight needs one body, plus the transport's buffers and the garbage
	// between collections. The bound sits well between the two: a
	// race-built child on a busy machine has grown by up to 105 MiB with
	// excerpts, and whole bodies grew it by 370 MiB.
	const bound = 200 << 10 // KiB
	if grew := after - before; grew > bound {
		t.Errorf("peak RSS grew by %d MiB under %d journaled 9 MB bodies, want at most %d MiB", grew>>10, n, bound>>10)
	}

	resp, har := do(t, twin.URL, call{path: "/__wraith/session/hog0/journal?format=har"})
	if resp.StatusCode != 200 {
		t.Fatalf("HAR: %d %s", resp.StatusCode, har)
	}
	var doc struct {
		Log struct {
			Entries []struct {
				Request struct {
					BodySize int `json:"bodySize"`
					PostData struct {
						Text    string `json:"text"`
						Comment string `json:"comment"`
					} `json:"postData"`
				} `json:"request"`
				Wraith struct {
					RequestBody *struct {
						Size   int    `json:"size"`
						Kept   int    `json:"kept"`
						SHA256 string `json:"sha256"`
					} `json:"request_body"`
				} `json:"_wraith"`
			} `json:"entries"`
		} `json:"log"`
	}
	if err := json.Unmarshal(har, &doc); err != nil || len(doc.Log.Entries) != 1 {
		t.Fatalf("HAR of hog0: %v, %.300s", err, har)
	}
	e := doc.Log.Entries[0]
	if e.Request.BodySize != len(body) || len(e.Request.PostData.Text) != session.BodyExcerpt || e.Request.PostData.Comment == "" {
		t.Errorf("a 9 MB body in the HAR: want bodySize %d, %d bytes of text and a comment, have %d, %d, %q", len(body), session.BodyExcerpt, e.Request.BodySize, len(e.Request.PostData.Text), e.Request.PostData.Comment)
	}
	if rb := e.Wraith.RequestBody; rb == nil || rb.Size != len(body) || rb.Kept != session.BodyExcerpt || len(rb.SHA256) != 64 {
		t.Errorf("_wraith.request_body: %+v", rb)
	}
}
