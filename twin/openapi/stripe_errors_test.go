package openapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
	"github.com/stripe/stripe-go/v82"
)

// TestStripeErrorShapesInventNothing reads every [errors.*] shape of the
// embedded stripe twin: the error object holds only strings the error
// fills (message, code, param, type, placeholders such as "{entity}"),
// never a sampled object or list, which an SDK would decode as a real
// PaymentIntent, PaymentMethod or SetupIntent the request never produced.
func TestStripeErrorShapesInventNothing(t *testing.T) {
	b, err := fs.ReadFile(mustSub(t, "stripe"), "twin.toml")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Errors map[string]struct {
			Status int    `toml:"status"`
			Body   string `toml:"body"`
		} `toml:"errors"`
	}
	if err := toml.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Errors) < 5 {
		t.Fatalf("want the five inferred error shapes and the overlay's, have %d", len(m.Errors))
	}
	names := make([]string, 0, len(m.Errors))
	for name := range m.Errors {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			var body struct {
				Error map[string]any `json:"error"`
			}
			if err := json.Unmarshal([]byte(m.Errors[name].Body), &body); err != nil {
				t.Fatalf("body: %v", err)
			}
			if body.Error == nil {
				t.Fatalf("want an error object, have %s", m.Errors[name].Body)
			}
			for k, v := range body.Error {
				if _, ok := v.(string); !ok {
					t.Errorf("error.%s: want a string the error fills, have the invented %s", k, firstLine(fmt.Sprint(v)))
				}
			}
		})
	}
}

// TestStripeDeletedCustomerError updates a deleted customer: Stripe's 404
// resource_missing, with no payment_intent, payment_method or
// setup_intent, in the raw body and as stripe-go decodes it.
func TestStripeDeletedCustomerError(t *testing.T) {
	srv := startTwin(t, "stripe", "--clock", "deterministic")
	ctx := context.Background()
	sc := stripeClient(srv.URL(), "deleted-customer")
	c, err := sc.V1Customers.Create(ctx, &stripe.CustomerCreateParams{Email: stripe.String("a@example.com")})
	stateful(t, "customer create", c.LastResponse, err)
	_, err = sc.V1Customers.Delete(ctx, c.ID, nil)
	if err != nil {
		t.Fatalf("customer delete: %v", err)
	}
	_, err = sc.V1Customers.Update(ctx, c.ID, &stripe.CustomerUpdateParams{Description: stripe.String("again")})
	var se *stripe.Error
	if !errors.As(err, &se) {
		t.Fatalf("update after delete: want a *stripe.Error, have %v", err)
	}
	if se.HTTPStatusCode != 404 || se.Code != stripe.ErrorCodeResourceMissing {
		t.Errorf("update after delete: want 404 resource_missing, have %d %s", se.HTTPStatusCode, se.Code)
	}
	if se.PaymentIntent != nil || se.PaymentMethod != nil || se.SetupIntent != nil {
		t.Errorf("update after delete: want no payment_intent, payment_method or setup_intent, have them set: %t, %t, %t", se.PaymentIntent != nil, se.PaymentMethod != nil, se.SetupIntent != nil)
	}

	req, err := http.NewRequest("POST", srv.URL()+"/v1/customers/"+c.ID, strings.NewReader(url.Values{"description": {"again"}}.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Wraith-Session", "deleted-customer")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Error map[string]json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatalf("body %s: %v", raw, err)
	}
	for _, k := range []string{"payment_intent", "payment_method", "setup_intent", "source", "charge"} {
		if v, ok := body.Error[k]; ok {
			t.Errorf("error.%s: want absent, have %s", k, firstLine(string(v)))
		}
	}
}
