// Command pause is the pod sandbox ("pause") container: it holds the pod's namespaces open and
// does nothing else. It sleeps until SIGTERM or SIGINT and then exits 0. As PID 1 of a pod that
// shares its process namespace it also reaps orphaned children, so they do not linger as
// zombies. It mirrors the behaviour of Kubernetes' build/pause/linux/pause.c; disco builds it
// because no registry with registry.k8s.io/pause can be reached (issue 13).
package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	if len(os.Args) > 1 && (os.Args[1] == "-v" || os.Args[1] == "--version" || os.Args[1] == "--help") {
		fmt.Println("pause: holds a pod's namespaces until SIGTERM or SIGINT (disco)")
		return
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGCHLD)
	if os.Getpid() != 1 {
		fmt.Fprintln(os.Stderr, "Warning: pause should be the first process")
	}
	for sig := range sigs {
		if sig == syscall.SIGCHLD {
			reap()
			continue
		}
		fmt.Fprintf(os.Stderr, "Shutting down, got signal: %v\n", sig)
		os.Exit(0)
	}
}

// reap collects every exited child without blocking (wait(2) with WNOHANG until none is left).
func reap() {
	for {
		var status syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil)
		if pid <= 0 || err != nil {
			return
		}
	}
}
