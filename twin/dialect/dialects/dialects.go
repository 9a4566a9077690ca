// Package dialects finds the Dialect a twin names.
package dialects

import (
	"fmt"
	"strings"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/dialect/github"
	"github.com/wraithdev/wraith/twin/dialect/rest"
	"github.com/wraithdev/wraith/twin/dialect/stripe"
)

// Names are the dialects Lookup knows, sorted.
func Names() []string { return []string{"github", "rest", "stripe"} }

// Lookup returns the dialect named name.
func Lookup(name string) (dialect.Dialect, error) {
	switch name {
	case "stripe":
		return stripe.New(), nil
	case "github":
		return github.New(), nil
	case "rest":
		return rest.New(), nil
	}
	return nil, fmt.Errorf("dialect %q: no such dialect; twin.toml's dialect is one of %s", name, strings.Join(Names(), ", "))
}
