package load

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// hijacked answers with raw bytes and closes the connection, for answers
// net/http would not send.
func hijacked(w http.ResponseWriter, raw string) {
	conn, bw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(err) // httptest servers always allow it
	}
	_, _ = bw.WriteString(raw)
	_ = bw.Flush()
	_ = conn.Close()
}

func TestRunRawAnswers(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write(bytes.Repeat([]byte(`{"name":"flag","enabled":true}`), 50))
	_ = zw.Close()
	bigBody := bytes.Repeat([]byte("0123456789abcdef"), 8<<10) // 128 KiB

	tests := []struct {
		name    string
		handler func(t *testing.T, n int64) http.HandlerFunc // n numbers requests from 1
		cfg     Config                                       // URL is a path; Requests defaults to 60
		status  map[int]int64
		bytes   int64
		errors  map[string]int64
		conns   [2]int64 // least and most connections opened
	}{
		{
			name: "content-length",
			handler: func(*testing.T, int64) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "hello world") }
			},
			status: map[int]int64{200: 60}, bytes: 60 * 11, conns: [2]int64{1, 3},
		},
		{
			name: "chunked",
			handler: func(t *testing.T, _ int64) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					_, _ = io.WriteString(w, "abc")
					// A flush before the end makes net/http chunk the body.
					if err := http.NewResponseController(w).Flush(); err != nil {
						t.Error(err)
					}
					_, _ = io.WriteString(w, "defg")
				}
			},
			status: map[int]int64{200: 60}, bytes: 60 * 7, conns: [2]int64{1, 3},
		},
		{
			name: "304 without body",
			handler: func(*testing.T, int64) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Etag", `"v1"`)
					w.WriteHeader(http.StatusNotModified)
				}
			},
			status: map[int]int64{304: 60}, conns: [2]int64{1, 3},
		},
		{
			name: "HEAD has a length but no body",
			handler: func(*testing.T, int64) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "hello") }
			},
			cfg:    Config{Method: http.MethodHead},
			status: map[int]int64{200: 60}, conns: [2]int64{1, 3},
		},
		{
			name: "gzip counted as sent",
			handler: func(*testing.T, int64) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Encoding", "gzip")
					_, _ = w.Write(gz.Bytes())
				}
			},
			status: map[int]int64{200: 60}, bytes: 60 * int64(gz.Len()), conns: [2]int64{1, 3},
		},
		{
			name: "POST body arrives intact",
			handler: func(*testing.T, int64) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					got, err := io.ReadAll(r.Body)
					if err != nil || r.Method != http.MethodPost || !bytes.Equal(got, bigBody) {
						w.WriteHeader(http.StatusBadRequest)
					}
				}
			},
			cfg:    Config{Body: bigBody},
			status: map[int]int64{200: 60}, conns: [2]int64{1, 3},
		},
		{
			name: "server closes after each answer",
			handler: func(*testing.T, int64) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Connection", "close")
					_, _ = io.WriteString(w, "bye")
				}
			},
			status: map[int]int64{200: 60}, bytes: 60 * 3, conns: [2]int64{60, 60},
		},
		{
			name: "body ends with the connection",
			handler: func(*testing.T, int64) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) { hijacked(w, "HTTP/1.1 200 OK\r\n\r\nuntil close") }
			},
			status: map[int]int64{200: 60}, bytes: 60 * 11, conns: [2]int64{60, 60},
		},
		{
			// The client learns of the close only when it sends the next
			// request, which must then go out again on a new connection.
			name: "server closes a kept-alive connection unannounced",
			handler: func(*testing.T, int64) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					hijacked(w, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
				}
			},
			status: map[int]int64{200: 60}, bytes: 60 * 2, conns: [2]int64{60, 63},
		},
		{
			name: "garbage every third answer",
			handler: func(_ *testing.T, n int64) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					if n%3 == 0 {
						hijacked(w, "garbage\r\n\r\n")
						return
					}
					_, _ = io.WriteString(w, "ok")
				}
			},
			status: map[int]int64{200: 40}, bytes: 40 * 2, errors: map[string]int64{"malformed answer: status line": 20}, conns: [2]int64{18, 23}, // a redial after each garbage answer but a worker's last
		},
		{
			name: "slow but in time",
			handler: func(*testing.T, int64) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					time.Sleep(30 * time.Millisecond)
					_, _ = io.WriteString(w, "late")
				}
			},
			cfg:    Config{Requests: 6, Timeout: 5 * time.Second},
			status: map[int]int64{200: 6}, bytes: 6 * 4, conns: [2]int64{1, 3},
		},
		{
			name: "too slow",
			handler: func(*testing.T, int64) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					select {
					case <-r.Context().Done():
					case <-time.After(5 * time.Second):
					}
				}
			},
			cfg:    Config{Requests: 3, Timeout: 50 * time.Millisecond},
			status: map[int]int64{}, errors: map[string]int64{"timeout": 3}, conns: [2]int64{3, 3},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var seq atomic.Int64
			srv, conns := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				tt.handler(t, seq.Add(1))(w, r)
			})
			cfg := tt.cfg
			cfg.URL = srv.URL + "/x"
			cfg.Concurrency = 3
			if cfg.Requests == 0 {
				cfg.Requests = 60
			}
			res, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.status, res.Status); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.errors, res.ErrorCounts); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			if res.Bytes != tt.bytes {
				t.Errorf("counted %d body bytes, want %d", res.Bytes, tt.bytes)
			}
			if n := conns.Load(); n < tt.conns[0] || n > tt.conns[1] {
				t.Errorf("opened %d connections, want %d..%d", n, tt.conns[0], tt.conns[1])
			}
		})
	}
}

// TestRawClientRedialsAfterIdleClose checks the retry on a connection the
// server closed while it was idle (its idle timeout).
func TestRawClientRedialsAfterIdleClose(t *testing.T) {
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "hello") }))
	srv.Config.IdleTimeout = 20 * time.Millisecond
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	c, err := newRawClient(context.Background(), Config{Method: "GET", Timeout: 5 * time.Second}, u, &uniqueValues{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	for i := range 3 {
		if i > 0 {
			time.Sleep(100 * time.Millisecond)
		}
		if code, n, err := c.send(); code != 200 || n != 5 || err != nil {
			t.Fatalf("request %d: %d, %d bytes, %v", i, code, n, err)
		}
	}
	if n := conns.Load(); n != 3 {
		t.Errorf("opened %d connections, want one per request", n)
	}
}

// TestRunEndsDuringSlowAnswer checks that the end of the run interrupts a
// request in flight rather than waiting for its timeout.
func TestRunEndsDuringSlowAnswer(t *testing.T) {
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	start := time.Now()
	res, err := Run(context.Background(), Config{URL: srv.URL, Concurrency: 2, Duration: 100 * time.Millisecond, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 3*time.Second || res.Requests != 0 || res.Errors != 0 {
		t.Errorf("took %s with %d answers and %d errors; want a prompt end with neither", took, res.Requests, res.Errors)
	}
}

func TestRunUniqueParamRaw(t *testing.T) {
	tests := []struct {
		path, param string
		body        []byte
		keep        url.Values // query values every request must carry
	}{
		{path: "/", param: "u"},
		{path: "/api/frontend?appName=x&env=dev", param: "nonce", keep: url.Values{"appName": {"x"}, "env": {"dev"}}},
		{path: "/proxy?", param: "u", body: []byte(`{"context":{}}`)},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			var mu sync.Mutex
			seen := map[string]bool{}
			srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				q := r.URL.Query()
				body, _ := io.ReadAll(r.Body)
				mu.Lock()
				seen[q.Get(tt.param)] = true
				mu.Unlock()
				q.Del(tt.param)
				if len(q) == 0 {
					q = nil
				}
				if !cmp.Equal(tt.keep, q) || !bytes.Equal(body, tt.body) {
					w.WriteHeader(http.StatusBadRequest)
				}
			})
			res, err := Run(context.Background(), Config{URL: srv.URL + tt.path, Body: tt.body, UniqueParam: tt.param, Concurrency: 4, Requests: 200})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status[200] != 200 || len(seen) != 200 || seen[""] {
				t.Errorf("statuses %v, %d distinct values; want 200 of each", res.Status, len(seen))
			}
		})
	}
}

func TestRawRequest(t *testing.T) {
	tests := []struct {
		name           string
		cfg            Config
		url            string
		prefix, suffix string
	}{
		{
			name: "GET", cfg: Config{Method: "GET"}, url: "http://127.0.0.1:8080",
			prefix: "GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n",
		},
		{
			name: "headers sorted, Host replaced, framing ours",
			cfg: Config{Method: "POST", Body: []byte("{}"), Header: http.Header{
				"Host": {"flags.test"}, "X-Multi": {"a", "b"}, "authorization": {"key"}, "Content-Length": {"99"},
			}},
			url:    "http://[::1]/proxy?a=1",
			prefix: "POST /proxy?a=1 HTTP/1.1\r\nHost: flags.test\r\nAuthorization: key\r\nX-Multi: a\r\nX-Multi: b\r\nContent-Length: 2\r\n\r\n{}",
		},
		{
			name: "empty POST", cfg: Config{Method: "POST"}, url: "http://localhost/p",
			prefix: "POST /p HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n",
		},
		{
			name: "unique without query", cfg: Config{Method: "GET", UniqueParam: "n"}, url: "http://127.0.0.1/f",
			prefix: "GET /f?n=", suffix: " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
		},
		{
			name: "unique after query", cfg: Config{Method: "GET", UniqueParam: "n"}, url: "http://127.0.0.1/f?env=x",
			prefix: "GET /f?env=x&n=", suffix: " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, err := url.Parse(tt.url)
			if err != nil {
				t.Fatal(err)
			}
			prefix, suffix, err := rawRequest(tt.cfg, u)
			if err != nil || string(prefix) != tt.prefix || string(suffix) != tt.suffix {
				t.Errorf("rawRequest = %q, %q, %v; want %q, %q", prefix, suffix, err, tt.prefix, tt.suffix)
			}
		})
	}
}

func TestRunHTTPSUsesNetHTTP(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "hello") }))
	defer srv.Close()
	res, err := Run(context.Background(), Config{URL: srv.URL, Insecure: true, Concurrency: 2, Requests: 20})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status[200] != 20 || res.Errors != 0 || res.Bytes != 20*5 {
		t.Errorf("result %+v, want 20 answers of 5 bytes", res)
	}
}
