package server

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestStripeNodePayments runs stripe-node through Stripe's accept-a-payment
// flow on the embedded stripe twin: a payment confirmed on create (its
// charge succeeded and captured), refunded in two parts, then a third
// refund refused with Stripe's 400 (twin/openapi's payment flows drive the
// rest through stripe-go).
func TestStripeNodePayments(t *testing.T) {
	dir := needNode(t)
	srv := startServer(t, "stripe", "--unknown-entity", "not_found", "--clock", "deterministic", "--clock-epoch", "1700000000")
	cmd := exec.Command("node", filepath.Join(dir, "stripe_payments.js"), srv.URL(), "sk_test_x.wraith.node-payments")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("stripe-node: %v\n%s", err, stderr)
	}
	var have struct {
		Status         string  `json:"status"`
		AmountReceived int64   `json:"amount_received"`
		Charge         string  `json:"charge"`
		ChargeStatus   string  `json:"charge_status"`
		Captured       bool    `json:"captured"`
		Refunds        []int64 `json:"refunds"`
		AmountRefunded int64   `json:"amount_refunded"`
		Refunded       bool    `json:"refunded"`
		Third          *struct {
			Status  int    `json:"status"`
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"third"`
	}
	if err := json.Unmarshal(out, &have); err != nil {
		t.Fatalf("stripe-node printed %s: %v", out, err)
	}
	if have.Status != "succeeded" || have.AmountReceived != 2000 || have.ChargeStatus != "succeeded" || !have.Captured {
		t.Errorf("confirm=true: want succeeded, 2000 received, a succeeded captured charge; have %+v", have)
	}
	if len(have.Refunds) != 2 || have.Refunds[0] != 500 || have.Refunds[1] != 1500 || have.AmountRefunded != 2000 || !have.Refunded {
		t.Errorf("refunds: want 500 then what was left (1500), the charge refunded; have %v, %d refunded %v", have.Refunds, have.AmountRefunded, have.Refunded)
	}
	if want := "Charge " + have.Charge + " has already been refunded."; have.Third == nil || have.Third.Status != 400 || have.Third.Code != "charge_already_refunded" || have.Third.Message != want {
		t.Errorf("third refund: want 400 charge_already_refunded %q, have %+v", want, have.Third)
	}
}
