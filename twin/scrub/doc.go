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
// Lists are personal too: a name that is a listed name plus "s" or "es"
// ("emails", "phones", "phone_numbers", "addresses") is personal, so every
// string in ["a@b.com","c@d.com"] is tokenized.
//
// # Credentials
//
// A name is a credential by pattern, not by list (IsCredential). It is
// lowercased and its separators removed; it is a credential when that holds
// "secret", "password", "passwd", "passphrase", "credential", "apikey",
// "privatekey", "accesskey", "signingkey", "authkey", "signature",
// "cookie", "codeverifier" or one of Azure's key names ("accountkey",
// "primarykey", "secondarykey", "sharedkey", "masterkey",
// "subscriptionkey", "encryptionkey", "connectionstring"); or when one of its words (split at separators and camelCase)
// contains "token", or is "auth", "oauth", "authn", "authz",
// "authorization", "pwd", "sig", "otp", "cvc", "cvv", "csc", "csrf" or
// "xsrf", or starts with "auth". False positives are weighed one by one:
// words starting with "author" ("author", "authority", "authored") or
// "authentic" ("authenticated", "authentication_flow") name no secret, nor
// does "tokeniz…" ("tokenization_method"), nor "token" followed by "type",
// "hint", "endpoint", "url", "uri", "count", "limit" or "usage"
// ("token_type": "bearer"). The plural "tokens" is countable: in LLM APIs it
// names counts ("max_tokens", "tokens_used"), so its numbers are kept and
// its strings are credentials. "idempotency_key" and "publishable_key" are
// not credentials; "session_id" is not either in bodies and queries (it
// names checkout sessions), but session headers and cookies are.
//
// Query and form keys are checked per bracket segment ("card[cvc]" and
// "card[token]" are credentials), plus the bare URL names "key" (Google's
// ?key=), "sid", "sessionid", "phpsessid" and "jsessionid". Header names add
// any word starting with "session" and a bare "Key"; X-Wraith-Session is
// kept, and so does a header whose last word is "key" ("Ocp-Apim-
// Subscription-Key", "X-Ms-Encryption-Key"), Idempotency-Key aside. A bare
// "code" is an OAuth authorization code, so a credential, in a query, form
// or JSON document that also names "state", "session_state",
// "grant_type", "redirect_uri" or "code_verifier" (an OAuth callback or
// token exchange); elsewhere it is kept.
//
// What happens to a credential depends on where it is, as the product
// contract says: in request parts (headers, query, form, JSON members at
// any depth) it is removed; in response bodies (JSON, form-encoded token
// answers) its strings become SecretTokens that keep the value's shape, so
// a Stripe client_secret still reads "pi_tok…_secret_tok…". Response
// headers lose credential headers, as requests do. Credential names win over
// Verbatim: a policy can exempt personal data, never a secret.
//
// # Values found by shape
//
// In every string, whatever its field name — JSON strings (not numbers),
// query and form values, header values, text bodies — two shapes are
// replaced: card numbers (13 to 19 digits, Luhn-valid, alone or in groups
// split by single spaces or dashes, not touching a letter, digit or "_")
// by a card token of the same layout that is Luhn-valid and starts with
// 0000, which no issuer uses; and known credential formats
// (FindKnownCredential: Stripe sk_/rk_ keys and whsec_ secrets, GitHub
// ghp_/gho_/ghs_/ghu_/ghr_ and github_pat_ tokens, AWS AKIA/ASIA ids,
// Google AIza keys, Slack xox tokens, "Bearer" and a long token, private key
// blocks, JWTs) by their SecretToken (a private key block by
// PrivateKeyMarker), and Azure keys: the value after AccountKey=,
// SharedAccessKey= or SharedAccessSignature= in a connection string, and
// any 88-character base64 value ending "==" (64 bytes: a storage account
// key). URLs inside header values (Location, Link) have their query and
// fragment scrubbed as a request query. In header values, email addresses
// are tokenized; the whole value of From, and of a header whose name read
// as a field without "X-" is personal ("X-User-Email"), is tokenized.
//
// # One exchange, one Pass
//
// A Pass scrubs the parts of one exchange and remembers every value it
// removed or replaced, with its replacement (a removed credential's is its
// SecretToken), and the URL-encoded form of each. Echo then replaces those
// values wherever else they occur: providers echo what they were sent.
// Values shorter than MinEcho (6 bytes) are not searched for, so that a
// removed "1" or a tokenized "CA" does not rewrite every "1" and "CA". A
// live credential registered with Pass.Secret is searched for at any
// length, with its base64 and hex forms, and under percent, backslash and
// HTML escapes and in UTF-16, in any mix and letter case (ContainsLive).
package scrub
