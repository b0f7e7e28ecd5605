package live

import (
	"bytes"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// BuildDisco builds this module's disco command into dir and returns the binary's path.
func BuildDisco(dir string) (string, error) {
	bin := filepath.Join(dir, "disco")
	build := exec.Command("go", "build", "-o", bin, "github.com/discolab/disco")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	return bin, build.Run()
}

// FreeAddr is a loopback address whose port nobody listens on now.
func FreeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// Dev is one running `disco dev`.
type Dev struct {
	// Creds is the credentials.json it wrote.
	Creds Credentials
	// Output is what it printed, standard output and standard error together.
	Output *Output
	cmd    *exec.Cmd
	// done holds cmd.Wait's result once it has exited; whoever takes it puts it back.
	done chan error
}

// banner is the line `disco dev` prints, after the facade serves, above the addresses and
// keys a newcomer needs (app/dev.go).
const banner = "disco is running."

// StartDev runs `bin dev --data-dir dataDir --listen addr args...` and waits until it is
// ready: /readyz answers 200, credentials.json is read and the banner is printed. It is
// stopped (Stop) when t ends, and its output logged when t failed.
func StartDev(t testing.TB, bin, dataDir, addr string, args ...string) *Dev {
	t.Helper()
	d := &Dev{Output: &Output{}, done: make(chan error, 1)}
	d.cmd = exec.Command(bin, append([]string{"dev", "--data-dir", dataDir, "--listen", addr}, args...)...)
	d.cmd.Stdout, d.cmd.Stderr = d.Output, d.Output
	dieWithTest(d.cmd)
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { d.done <- d.cmd.Wait() }()
	t.Cleanup(func() {
		if err := d.Stop(t); err != nil {
			t.Logf("disco dev exited: %v", err)
		}
		if t.Failed() {
			t.Logf("disco dev output:\n%s", d.Output)
		}
	})

	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		select {
		case err := <-d.done:
			d.done <- err
			t.Fatalf("disco dev exited early (%v):\n%s", err, d.Output)
		default:
		}
		// The facade serves only after credentials.json is written (a restart keeps the
		// file: disco dev reuses the key in it), so read it once the facade is ready.
		if resp, err := http.Get("http://" + addr + "/readyz"); err == nil {
			resp.Body.Close()
			creds, err := ReadCredentials(filepath.Join(dataDir, "credentials.json"))
			if resp.StatusCode == http.StatusOK && err == nil && strings.Contains(d.Output.String(), banner) {
				d.Creds = creds
				return d
			}
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Fatalf("disco dev did not become ready:\n%s", d.Output)
	return nil
}

// Stop sends SIGINT and waits for the exit, whose error it returns; it fails t when disco
// dev is still running 60 s later, and kills it. A process that has exited is not signalled.
func (d *Dev) Stop(t testing.TB) error {
	select {
	case err := <-d.done:
		d.done <- err
		return err
	default:
	}
	_ = d.cmd.Process.Signal(syscall.SIGINT) // fails only if it has exited, which done reports
	select {
	case err := <-d.done:
		d.done <- err
		return err
	case <-time.After(60 * time.Second):
		_ = d.cmd.Process.Kill()
		t.Errorf("disco dev did not stop within 60s after SIGINT:\n%s", d.Output)
		return errors.New("killed")
	}
}

// Kill sends SIGKILL, as a crash would, and returns the exit's error once it has exited.
func (d *Dev) Kill(t testing.TB) error {
	t.Helper()
	if err := d.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := <-d.done
	d.done <- err
	return err
}

// Output collects what a process prints while a test reads it.
type Output struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (o *Output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.Write(p)
}

func (o *Output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}
