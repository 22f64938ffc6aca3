package httpx

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"testing"
	"time"
)

// loopbackPair is a coalescing connection and the other end of it.
func loopbackPair(t testing.TB) (*coalescingConn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	peer, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(); peer.Close() })
	return &coalescingConn{Conn: c}, peer
}

// TestReadDeadlines: a read deadline keeps its meaning when it is put off
// until the next read: the last one set before a read applies to it, one
// set during a read applies to that read.
func TestReadDeadlines(t *testing.T) {
	past := time.Now().Add(-time.Second)
	tests := []struct {
		name    string
		set     func(c *coalescingConn)
		timeout bool // the next read times out; else it gets the peer's byte
	}{
		{"past deadline", func(c *coalescingConn) { c.SetReadDeadline(past) }, true},
		{"past, then none", func(c *coalescingConn) { c.SetReadDeadline(past); c.SetReadDeadline(time.Time{}) }, false},
		{"none, then past", func(c *coalescingConn) { c.SetReadDeadline(time.Time{}); c.SetReadDeadline(past) }, true},
		{"past, then a later one", func(c *coalescingConn) { c.SetReadDeadline(past); c.SetReadDeadline(time.Now().Add(time.Minute)) }, false},
		{"past for both sides", func(c *coalescingConn) { c.SetDeadline(past) }, true},
		{"past read deadline, then none for both", func(c *coalescingConn) { c.SetReadDeadline(past); c.SetDeadline(time.Time{}) }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, peer := loopbackPair(t)
			tt.set(c)
			if !tt.timeout {
				peer.Write([]byte("x"))
			}
			_, err := c.Read(make([]byte, 1))
			if timedOut := errors.Is(err, os.ErrDeadlineExceeded); timedOut != tt.timeout {
				t.Errorf("read error %v, want a timeout: %v", err, tt.timeout)
			}
		})
	}

	t.Run("during a read", func(t *testing.T) {
		c, _ := loopbackPair(t)
		done := make(chan error, 1)
		go func() {
			_, err := c.Read(make([]byte, 1))
			done <- err
		}()
		for { // until the read is under way
			c.rmu.Lock()
			reading := c.reading
			c.rmu.Unlock()
			if reading {
				break
			}
			time.Sleep(time.Millisecond)
		}
		c.SetReadDeadline(past) // as net/http ends its background read
		select {
		case err := <-done:
			if !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Errorf("read error %v, want a timeout", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("a deadline set during a read did not end it")
		}
	})
}

// deadlineCountingConn counts the read deadlines that reach it.
type deadlineCountingConn struct {
	net.Conn
	deadlines *atomic.Int64
}

func (c deadlineCountingConn) SetReadDeadline(t time.Time) error {
	c.deadlines.Add(1)
	return c.Conn.SetReadDeadline(t)
}

// TestReadDeadlinesPutOff: of the read deadlines net/http sets for each
// request on a kept-alive connection, with both read timeouts set as the
// server's are, half reach the socket.
func TestReadDeadlinesPutOff(t *testing.T) {
	deadlines := new(atomic.Int64)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "ok")
	}))
	srv.Config.ReadHeaderTimeout, srv.Config.ReadTimeout, srv.Config.IdleTimeout = time.Minute, 2*time.Minute, 3*time.Minute
	inner := srv.Listener
	srv.Listener = acceptFunc{inner, func(c net.Conn) net.Conn {
		return &coalescingConn{Conn: deadlineCountingConn{c, deadlines}}
	}}
	srv.Start()
	defer srv.Close()

	const requests = 50
	client := srv.Client()
	for i := range requests {
		res, err := client.Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if string(b) != "ok" {
			t.Fatalf("request %d: body %q", i, b)
		}
	}
	// Six per request without putting off; at most three with it, and a
	// few for the connection's first and last.
	if got := deadlines.Load(); got > 3*requests+5 {
		t.Errorf("%d read deadlines reached the socket for %d requests, want at most %d", got, requests, 3*requests+5)
	}
}

// acceptFunc wraps each accepted connection.
type acceptFunc struct {
	net.Listener
	wrap func(net.Conn) net.Conn
}

func (l acceptFunc) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return l.wrap(c), nil
}
