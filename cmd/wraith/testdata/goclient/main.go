// Command goclient is a Go program that knows nothing of Wraith: it
// creates a Stripe customer with net/http's default client and prints the
// status, the session and provenance headers, and the body. wraith run's
// tests run it unmodified. Usage: goclient EMAIL
package main

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
)

func main() {
	form := url.Values{"email": {os.Args[1]}}.Encode()
	req, err := http.NewRequest(http.MethodPost, "https://api.stripe.com/v1/customers", strings.NewReader(form))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth("sk_test_goclient", "")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Printf("%d %s %s %s %s\n", resp.StatusCode, resp.Proto, resp.Header.Get("X-Wraith-Session"), resp.Header.Get("X-Wraith-Provenance"), body)
}
