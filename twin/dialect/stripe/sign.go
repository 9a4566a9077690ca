package stripe

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"

	"github.com/wraithdev/wraith/twin/dialect"
)

var _ dialect.Signer = Dialect{}

// Sign sets Stripe-Signature as Stripe signs a webhook delivery: "t=" the
// attempt's unix time, ",v1=" the hex HMAC-SHA256 of "t.body" keyed by
// the endpoint's secret (docs.stripe.com/webhooks, "Verify manually").
// The time is the wall clock's, not the session's: the clients' verifiers
// refuse a signature more than five minutes from their own clock.
func (Dialect) Sign(h http.Header, secret string, body []byte, at int64) {
	t := strconv.FormatInt(at, 10)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(t))
	mac.Write([]byte{'.'})
	mac.Write(body)
	h.Set("Stripe-Signature", "t="+t+",v1="+hex.EncodeToString(mac.Sum(nil)))
}
