// Package scrub removes credentials from recorded HTTP exchanges and replaces
// personal data with deterministic HMAC-SHA256 tokens that keep the value's
// shape, so a twin built from recordings holds no secrets and no real people
// but still answers with an email where an email was.
//
// # Which fields are personal
//
// A JSON field, form key or query key is personal (PII) when its name,
// lowercased, is in the policy's field list (DefaultFields unless
// Policy.Fields is set) or ends with "_" followed by a listed name. Names are
// compared whole, never as substrings: a substring rule would catch
// "filename", "hostname" and "zip" inside "gzip". The suffix rule exists
// because providers prefix personal fields with their role ("billing_email",
// "customer_name", "receipt_email", "shipping_address"). Its cost is that
// neutral names such as "display_name" or "bank_name" are tokenized too;
// over-scrubbing is the safe failure, and Policy.Verbatim exempts such names
// (exact names, no suffix rule).
//
// "state" and "country" are not in the default list: "state" is a status in
// many APIs ("open", "closed") and a country code is not personal on its own.
// Inside an address they are still tokenized, because every string leaf under
// a personal field is ("address": {"state": "CA"}).
//
// # Scope of a personal field
//
// In JSON, a personal field's whole value is scrubbed: its string, every
// string leaf of an object, every string element of an array, at any depth.
// Numbers, booleans and null are kept. A Verbatim field is left exactly as it
// is, including everything under it, even inside a personal field. Form and
// query keys use the same rule over their bracket segments:
// "customer[address][line1]" is personal because "address" (and "line1") is,
// "metadata[order]" is not, "metadata[email]" is.
//
// # Tokens
//
// A token depends on the key and the value only, never on the field name, so
// the same email under "email" and under "billing_email" becomes the same
// token and references between recorded objects still join up. See
// Scrubber.Token for the shapes. Tokens are recognised on sight and returned
// unchanged, so scrubbing scrubbed data changes nothing.
//
// # Credentials
//
// Headers drops credential headers; Query and Form drop credential keys
// (see isCredentialKey). Response bodies are not searched for secrets: a
// provider that echoes a secret in a body needs a field policy.
package scrub
