package canon

import "fmt"

// MaxParams is how many parameters one request may carry: query and form
// pairs, plus every member and element of a JSON body. It is far past any
// provider's own limits (Stripe takes 50 metadata keys), and it bounds
// what a request makes the twin build: a 10 MiB body of five million
// array elements would otherwise cost hundreds of MiB to decode.
const MaxParams = 100_000

// Limit codes, for LimitError.Code.
const (
	LimitParams = "too-many-params"
	LimitDepth  = "params-too-deep"
)

// LimitError says a request passed MaxParams or MaxDepth.
type LimitError struct {
	Code  string // LimitParams or LimitDepth
	Limit int
	What  string // "query", "form" or "json body"
}

func (e *LimitError) Error() string {
	if e.Code == LimitDepth {
		return fmt.Sprintf("the %s nests deeper than %d levels (Wraith's limit on parameter nesting): flatten it", e.What, e.Limit)
	}
	return fmt.Sprintf("the request carries more than %d parameters (Wraith's limit on parameters per request; the %s passed it): send fewer", e.Limit, e.What)
}

// CheckLimits reports whether a request's parameters stay within
// MaxParams and MaxDepth, as Params and Body would read them. It scans
// the bytes once and allocates nothing, so a hostile request is refused
// before anything is built from it. A malformed body passes: the parser
// that reads it says what is wrong.
func CheckLimits(contentType string, body []byte, query string) error {
	n, err := countPairs("query", query, 0)
	if err != nil {
		return err
	}
	switch mediaOf(contentType) {
	case mediaForm:
		_, err = countPairs("form", body, n)
	case mediaJSON:
		err = countJSON(body, n)
	}
	return err
}

// countPairs adds the pairs of a query string or form body to n, checking
// each key's bracket levels (escaped brackets count too: %5B is a "[" once
// decoded). It reads a form body as the bytes it is: a string of it would
// be a copy of the whole body.
func countPairs[T string | []byte](what string, s T, n int) (int, error) {
	for i := 0; i < len(s); {
		end := i
		for end < len(s) && s[end] != '&' {
			end++
		}
		pair := s[i:end]
		i = end + 1
		if len(pair) == 0 {
			continue
		}
		if n++; n > MaxParams {
			return n, &LimitError{Code: LimitParams, Limit: MaxParams, What: what}
		}
		levels := 0
		for j := 0; j < len(pair) && pair[j] != '=' && levels <= MaxDepth; j++ {
			switch {
			case pair[j] == '[':
				levels++
			case pair[j] == '%' && j+2 < len(pair) && pair[j+1] == '5' && (pair[j+2] == 'B' || pair[j+2] == 'b'):
				levels++
			}
		}
		if levels > MaxDepth {
			return n, &LimitError{Code: LimitDepth, Limit: MaxDepth, What: what + " key"}
		}
	}
	return n, nil
}

// countJSON adds the values of a JSON document to n: one for the
// top-level value, one after each comma, one for the first value in each
// non-empty array or object. The top-level object and MaxDepth levels
// below it may nest, as Params reads them.
func countJSON(b []byte, n int) error {
	depth := 0
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		case '[', '{':
			if depth++; depth > MaxDepth+1 {
				return &LimitError{Code: LimitDepth, Limit: MaxDepth, What: "json body"}
			}
			j := i + 1
			for j < len(b) && (b[j] == ' ' || b[j] == '\t' || b[j] == '\n' || b[j] == '\r') {
				j++
			}
			if j < len(b) && b[j] != ']' && b[j] != '}' {
				n++
			}
		case ']', '}':
			depth--
		case ',':
			n++
		default:
			continue
		}
		if n > MaxParams {
			return &LimitError{Code: LimitParams, Limit: MaxParams, What: "json body"}
		}
	}
	return nil
}
