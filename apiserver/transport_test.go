package apiserver

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
)

// holdBound is how long a test waits for the server before concluding that it holds
// the connection; far above every timeout the tests configure.
const holdBound = 30 * time.Second

// logLines records a server's log output.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) add(prefix, args string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, prefix+" "+args)
}

func (l *logLines) containing(s string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, line := range l.lines {
		if strings.Contains(line, s) {
			out = append(out, line)
		}
	}
	return out
}

// timedServer serves a facade over the shared environment through HTTPServer, with
// the given timeouts, and records its log.
func timedServer(t *testing.T, to Timeouts) (addr string, logs *logLines) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr = ln.Addr().String()
	logs = &logLines{}
	opts := env.server.opts
	opts.Timeouts = to
	opts.BaseURL = "http://" + addr + "/v1"
	opts.Logger = funcr.New(logs.add, funcr.Options{})
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	hs := s.HTTPServer("", nil)
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	return addr, logs
}

// rawExchange sends a request whose headers declare declared bytes of body, then the
// first chunks of it with pause between them, and then either keeps the connection
// open without sending more (the rest of the body stalls) or half-closes it (the body
// is cut short). It returns the response and whether the server announced
// Connection: close and closed the connection. It fails the test if the server has
// not answered within holdBound.
func rawExchange(t *testing.T, addr, method, path, key, contentType string, declared int, pause time.Duration, halfClose bool, chunks ...string) (*response, bool) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(holdBound)); err != nil {
		t.Fatal(err)
	}
	head := fmt.Sprintf("%s %s HTTP/1.1\r\nHost: %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n", method, path, addr, contentType, declared)
	if key != "" {
		head += "Authorization: Bearer " + key + "\r\n"
	}
	if _, err := io.WriteString(conn, head+"\r\n"); err != nil {
		t.Fatal(err)
	}
	// Read while writing: the server may answer (and close) before the body is sent.
	type result struct {
		res    *response
		closed bool
		err    error
	}
	done := make(chan result, 1)
	go func() {
		br := bufio.NewReader(conn)
		res, err := http.ReadResponse(br, nil)
		if err != nil {
			done <- result{err: fmt.Errorf("read the response: %w", err)}
			return
		}
		raw, err := io.ReadAll(res.Body)
		if err != nil {
			done <- result{err: fmt.Errorf("read the response body: %w", err)}
			return
		}
		out := &response{Status: res.StatusCode, Header: res.Header, Raw: raw}
		_ = json.Unmarshal(raw, &out.JSON)
		if !res.Close {
			done <- result{res: out} // kept alive
			return
		}
		_, err = br.ReadByte()
		if errors.Is(err, os.ErrDeadlineExceeded) {
			done <- result{err: errors.New("the connection stayed open after the answer")}
			return
		}
		done <- result{res: out, closed: err != nil}
	}()
	for i, c := range chunks {
		if i > 0 {
			time.Sleep(pause)
		}
		if _, err := io.WriteString(conn, c); err != nil {
			break // the server has answered and closed
		}
	}
	if halfClose {
		_ = conn.(*net.TCPConn).CloseWrite()
	}
	r := <-done
	if errors.Is(r.err, os.ErrDeadlineExceeded) {
		t.Fatalf("%s %s: no answer within %s: the server holds the connection", method, path, holdBound)
	}
	if r.err != nil {
		t.Fatalf("%s %s: %v", method, path, r.err)
	}
	return r.res, r.closed
}

// TestStalledBodyIsCutOff (issue 17): a client that sends headers and part of a body,
// then nothing, is answered 408 and disconnected after the stall timeout, on the
// token endpoint and the sign-in form (no credential needed) and on a JSON operation;
// one whose request is refused before its body is read is disconnected too.
func TestStalledBodyIsCutOff(t *testing.T) {
	addr, logs := timedServer(t, Timeouts{BodyStall: 200 * time.Millisecond, Body: 2 * time.Second})
	form := "application/x-www-form-urlencoded"
	r, closed := rawExchange(t, addr, "POST", "/v1/auth/token", "", form, 200, 0, false, "grant_type=refresh_token&")
	checkEnvelope(t, r, http.StatusRequestTimeout, "request_timeout")
	if !closed {
		t.Error("/v1/auth/token: connection left open after the 408")
	}
	r, closed = rawExchange(t, addr, "POST", "/v1/auth/authorize", "", form, 200, 0, false, "decision=approve&")
	checkEnvelope(t, r, http.StatusRequestTimeout, "request_timeout")
	if !closed {
		t.Error("/v1/auth/authorize: connection left open after the 408")
	}
	r, closed = rawExchange(t, addr, "POST", "/v1/projects", env.adminA, "application/json", 200, 0, false, `{"name":`)
	checkEnvelope(t, r, http.StatusRequestTimeout, "request_timeout")
	if !closed {
		t.Error("/v1/projects: connection left open after the 408")
	}
	r, closed = rawExchange(t, addr, "POST", "/v1/projects", "", "application/json", 200, 0, false, `{"name":`)
	checkEnvelope(t, r, http.StatusUnauthorized, "unauthenticated")
	if !closed {
		t.Error("unauthenticated /v1/projects: connection left open with the body unread")
	}
	if l := logs.containing("internal error"); len(l) > 0 {
		t.Errorf("stalled bodies logged as server faults: %q", l)
	}
}

// TestBodyTimeoutsSpareMovingUploads: the whole-body limit of ordinary operations
// cuts off a body that keeps trickling in, while a dataset upload at the same pace,
// which never pauses for the stall timeout, completes.
func TestBodyTimeoutsSpareMovingUploads(t *testing.T) {
	addr, _ := timedServer(t, Timeouts{BodyStall: 5 * time.Second, Body: 300 * time.Millisecond, Upload: time.Minute})
	pid := mustProject(t, env.adminA, nil)

	chunks := []string{`{"name":`, ` "slow`, ` project`, `", "description"`, `: "x"}`}
	declared := len(strings.Join(chunks, ""))
	r, _ := rawExchange(t, addr, "POST", "/v1/projects", env.adminA, "application/json", declared, 150*time.Millisecond, false, chunks...)
	checkEnvelope(t, r, http.StatusRequestTimeout, "request_timeout")

	boundary := "slowboundary"
	body := "--" + boundary + "\r\nContent-Disposition: form-data; name=\"metadata\"\r\n\r\n" +
		`{"name": "slow upload", "format": "csv"}` + "\r\n--" + boundary +
		"\r\nContent-Disposition: form-data; name=\"file\"; filename=\"d.csv\"\r\nContent-Type: text/csv\r\n\r\n" +
		string(csvData(50)) + "\r\n--" + boundary + "--\r\n"
	var parts []string
	for i := 0; i < len(body); i += len(body)/5 + 1 {
		parts = append(parts, body[i:min(i+len(body)/5+1, len(body))])
	}
	r, _ = rawExchange(t, addr, "POST", "/v1/projects/"+pid+"/datasets", env.adminA, "multipart/form-data; boundary="+boundary,
		len(body), 150*time.Millisecond, false, parts...)
	r.expect(t, http.StatusCreated)
}

// TestSignInFormOverItsLimitIs413: the sign-in form is read by its handler, and a body
// over its limit is answered like any other, 413 payload_too_large with the limit.
func TestSignInFormOverItsLimitIs413(t *testing.T) {
	r := call(t, "POST", "/v1/auth/authorize", "", "username="+strings.Repeat("x", 70<<10),
		"Content-Type", "application/x-www-form-urlencoded")
	checkEnvelope(t, r, http.StatusRequestEntityTooLarge, "payload_too_large")
	if r.errDetails()["limit_bytes"] != float64(64<<10) {
		t.Fatalf("details %v", r.errDetails())
	}
}

// TestTruncatedBodyIs400 (issue 17): a body shorter than its Content-Length (the
// client closes early) is the client's fault: 400 malformed_request with the envelope,
// not 500, and nothing is logged as a server fault.
func TestTruncatedBodyIs400(t *testing.T) {
	addr, logs := timedServer(t, Timeouts{})
	form := "application/x-www-form-urlencoded"
	r, _ := rawExchange(t, addr, "POST", "/v1/auth/token", "", form, 500, 0, true, "grant_type=refresh_token&refresh_token=abc")
	checkEnvelope(t, r, http.StatusBadRequest, "malformed_request")
	r, _ = rawExchange(t, addr, "POST", "/v1/projects", env.adminA, "application/json", 500, 0, true, `{"name": "cut`)
	checkEnvelope(t, r, http.StatusBadRequest, "malformed_request")
	if l := logs.containing("internal error"); len(l) > 0 {
		t.Errorf("truncated bodies logged as server faults: %q", l)
	}
}
