// The disco binary: one binary and one image for every role (see DESIGN.md).
//
//	disco dev        the local stack: embedded control plane, manager, facade, SQLite, blobs
//	disco manager    the controllers, in a cluster
//	disco apiserver  the REST facade, in a cluster
//	disco engine     discovery on a dataset file (what run Jobs execute)
//	disco mcp        the tool-calling agent server over stdio
//	disco users      user administration
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/discolab/disco/app"
)

func main() {
	cmd, err := app.NewRoot().ExecuteC()
	if err == nil {
		return
	}
	// `disco engine` prints its own one-line error; everything else is printed here.
	if !strings.HasPrefix(cmd.CommandPath(), "disco engine") {
		fmt.Fprintf(os.Stderr, "disco: %v\n", err)
	}
	os.Exit(1)
}
