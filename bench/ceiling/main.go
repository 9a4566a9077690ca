// Command ceiling is the benchmark's yardstick: a plain net/http server that
// answers the two benchmarked routes with fixed bytes and does nothing else.
// Whatever it reaches on a machine is that machine's practical ceiling for a
// Go HTTP/1.1 server, so bench/run.sh states every other server as a ratio
// to it, measured in the same run.
//
// The bodies, and optionally the headers, are files the harness takes from
// Wraith's own answers, so that the ceiling writes the same bytes on the
// wire: a header file holds "Name: value" lines; net/http adds Date and
// Content-Length itself.
//
//	ceiling -addr 127.0.0.1:8080 -get customer.json -post created.json \
//		-get-headers customer.headers -post-headers created.headers
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"os"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	getFile := flag.String("get", "", "body of GET /v1/customers/cus_123 (a file)")
	postFile := flag.String("post", "", "body of POST /v1/customers (a file)")
	getHeaders := flag.String("get-headers", "", `headers of the GET answer, "Name: value" lines (a file; default Content-Type: application/json)`)
	postHeaders := flag.String("post-headers", "", "headers of the POST answer, as -get-headers")
	flag.Parse()
	if err := run(*addr, *getFile, *postFile, *getHeaders, *postHeaders); err != nil {
		fmt.Fprintf(os.Stderr, "ceiling: %v\n", err)
		os.Exit(1)
	}
}

func run(addr, getFile, postFile, getHeaders, postHeaders string) error {
	get, err := load(getFile, getHeaders)
	if err != nil {
		return fmt.Errorf("the GET answer: %w", err)
	}
	post, err := load(postFile, postHeaders)
	if err != nil {
		return fmt.Errorf("the POST answer: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/customers/cus_123", get.serve)
	mux.HandleFunc("POST /v1/customers", func(w http.ResponseWriter, r *http.Request) {
		// Read the form body as any server must before answering.
		io.Copy(io.Discard, r.Body)
		post.serve(w, r)
	})
	return http.ListenAndServe(addr, mux)
}

// fixed is one answer, always the same.
type fixed struct {
	header http.Header
	body   []byte
}

func load(bodyFile, headerFile string) (fixed, error) {
	a := fixed{header: http.Header{"Content-Type": {"application/json"}}}
	var err error
	if a.body, err = os.ReadFile(bodyFile); err != nil {
		return a, fmt.Errorf("read its body: %w (pass the file)", err)
	}
	if headerFile == "" {
		return a, nil
	}
	lines, err := os.ReadFile(headerFile)
	if err != nil {
		return a, fmt.Errorf("read its headers: %w", err)
	}
	// A blank line ends a MIME header block; the file has none of its own.
	h, err := textproto.NewReader(bufio.NewReader(bytes.NewReader(append(lines, '\n')))).ReadMIMEHeader()
	if err != nil {
		return a, fmt.Errorf("headers in %s: %w (want \"Name: value\" lines)", headerFile, err)
	}
	a.header = http.Header(h)
	return a, nil
}

func (a fixed) serve(w http.ResponseWriter, _ *http.Request) {
	h := w.Header()
	for k, v := range a.header {
		h[k] = v // shared, never changed: net/http only reads them
	}
	w.Write(a.body)
}
