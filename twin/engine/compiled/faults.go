package compiled

import (
	"strings"

	"github.com/wraithdev/wraith/twin/fault"
	"github.com/wraithdev/wraith/twin/format"
)

// compileProfiles builds the built-in fault profiles and the twin's own.
func (c *compiler) compileProfiles() (*fault.Set, error) {
	set, err := fault.Compile(fault.Twin{
		Name:     c.src.Name(),
		Profiles: c.src.Manifest.FaultProfiles,
		Errors:   &c.src.Manifest.Errors,
		HasRoute: c.hasRoute,
		Shape: func(a *format.Answer, status int) (int, []byte, error) {
			s, err := compileShaped(a, status)
			if err != nil {
				return 0, nil, err
			}
			return s.Status, []byte(s.Body), nil
		},
	})
	if err != nil {
		return nil, err
	}
	return set, nil
}

// hasRoute reports whether tmpl is one of the twin's route templates.
func (c *compiler) hasRoute(method, tmpl string) bool {
	methods := []string{method}
	if method == "" {
		methods = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}
	}
	for _, m := range methods {
		if ep, ok := c.out.Router.Match(m, tmpl); ok && ep.Value.Path() == tmpl {
			return true
		}
	}
	return false
}

// Path is the path template of the endpoint's route.
func (ep *Endpoint) Path() string {
	r := ep.Route[0]
	return r[strings.IndexByte(r, ' ')+1:]
}
