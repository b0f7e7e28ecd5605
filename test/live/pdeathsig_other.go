//go:build !linux

package live

import "os/exec"

// dieWithTest is Linux's PR_SET_PDEATHSIG; elsewhere a killed test leaves the child to its
// Cleanup.
func dieWithTest(*exec.Cmd) {}
