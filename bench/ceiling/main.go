// Command ceiling is the benchmark's yardstick: a plain net/http server that
// answers the two benchmarked routes with fixed bytes and does nothing else.
// Whatever it reaches on a machine is that machine's practical ceiling for a
// Go HTTP/1.1 server, so bench/run.sh states every other server as a ratio
// to it, measured in the same run.
//
//	ceiling -addr 127.0.0.1:8080 -get customer.json -post created.json
package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	getFile := flag.String("get", "", "body of GET /v1/customers/cus_123 (a file)")
	postFile := flag.String("post", "", "body of POST /v1/customers (a file)")
	flag.Parse()
	if err := run(*addr, *getFile, *postFile); err != nil {
		fmt.Fprintf(os.Stderr, "ceiling: %v\n", err)
		os.Exit(1)
	}
}

func run(addr, getFile, postFile string) error {
	get, err := os.ReadFile(getFile)
	if err != nil {
		return fmt.Errorf("read the GET body: %w (pass -get FILE)", err)
	}
	post, err := os.ReadFile(postFile)
	if err != nil {
		return fmt.Errorf("read the POST body: %w (pass -post FILE)", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/customers/cus_123", fixed(get))
	mux.HandleFunc("POST /v1/customers", func(w http.ResponseWriter, r *http.Request) {
		// Read the form body as any server must before answering.
		io.Copy(io.Discard, r.Body)
		fixed(post)(w, r)
	})
	return http.ListenAndServe(addr, mux)
}

func fixed(body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}
}
