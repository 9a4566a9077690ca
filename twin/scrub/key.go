package scrub

import (
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"strings"
)

// keyEnv is the environment variable that holds the scrub key.
const keyEnv = "WRAITH_HMAC_KEY"

// minKey is the shortest key KeyFromEnv accepts: 128 bits, if random.
const minKey = 16

// KeyFromEnv returns the scrub key from WRAITH_HMAC_KEY, read through getenv
// (os.Getenv in production). A non-empty value is used as bytes, not
// decoded, and must be at least 16 bytes long, not only white space, and
// without white space at either end. Unset or empty — an unset CI
// secret exports as empty — gives a fresh random 32-byte key and
// stable=false: the caller must warn that tokens will differ from run to run.
func KeyFromEnv(getenv func(string) string) (key []byte, stable bool, err error) {
	if v := getenv(keyEnv); v != "" {
		// A key copied with its line's end or padded with spaces would
		// differ from the same key set elsewhere without them, and a key
		// of spaces alone is no secret: both are refused, not trimmed.
		if t := strings.TrimSpace(v); t == "" {
			return nil, false, fmt.Errorf("%s is only white space: set it to a random value, e.g. from `openssl rand -hex 32`", keyEnv)
		} else if t != v {
			return nil, false, fmt.Errorf("%s starts or ends with white space (a space, a tab or a line's end, often from copying it): set it without, e.g. from `openssl rand -hex 32`", keyEnv)
		}
		if len(v) < minKey {
			return nil, false, fmt.Errorf("%s is %d bytes, want at least %d: generate one with `openssl rand -hex 32`",
				keyEnv, len(v), minKey)
		}
		return []byte(v), true, nil
	}
	key = make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, false, fmt.Errorf("generate a random scrub key: %w (or set %s)", err, keyEnv)
	}
	return key, false, nil
}

// DeriveKey returns sha256("wraith-serve-scrub-v1" + seed): a key that is
// the same in every process serving the same seed (such as a twin's
// digest), for serving without WRAITH_HMAC_KEY while keeping tokens
// deterministic. Anyone holding the seed can recompute it, so it hides
// nothing; it only keeps synthesized answers stable. The "v1" changes if
// the derivation does.
func DeriveKey(seed []byte) []byte {
	h := sha256.New()
	h.Write([]byte("wraith-serve-scrub-v1"))
	h.Write(seed)
	return h.Sum(nil)
}
