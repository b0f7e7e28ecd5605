package live

import (
	"os/exec"
	"syscall"
)

// dieWithTest makes the kernel send cmd SIGTERM when the test process ends, also when
// `go test` kills it at its -timeout and no Cleanup runs: a `disco dev` left behind keeps
// its control plane and ports (prctl(2), PR_SET_PDEATHSIG). The signal follows the OS
// thread that started cmd, not the process (golang/go#27505); the runtime ends threads
// only of goroutines that locked them, which the tests do not, so in practice it is the
// test process.
func dieWithTest(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
