package scrub

import (
	"crypto/hmac"
	"crypto/sha256"
	"hash"
	"sync"
)

// Policy is a twin's PII policy.
type Policy struct {
	// Fields replaces DefaultFields when non-empty.
	Fields []string
	// Verbatim names fields whose values are never tokenized, nor anything
	// under them. Matched exactly (case-insensitive), without the suffix rule.
	Verbatim []string
}

// DefaultFields returns the field names treated as personal when a policy
// names none. The caller owns the returned slice.
//
// Names already covered by the suffix rule ("first_name" ends in "_name")
// are listed anyway so that a policy copied from this list reads complete.
func DefaultFields() []string {
	return []string{
		"name", "first_name", "last_name", "full_name",
		"email",
		"phone", "phone_number",
		"login", "username",
		"address", "line1", "line2", "city", "postal_code", "zip",
		"ip", "ip_address",
		"tax_id", "ssn", "ssn_last_4", "id_number",
		"dob", "birth_date", "birthdate", "date_of_birth",
	}
}

// stackName is the size of the buffer IsPII lowercases into; longer names
// spill to the heap.
const stackName = 64

// Scrubber tokenizes and removes sensitive values. It is safe for
// concurrent use.
type Scrubber struct {
	pii      map[string]struct{}
	verbatim map[string]struct{}
	// tail is how many trailing bytes of a field name can take part in a
	// match: the longest listed name plus its "_" and a plural "es".
	tail int
	// vlen is the longest Verbatim name; longer fields are not looked up.
	vlen int
	macs sync.Pool // *mac
}

// New returns a scrubber keyed by key (see KeyFromEnv) under policy p.
func New(key []byte, p Policy) *Scrubber {
	fields := p.Fields
	if len(fields) == 0 {
		fields = DefaultFields()
	}
	s := &Scrubber{
		pii:      make(map[string]struct{}, len(fields)),
		verbatim: make(map[string]struct{}, len(p.Verbatim)),
	}
	for _, f := range fields {
		f = string(lower(nil, f))
		if f == "" {
			continue
		}
		s.pii[f] = struct{}{}
		s.tail = max(s.tail, len(f)+3) // "_" before, "es" after
	}
	for _, f := range p.Verbatim {
		s.verbatim[string(lower(nil, f))] = struct{}{}
		s.vlen = max(s.vlen, len(f))
	}
	k := append([]byte(nil), key...)
	s.macs.New = func() any {
		return &mac{h: hmac.New(sha256.New, k)}
	}
	return s
}

// mac is a reusable HMAC with scratch space, so that Token allocates only
// its result.
type mac struct {
	h   hash.Hash
	in  []byte
	sum [sha256.Size]byte
}

// IsPII reports whether values under field are tokenized: its lowercased
// name is listed or ends with "_" and a listed name, and it is not Verbatim.
// It does not allocate unless the policy names a field longer than 63 bytes.
func (s *Scrubber) IsPII(field string) bool {
	return !exempt(s, field) && listed(s, field)
}

// listed reports whether field matches the field list, Verbatim aside. It
// takes a string or bytes so that the JSON walker can look up keys without
// copying them into strings.
func listed[T string | []byte](s *Scrubber, field T) bool {
	// Only the tail of a long name can match, so only the tail is lowercased.
	name := field
	if len(name) > s.tail {
		name = name[len(name)-s.tail:]
	}
	var buf [stackName]byte
	b := lower(buf[:0], name)
	// m[string(b)] is a lookup the compiler does without copying b.
	if len(field) <= s.tail {
		if _, ok := s.pii[string(b)]; ok {
			return true
		}
	}
	for i, c := range b {
		if c != '_' {
			continue
		}
		if _, ok := s.pii[string(b[i+1:])]; ok {
			return true
		}
	}
	// Plurals name lists of the same data: "emails", "phone_numbers",
	// "addresses", "ips".
	if n := len(b); n > 1 && b[n-1] == 's' {
		if listedExact(s, b[:n-1]) || n > 2 && b[n-2] == 'e' && listedExact(s, b[:n-2]) {
			return true
		}
	}
	return false
}

// listedExact is listed for an already lowercased name that fits the tail.
func listedExact(s *Scrubber, b []byte) bool {
	if _, ok := s.pii[string(b)]; ok {
		return true
	}
	for i, c := range b {
		if c != '_' {
			continue
		}
		if _, ok := s.pii[string(b[i+1:])]; ok {
			return true
		}
	}
	return false
}

// exempt reports whether field is Verbatim.
func exempt[T string | []byte](s *Scrubber, field T) bool {
	if len(field) > s.vlen {
		return false
	}
	var buf [stackName]byte
	_, ok := s.verbatim[string(lower(buf[:0], field))]
	return ok
}

// lower appends name, ASCII-lowercased, to dst. Non-ASCII bytes are kept:
// field names in provider APIs are ASCII.
func lower[T string | []byte](dst []byte, name T) []byte {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}
