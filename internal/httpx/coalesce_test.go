package httpx

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// countingListener counts the writes its connections make.
type countingListener struct {
	net.Listener
	writes *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return countingConn{c, l.writes}, nil
}

type countingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c countingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// coalescingServer serves h behind Recover (which gives requests their
// statusWriter) on a coalescing listener, counting its writes.
func coalescingServer(t *testing.T, h http.Handler) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	writes := new(atomic.Int64)
	srv := httptest.NewUnstartedServer(Chain(h, Recover(slog.New(slog.NewTextHandler(io.Discard, nil)))))
	srv.Listener = coalescingListener{countingListener{srv.Listener, writes}}
	srv.Config.ConnContext = connContext // as ServeCoalescing sets it
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, writes
}

// TestCoalescedAnswers: an answer written whole with its length leaves in
// one write; others as net/http writes them; every body arrives intact on
// one kept-alive connection.
func TestCoalescedAnswers(t *testing.T) {
	body := func(n int) []byte { return bytes.Repeat([]byte("0123456789abcdef"), n/16) }
	whole := func(b []byte) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", strconv.Itoa(len(b)))
			w.Write(b)
		}
	}
	mux := http.NewServeMux()
	mux.Handle("/whole-6k", whole(body(6<<10)))
	mux.Handle("/whole-1k", whole(body(1<<10)))
	mux.Handle("/whole-40k", whole(body(40<<10)))
	mux.Handle("/whole-300k", whole(body(300<<10)))
	mux.HandleFunc("/unknown-length-6k", func(w http.ResponseWriter, r *http.Request) { w.Write(body(6 << 10)) })
	mux.HandleFunc("/in-parts-6k", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(6<<10))
		w.Write(body(3 << 10))
		w.Write(body(3 << 10))
	})
	mux.HandleFunc("/flushed-then-whole-40k", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(40<<10))
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush() // the headers leave alone; the body is written past net/http's buffer
		w.Write(body(40 << 10))
	})
	srv, writes := coalescingServer(t, mux)

	tests := []struct {
		path, method string
		size         int
		wantWrites   int64 // 0: not checked
	}{
		{path: "/whole-6k", size: 6 << 10, wantWrites: 1}, // two without coalescing
		{path: "/whole-40k", size: 40 << 10},              // one writev on TCP; two writes on this counting connection
		{path: "/whole-1k", size: 1 << 10, wantWrites: 1},
		{path: "/whole-300k", size: 300 << 10},                     // the same
		{path: "/unknown-length-6k", size: 6 << 10, wantWrites: 2}, // chunked: not armed
		{path: "/in-parts-6k", size: 6 << 10, wantWrites: 2},       // not armed
		{path: "/flushed-then-whole-40k", size: 40 << 10, wantWrites: 2},
		{path: "/whole-6k", method: "HEAD", wantWrites: 1},
		{path: "/whole-6k", size: 6 << 10, wantWrites: 1}, // after a HEAD on the same connection
	}
	for _, tt := range tests {
		method := tt.method
		if method == "" {
			method = "GET"
		}
		t.Run(method+tt.path, func(t *testing.T) {
			before := writes.Load()
			req, _ := http.NewRequest(method, srv.URL+tt.path, nil)
			res, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(res.Body)
			res.Body.Close()
			if err != nil || res.StatusCode != http.StatusOK {
				t.Fatalf("status %d, %v", res.StatusCode, err)
			}
			if want := body(tt.size); !bytes.Equal(got, want) {
				t.Fatalf("body of %d bytes, want %d bytes as sent", len(got), len(want))
			}
			if n := writes.Load() - before; tt.wantWrites != 0 && n != tt.wantWrites {
				t.Errorf("%d writes, want %d", n, tt.wantWrites)
			}
		})
	}
}

// TestCoalescingHoldsNoStream: what a streaming handler flushes reaches
// the client while the handler waits: only complete answers are held.
func TestCoalescingHoldsNoStream(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	srv, _ := coalescingServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(bytes.Repeat([]byte("x"), 4<<10))
		w.(http.Flusher).Flush()
		<-release
	}))
	res, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	got := make(chan error, 1)
	go func() {
		_, err := io.ReadFull(res.Body, make([]byte, 4<<10))
		got <- err
	}()
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the flushed part did not arrive while the handler waits")
	}
}

// TestCoalescedAnswersUnderLoad: answers of every kind, from several
// goroutines over kept-alive connections, all arrive whole. (net/http's
// background read of a connection races with the handler's writes.)
func TestCoalescedAnswersUnderLoad(t *testing.T) {
	sizes := []int{2 << 10, 6 << 10, 40 << 10, 100 << 10}
	mux := http.NewServeMux()
	for _, n := range sizes {
		b := bytes.Repeat([]byte{byte('a' + n%26)}, n)
		mux.HandleFunc("/"+strconv.Itoa(n), func(w http.ResponseWriter, r *http.Request) {
			if r.Method == "POST" {
				io.Copy(io.Discard, r.Body)
			}
			w.Header().Set("Content-Length", strconv.Itoa(len(b)))
			w.Write(b)
		})
	}
	srv, _ := coalescingServer(t, mux)
	client := srv.Client()
	errs := make(chan error, 8)
	for g := range 8 {
		go func() {
			for i := range 150 {
				n := sizes[(g+i)%len(sizes)]
				method, body := "GET", io.Reader(nil)
				if i%3 == 0 {
					method, body = "POST", strings.NewReader(`{"context":{}}`)
				}
				req, _ := http.NewRequest(method, srv.URL+"/"+strconv.Itoa(n), body)
				res, err := client.Do(req)
				if err != nil {
					errs <- err
					return
				}
				got, err := io.ReadAll(res.Body)
				res.Body.Close()
				if err != nil || len(got) != n || bytes.Count(got, got[:1]) != n {
					errs <- fmt.Errorf("%s /%d: %d bytes, %v", method, n, len(got), err)
					return
				}
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// TestCoalescingConnUnwraps: a handler that takes the connection over gets
// the socket underneath (stream takeover writes to its descriptor).
func TestCoalescingConnUnwraps(t *testing.T) {
	got := make(chan net.Conn, 1)
	srv, _ := coalescingServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer c.Close()
		if u, ok := c.(interface{ NetConn() net.Conn }); ok {
			c = u.NetConn()
		}
		got <- c
		io.WriteString(c, "HTTP/1.1 204 No Content\r\n\r\n")
	}))
	res, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if c := <-got; c == nil || fmt.Sprintf("%T", c) != "httpx.countingConn" {
		t.Fatalf("taken over as %T, want the connection under the coalescing one", c)
	}
}
