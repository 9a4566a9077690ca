package stripe

import (
	"net/http"

	"github.com/wraithdev/wraith/twin/dialect"
)

// Errors are Stripe's answers for the kinds a Stripe twin's [errors] may
// leave out: a recorded twin has the shapes its recordings showed, and
// rarely a write naming an entity that does not exist.
func (Dialect) Errors() map[string]dialect.Shape {
	return map[string]dialect.Shape{
		// No such customer: 'cus_x', refused as a bad parameter (400),
		// not as a missing path (404).
		"missing_reference": {Status: http.StatusBadRequest, Body: `{"error":{"code":"resource_missing","doc_url":"https://stripe.com/docs/error-codes/resource-missing","message":"{message}","param":"{param}","type":"invalid_request_error"}}`},
	}
}
