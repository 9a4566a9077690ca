package record

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/scrub"
)

// OriginalTypeHeader keeps the Content-Type of a binary answer whose body
// was replaced by a note.
const OriginalTypeHeader = "X-Wraith-Original-Content-Type"

// exchange builds the scrubbed exchange, with warnings about what could
// not be kept. It scrubs in two rounds over one scrub.Pass: the first
// scrubs every part by its names and shapes and collects each value it
// removed or replaced, the live credential first; the second replaces
// those values wherever else they appear in the exchange (see echo.go).
func (r *Recorder) exchange(c *capture, resp *http.Response, raw []byte) (*format.Exchange, []string) {
	p := r.opts.Scrubber.NewPass()
	p.Secret(r.opts.Credential)
	var warnings []string
	ex := &format.Exchange{
		Format:     format.Version,
		RecordedAt: r.opts.Now().UTC().Truncate(time.Second),
		Request: format.Request{
			Method:  c.method,
			Path:    p.Text(c.path),
			Query:   p.Query(c.query),
			Headers: storedHeaders(p, c.header, "Content-Length", "Accept-Encoding"),
		},
		Response: format.Response{
			Status:  resp.StatusCode,
			Headers: storedHeaders(p, resp.Header, "Content-Length", "Content-Encoding", ExchangeHeader),
		},
	}

	// Request body: form or JSON, the two kinds format 1 holds.
	if len(c.body) > 0 {
		switch media := mediaType(c.contentType); {
		case media == "application/x-www-form-urlencoded":
			ex.Request.Form = p.Form(string(c.body))
		case isJSON(media, c.body):
			b, err := p.RequestJSON(c.body)
			if err != nil {
				warnings = append(warnings, "request body is not valid JSON; stored without it: "+err.Error())
				break
			}
			ex.Request.Body = b
		default:
			if media == "multipart/form-data" {
				noteMultipart(p, c.contentType, c.body)
			}
			warnings = append(warnings, fmt.Sprintf("request body (%d bytes of %s) stored without it: format 1 holds form and JSON request bodies only", len(c.body), orUnknown(c.contentType)))
		}
	}

	// Response body: decoded, then JSON, text or a note.
	body, note := r.decode(resp, raw)
	media := mediaType(resp.Header.Get("Content-Type"))
	switch {
	case note != "":
		ex.Response.BodyText = note
		warnings = append(warnings, note)
	case len(body) == 0:
	case isJSON(media, body):
		b, err := p.ResponseJSON(body)
		if err != nil {
			ex.Response.BodyText = fmt.Sprintf("[wraith: %d-byte body labelled %s is not valid JSON; not recorded]", len(body), media)
			warnings = append(warnings, ex.Response.BodyText)
			break
		}
		ex.Response.Body = b
	case media == "application/x-www-form-urlencoded" && utf8.Valid(body):
		ex.Response.BodyText = p.ResponseForm(string(body))
	case utf8.Valid(body):
		ex.Response.BodyText = p.Text(string(body))
	default:
		sum := sha256.Sum256(body)
		ex.Response.BodyText = fmt.Sprintf("[wraith: binary body not recorded: %d bytes of %s, sha256:%s]",
			len(body), orUnknown(resp.Header.Get("Content-Type")), hex.EncodeToString(sum[:]))
		if ct := resp.Header.Get("Content-Type"); ct != "" {
			ex.Response.Headers.Set(OriginalTypeHeader, ct)
		}
		ex.Response.Headers.Set("Content-Type", "text/plain; charset=utf-8")
	}
	echo(p, ex, media == "application/x-www-form-urlencoded")
	return ex, warnings
}

// noteMultipart scrubs the fields of a multipart form body, which is not
// stored, only so that p learns the credentials and personal data in it:
// a provider echoing a field (an error message quoting the password) then
// has that echo replaced like any other. File parts are not read.
func noteMultipart(p *scrub.Pass, contentType string, body []byte) {
	_, params, err := mime.ParseMediaType(contentType)
	if err != nil || params["boundary"] == "" {
		return
	}
	form := url.Values{}
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	for {
		part, err := mr.NextPart()
		if err != nil {
			break
		}
		if name := part.FormName(); name != "" && part.FileName() == "" {
			v, _ := io.ReadAll(part)
			form.Add(name, string(v))
		}
	}
	p.Form(form.Encode())
}

// decode returns the answer's body without its content coding, or a note
// saying why it is not recorded.
func (r *Recorder) decode(resp *http.Response, raw []byte) ([]byte, string) {
	if int64(len(raw)) > r.opts.MaxBody {
		return nil, fmt.Sprintf("[wraith: body over %d bytes not recorded]", r.opts.MaxBody)
	}
	switch enc := strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding"))); enc {
	case "", "identity":
		return raw, ""
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return nil, "[wraith: gzip body does not decode: " + err.Error() + "; not recorded]"
		}
		b, err := io.ReadAll(io.LimitReader(zr, r.opts.MaxBody+1))
		if err != nil {
			return nil, "[wraith: gzip body does not decode: " + err.Error() + "; not recorded]"
		}
		if int64(len(b)) > r.opts.MaxBody {
			return nil, fmt.Sprintf("[wraith: body over %d bytes decoded not recorded]", r.opts.MaxBody)
		}
		return b, ""
	default:
		return nil, "[wraith: body in content coding " + strconv.Quote(enc) + " not recorded]"
	}
}

// hopHeaders are connection-level headers, never recorded.
var hopHeaders = []string{"Connection", "Keep-Alive", "Proxy-Connection", "Proxy-Authenticate", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

// storedHeaders returns h scrubbed by p, without hop-by-hop headers and
// those named in drop.
func storedHeaders(p *scrub.Pass, h http.Header, drop ...string) http.Header {
	out := http.Header{}
	skip := map[string]bool{}
	for _, name := range append(hopHeaders, drop...) {
		skip[http.CanonicalHeaderKey(name)] = true
	}
	for _, v := range h.Values("Connection") {
		for _, name := range strings.Split(v, ",") {
			skip[http.CanonicalHeaderKey(strings.TrimSpace(name))] = true
		}
	}
	for name, values := range h {
		if !skip[http.CanonicalHeaderKey(name)] {
			out[http.CanonicalHeaderKey(name)] = append([]string(nil), values...)
		}
	}
	out = p.Headers(out)
	if len(out) == 0 {
		return nil
	}
	return out
}

func mediaType(contentType string) string {
	if contentType == "" {
		return ""
	}
	m, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(contentType))
	}
	return m
}

// isJSON reports whether a body is stored as JSON: a JSON media type, or
// none at all and a body that is JSON.
func isJSON(media string, body []byte) bool {
	switch {
	case media == "application/json" || strings.HasSuffix(media, "+json"):
		return true
	case media == "":
		return json.Valid(body)
	}
	return false
}

func orUnknown(ct string) string {
	if ct == "" {
		return "unknown type"
	}
	return ct
}

// write stores ex as the next free index and returns it.
func (r *Recorder) write(ex *format.Exchange) (int, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(ex); err != nil {
		return 0, fmt.Errorf("encode exchange: %w", err)
	}
	if err := r.holdsCredential(buf.Bytes()); err != nil {
		return 0, err
	}
	// The temporary file is a dotfile in the twin folder: the loader and
	// the digest ignore it if a crash leaves it behind.
	tmp, err := os.CreateTemp(r.opts.Dir, ".wraith-record-*.tmp")
	if err != nil {
		return 0, fmt.Errorf("write exchange: %w (is %s writable?)", err, r.opts.Dir)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(buf.Bytes()); err != nil {
		tmp.Close()
		return 0, fmt.Errorf("write exchange: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return 0, fmt.Errorf("write exchange: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return 0, fmt.Errorf("write exchange: %w", err)
	}
	os.Chmod(tmp.Name(), 0o644)

	r.mu.Lock()
	defer r.mu.Unlock()
	for tries := 0; ; tries++ {
		idx := r.next
		final := filepath.Join(r.dir, strconv.Itoa(idx)+".json")
		err := os.Link(tmp.Name(), final)
		if os.IsExist(err) && tries < 1000 {
			r.next++ // someone else wrote this index: never replace it
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("write %s: %w", final, err)
		}
		r.next++
		r.count++
		if err := syncDir(r.dir); err != nil {
			return 0, fmt.Errorf("sync %s: %w", r.dir, err)
		}
		return idx, nil
	}
}
