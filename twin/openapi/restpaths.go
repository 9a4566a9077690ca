package openapi

import (
	"net/url"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// BasePath is the path a description's operation at path is served under,
// from the servers that apply to it (the operation's, else its path's,
// else the document's): the first server's URL path, its variables
// replaced by their defaults, without a trailing "/". Asana's
// https://app.asana.com/api/1.0 gives /api/1.0; a server of "/" or none
// gives "". An SDK configured with the provider's base URL then finds
// the twin's routes where it looks for them.
func BasePath(doc *openapi3.T, path string, op *openapi3.Operation) string {
	servers := doc.Servers
	if item := doc.Paths.Value(path); item != nil && len(item.Servers) > 0 {
		servers = item.Servers
	}
	if op != nil && op.Servers != nil && len(*op.Servers) > 0 {
		servers = *op.Servers
	}
	if len(servers) == 0 || servers[0] == nil {
		return ""
	}
	s := servers[0]
	raw := s.URL
	for name, v := range s.Variables {
		if v != nil {
			raw = strings.ReplaceAll(raw, "{"+name+"}", v.Default)
		}
	}
	u, err := url.Parse(raw)
	if err != nil || strings.Contains(u.Path, "{") {
		return ""
	}
	return strings.TrimSuffix(u.Path, "/")
}

// ServedPath is where the twin serves a description's operation: the
// base path, then the path without a "#fragment" (Box writes
// /files/{file_id}#add_shared_link beside /files/{file_id} for two uses
// of one endpoint, which a request cannot tell apart by its path).
func ServedPath(doc *openapi3.T, o Operation) string {
	p, _, _ := strings.Cut(o.Path, "#")
	return BasePath(doc, o.Path, o.Op) + p
}
