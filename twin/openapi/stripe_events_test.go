package openapi_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stripe/stripe-go/v82"
)

// TestStripeEventsConform drives webhook endpoints and the event log with
// stripe-go, every answer checked against Stripe's description: an
// endpoint's create (with its secret), retrieve and list (without),
// update and delete; the events a customer's create, update and delete
// made, listed, filtered and read one by one.
func TestStripeEventsConform(t *testing.T) {
	srv := startTwin(t, "stripe", "--unknown-entity", "not_found", "--clock", "fixed")
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.Copy(io.Discard, r.Body) }))
	defer hook.Close()
	sc, _, ct := conformingStripe(t, srv.URL(), "events")
	ctx := t.Context()
	we, err := sc.V1WebhookEndpoints.Create(ctx, &stripe.WebhookEndpointCreateParams{
		URL:           stripe.String(hook.URL),
		EnabledEvents: stripe.StringSlice([]string{"*"}),
		APIVersion:    stripe.String(stripe.APIVersion),
		Description:   stripe.String("all events"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if we.Secret == "" || we.APIVersion != stripe.APIVersion {
		t.Errorf("create: want a secret and api_version %s, have %q %q", stripe.APIVersion, we.Secret, we.APIVersion)
	}
	got, err := sc.V1WebhookEndpoints.Retrieve(ctx, we.ID, nil)
	if err != nil || got.Secret != "" || got.Status != "enabled" {
		t.Errorf("retrieve: want it enabled without its secret, have %+v, %v", got, err)
	}
	for _, err := range sc.V1WebhookEndpoints.List(ctx, &stripe.WebhookEndpointListParams{}) {
		if err != nil {
			t.Fatal(err)
		}
	}
	up, err := sc.V1WebhookEndpoints.Update(ctx, we.ID, &stripe.WebhookEndpointUpdateParams{Disabled: stripe.Bool(true)})
	if err != nil || up.Status != "disabled" {
		t.Errorf("update disabled=true: want status disabled, have %+v, %v", up, err)
	}
	cus, err := sc.V1Customers.Create(ctx, &stripe.CustomerCreateParams{Email: stripe.String("e@example.com")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sc.V1Customers.Update(ctx, cus.ID, &stripe.CustomerUpdateParams{Name: stripe.String("E")}); err != nil {
		t.Fatal(err)
	}
	if _, err := sc.V1Customers.Delete(ctx, cus.ID, nil); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for e, err := range sc.V1Events.List(ctx, &stripe.EventListParams{Types: stripe.StringSlice([]string{"customer.created", "customer.updated", "customer.deleted"})}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, e.ID)
	}
	if len(ids) != 3 {
		t.Fatalf("want 3 events, have %d", len(ids))
	}
	for _, id := range ids {
		if _, err := sc.V1Events.Retrieve(ctx, id, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := sc.V1WebhookEndpoints.Delete(ctx, we.ID, nil); err != nil {
		t.Fatal(err)
	}
	if ct.checked < 12 {
		t.Errorf("want every answer checked, have %d", ct.checked)
	}
}
