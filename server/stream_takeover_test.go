package server

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/store"
)

// TestStreamingSlowClientHoldsNobodyUp: a client that stops reading while
// large changes pile up gets them through a goroutine of its own once its
// socket is full, while another stream keeps getting every change at once;
// when the slow client reads again it catches up with the latest revision.
func TestStreamingSlowClientHoldsNobodyUp(t *testing.T) {
	ts := newPushTestServer(t, Config{StreamHeartbeat: time.Hour})
	// A flag of about 100 KB, so that a few dozen changes fill any socket.
	values := make([]string, 1000)
	for i := range values {
		values[i] = fmt.Sprintf("%03d-%s", i, strings.Repeat("v", 96))
	}
	seedFlag(t, ts, "big", store.Strategy{Name: "default", Constraints: []clientapi.Constraint{{ContextName: "userId", Operator: "IN", Values: values}}})
	// Switched off once at the end: the last state then differs from every
	// earlier one. (Toggling big alone could end where the slow client
	// stopped, which is then already up to date and gets nothing more.)
	seedFlag(t, ts, "marker", store.Strategy{Name: "default"})

	slow := dialSmallWindow(t, strings.TrimPrefix(ts.url, "http://"))
	fmt.Fprintf(slow, "GET /api/client/streaming HTTP/1.1\r\nHost: test\r\nAuthorization: %s\r\n\r\n", testClientToken)
	br := bufio.NewReaderSize(slow, 1024)
	res, err := http.ReadResponse(br, nil)
	if err != nil || res.StatusCode != http.StatusOK || res.TransferEncoding[0] != "chunked" {
		t.Fatalf("slow stream: %v %+v", err, res)
	}
	body := bufio.NewReader(res.Body)
	if line, _ := body.ReadString('\n'); line != "event: unleash-connected\n" {
		t.Fatalf("slow stream starts with %q", line)
	}
	fast, _ := openStream(t, ts, testClientToken)
	fast.next()

	var last int64
	for i := range 81 {
		if i < 80 {
			toggle(t, ts, "big", i%2 == 1)
		} else {
			toggle(t, ts, "marker", false)
		}
		m := fast.next()
		if m.Event != "unleash-updated" {
			t.Fatalf("change %d: the fast stream got %+v", i, m)
		}
		last = revisionOf(t, m)
	}
	if ts.srv.streams.slowWrites.Load() == 0 {
		t.Fatal("no write to the slow stream had to wait: the test did not fill its socket")
	}
	// The slow client reads again and reaches the latest revision.
	want := []byte("id: " + strconv.FormatInt(last, 10) + "\n")
	deadline := time.Now().Add(30 * time.Second)
	for {
		_ = slow.SetReadDeadline(deadline)
		line, err := body.ReadBytes('\n')
		if err != nil {
			t.Fatalf("the slow stream never reached revision %d: %v", last, err)
		}
		if bytes.Equal(line, want) {
			break
		}
	}
}

// dialSmallWindow connects with a small receive buffer, so that a client
// that does not read fills its window quickly.
func dialSmallWindow(t *testing.T, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
		if err != nil {
			return err
		}
		return serr
	}}
	c, err := d.DialContext(context.Background(), "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestStreamingOverTLS: a stream on a TLS connection, which is not taken
// over, is served the ordinary way with the same messages.
func TestStreamingOverTLS(t *testing.T) {
	ts := newPushTestServer(t, Config{StreamHeartbeat: time.Hour})
	hs := httptest.NewTLSServer(ts.srv.Handler())
	t.Cleanup(hs.Close)
	t.Cleanup(ts.srv.CloseStreams)
	req, _ := http.NewRequest("GET", hs.URL+"/api/client/streaming", nil)
	req.Header.Set("Authorization", testClientToken)
	res, err := hs.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	rd := bufio.NewReader(res.Body)
	read := func() string {
		var b strings.Builder
		for {
			line, err := rd.ReadString('\n')
			if err != nil {
				t.Fatalf("stream over TLS: %v", err)
			}
			if line == "\n" {
				return b.String()
			}
			b.WriteString(line)
		}
	}
	if m := read(); !strings.HasPrefix(m, "event: unleash-connected\n") {
		t.Fatalf("first message %q", m)
	}
	seedFlag(t, ts, "over-tls", store.Strategy{Name: "default"})
	if m := read(); !strings.HasPrefix(m, "event: unleash-updated\n") || !strings.Contains(m, "over-tls") {
		t.Fatalf("update %q", m)
	}
	ts.srv.streams.mu.Lock()
	n := len(ts.srv.streams.taken)
	ts.srv.streams.mu.Unlock()
	if n != 0 {
		t.Errorf("%d streams taken over on TLS", n)
	}
}
