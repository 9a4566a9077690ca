// Package embedded holds the twins built into the wraith binaries, so that
// `wraith serve checkout` works on a machine with nothing else on disk.
package embedded

import (
	"embed"
	"io/fs"
)

//go:embed all:checkout all:billing all:stripe all:github
var twins embed.FS

// FS returns the embedded twins, one folder per twin.
func FS() fs.FS { return twins }
