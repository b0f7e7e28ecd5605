package app

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/healthz"
)

// A client that stalls a request body on the manager's probe port is cut off; controller-
// runtime's own probe server would hold the connection for as long as the client likes.
func TestOpsServerCutsOffStalledBodies(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		// A server that fails to start shows as the dial below failing.
		_ = opsServer("health probe", addr, probeMux(map[string]healthz.Checker{"ping": healthz.Ping})).Start(ctx)
	}()

	var conn net.Conn
	for range 50 {
		if conn, err = net.Dial("tcp", addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// A healthy request is answered.
	if _, err := io.WriteString(conn, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /healthz = %v %v", resp, err)
	}
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		t.Fatal(err)
	}
	// Then a body that never comes.
	if _, err := io.WriteString(conn, "POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc"); err != nil {
		t.Fatal(err)
	}
	if err := conn.SetReadDeadline(time.Now().Add(45 * time.Second)); err != nil {
		t.Fatal(err)
	}
	_, err = io.Copy(io.Discard, br)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("the stalled connection was still open after 45 s")
	}
}
