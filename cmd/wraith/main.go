// Command wraith serves API twins for agents and CI: one twin in this
// process (serve), or several supervised children (up, env, down, status).
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], newFactory()))
}
