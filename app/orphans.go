package app

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The control plane runs as child processes. If `disco dev` is killed (SIGKILL, a crash, a
// closed terminal), they outlive it and keep etcd's data dir locked, so the next start
// would fail. disco dev records their PIDs in the data dir and, holding the data-dir lock
// (so no live disco dev owns them), stops any that are left over before starting.

const pidFile = "controlplane.pids"

// recordChildren writes the PIDs of this process's etcd and kube-apiserver children.
func recordChildren(dataDir string) error {
	var pids []string
	entries, ok := procEntries()
	if !ok {
		return nil // not Linux: nothing to record
	}
	self := os.Getpid()
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, name := procParent(pid); ppid == self && (name == "etcd" || name == "kube-apiserver") {
			pids = append(pids, strconv.Itoa(pid))
		}
	}
	return os.WriteFile(filepath.Join(dataDir, pidFile), []byte(strings.Join(pids, "\n")+"\n"), 0o600)
}

// procEntries lists /proc; ok is false where it cannot be read (not Linux).
func procEntries() (entries []os.DirEntry, ok bool) {
	entries, err := os.ReadDir("/proc")
	return entries, err == nil
}

// reapOrphans stops control-plane processes a previous, killed disco dev left running.
func reapOrphans(dataDir string, log func(string)) {
	raw, err := os.ReadFile(filepath.Join(dataDir, pidFile))
	if err != nil {
		return
	}
	for _, field := range strings.Fields(string(raw)) {
		pid, err := strconv.Atoi(field)
		if err != nil {
			continue
		}
		if _, name := procParent(pid); name != "etcd" && name != "kube-apiserver" {
			continue // gone, or the PID now belongs to something else
		}
		log(fmt.Sprintf("stopping %s (pid %d) left over from a previous run that did not shut down", procName(pid), pid))
		_ = syscall.Kill(pid, syscall.SIGTERM) // best effort: it may have exited already
		for i := 0; i < 50 && processAlive(pid); i++ {
			time.Sleep(100 * time.Millisecond)
		}
		if processAlive(pid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			for i := 0; i < 50 && processAlive(pid); i++ {
				time.Sleep(100 * time.Millisecond)
			}
		}
	}
	os.Remove(filepath.Join(dataDir, pidFile))
}

// procParent reads the parent PID and command name of a process from /proc/<pid>/stat.
func procParent(pid int) (int, string) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, ""
	}
	// "pid (comm) state ppid ...": comm may contain spaces, so split at the last ')'.
	open, close := bytes.IndexByte(raw, '('), bytes.LastIndexByte(raw, ')')
	if open < 0 || close < open {
		return 0, ""
	}
	fields := strings.Fields(string(raw[close+1:]))
	if len(fields) < 2 {
		return 0, ""
	}
	ppid, _ := strconv.Atoi(fields[1])
	return ppid, string(raw[open+1 : close])
}

func procName(pid int) string { _, n := procParent(pid); return n }

// processAlive reports whether the process exists and is not a zombie (an exited process
// whose parent has not reaped it yet).
func processAlive(pid int) bool {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return err == nil && !bytes.Contains(raw, []byte(") Z "))
}
