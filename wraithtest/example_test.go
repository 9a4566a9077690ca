package wraithtest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/url"

	"github.com/stripe/stripe-go/v82"

	"github.com/wraithdev/wraith/wraithtest"
)

// stripe-go, pointed at the embedded checkout twin, with every call in
// session agent-1. In a test, Start(t, ...) replaces New and Close.
func ExampleServer_Session() {
	srv, err := wraithtest.New("checkout", wraithtest.Seed(42), wraithtest.Clock("deterministic", 1700000000))
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()

	backends := stripe.NewBackendsWithConfig(&stripe.BackendConfig{
		URL:               stripe.String(srv.URL),
		HTTPClient:        srv.Session("agent-1"),
		MaxNetworkRetries: stripe.Int64(0),
		LeveledLogger:     &stripe.LeveledLogger{Level: stripe.LevelNull},
	})
	sc := stripe.NewClient("sk_test_wraith", stripe.WithBackends(backends))

	ctx := context.Background()
	created, err := sc.V1Customers.Create(ctx, &stripe.CustomerCreateParams{Description: stripe.String("first agent customer")})
	if err != nil {
		log.Fatal(err)
	}
	read, err := sc.V1Customers.Retrieve(ctx, created.ID, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(read.ID == created.ID, read.Description, read.Created)
	fmt.Println("provenance:", read.LastResponse.Header.Get("X-Wraith-Provenance"))
	// Output:
	// true first agent customer 1700000000
	// provenance: handler
}

// Grading an agent by the world it leaves: run the agent and a reference
// solution in sessions provisioned alike and compare their digests. Ids
// and timestamps are the same for the same steps, so equal worlds have
// equal digests; where they differ, Diff says how.
func ExampleServer_Digest() {
	srv, err := wraithtest.New("checkout")
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()

	run := func(session string, names ...string) string {
		if _, err := srv.Provision(session, wraithtest.Seed(7), wraithtest.Fixture("baseline"), wraithtest.Clock("fixed", 1700000000)); err != nil {
			log.Fatal(err)
		}
		c := srv.Session(session)
		for _, n := range names {
			resp, err := c.PostForm(srv.URL+"/v1/customers", url.Values{"description": {n}})
			if err != nil {
				log.Fatal(err)
			}
			resp.Body.Close()
		}
		digest, err := srv.Digest(session)
		if err != nil {
			log.Fatal(err)
		}
		return digest
	}
	reference := run("reference", "alice", "bob")
	fmt.Println("agent-1 matches:", run("agent-1", "alice", "bob") == reference)
	fmt.Println("agent-2 matches:", run("agent-2", "alice", "alice") == reference)

	diff, err := srv.Diff("agent-2")
	if err != nil {
		log.Fatal(err)
	}
	for _, created := range diff.Created {
		var cus struct{ Description string }
		json.Unmarshal(created, &cus)
		fmt.Println("agent-2 created:", cus.Description)
	}
	// Output:
	// agent-1 matches: true
	// agent-2 matches: false
	// agent-2 created: alice
	// agent-2 created: alice
}
