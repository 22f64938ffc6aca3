package load

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// newServer starts a loopback server answering "hello" (or the status in
// ?status=), and counts the connections clients opened to it.
func newServer(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	if h == nil {
		h = func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "hello") }
	}
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &conns
}

func TestRunCount(t *testing.T) {
	var bad atomic.Int64
	srv, conns := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Method != "POST" || string(body) != `{"context":{}}` || r.Header.Get("Authorization") != "key" ||
			r.Header.Values("X-Multi") == nil || len(r.Header.Values("X-Multi")) != 2 || r.Host != "flags.test" {
			bad.Add(1)
		}
		if strings.HasSuffix(r.URL.Path, "/teapot") {
			w.WriteHeader(http.StatusTeapot)
		}
		_, _ = io.WriteString(w, "hello")
	})
	cfg := Config{
		URL:         srv.URL + "/proxy",
		Body:        []byte(`{"context":{}}`),
		Header:      http.Header{"Authorization": {"key"}, "X-Multi": {"a", "b"}, "Host": {"flags.test"}},
		Concurrency: 8,
		Requests:    300,
	}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if bad.Load() != 0 {
		t.Errorf("%d requests lacked the method, body or headers", bad.Load())
	}
	if res.Method != "POST" || res.Requests != 300 || res.Errors != 0 || res.Bytes != 300*5 {
		t.Errorf("result %+v, want 300 POSTs of 5 bytes without errors", res)
	}
	if diff := cmp.Diff(map[int]int64{200: 300}, res.Status); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}
	if n := conns.Load(); n > int64(cfg.Concurrency) {
		t.Errorf("opened %d connections for %d workers: keep-alive is not reused", n, cfg.Concurrency)
	}
	l := res.Latency
	if !(0 < l.Min && l.Min <= l.P50 && l.P50 <= l.P90 && l.P90 <= l.P99 && l.P99 <= l.Max) || l.Mean < l.Min || l.Mean > l.Max {
		t.Errorf("latency out of order: %+v", l)
	}
	if res.RequestsPerSec <= 0 || res.BytesPerSec <= 0 || res.Elapsed <= 0 {
		t.Errorf("rates not set: %+v", res)
	}

	// The status of each answer is counted.
	cfg.URL, cfg.Requests = srv.URL+"/teapot", 50
	res, err = Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[int]int64{418: 50}, res.Status); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}
}

func TestRunDuration(t *testing.T) {
	srv, _ := newServer(t, nil)
	start := time.Now()
	res, err := Run(context.Background(), Config{URL: srv.URL, Concurrency: 4, Duration: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("a 200ms run took %s", took)
	}
	if res.Requests == 0 || res.Errors != 0 || res.Method != "GET" {
		t.Errorf("result %+v, want some GETs and no errors", res)
	}
}

// TestRunCountAndDuration checks that the count stops a run before its
// duration does.
func TestRunCountAndDuration(t *testing.T) {
	srv, _ := newServer(t, nil)
	res, err := Run(context.Background(), Config{URL: srv.URL, Concurrency: 2, Requests: 40, Duration: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests != 40 || res.Elapsed > 10*time.Second {
		t.Errorf("got %d requests in %s, want 40 quickly", res.Requests, res.Elapsed)
	}
}

func TestRunErrors(t *testing.T) {
	srv, _ := newServer(t, nil)
	url := srv.URL
	srv.Close() // nothing listens there any more
	res, err := Run(context.Background(), Config{URL: url, Concurrency: 2, Requests: 20})
	if err != nil {
		t.Fatal(err)
	}
	if res.Errors != 20 || res.Requests != 0 || len(res.ErrorCounts) != 1 {
		t.Fatalf("result %+v, want 20 errors of one kind", res)
	}
	for msg := range res.ErrorCounts {
		if !strings.Contains(msg, "refused") || strings.Contains(msg, url) {
			t.Errorf("error text %q: want the cause without the URL", msg)
		}
	}
}

func TestRunTimeout(t *testing.T) {
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(2 * time.Second):
		}
	})
	res, err := Run(context.Background(), Config{URL: srv.URL, Requests: 2, Timeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Errors != 2 {
		t.Errorf("result %+v, want 2 timeouts", res)
	}
}

func TestRunDoesNotFollowRedirects(t *testing.T) {
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://192.0.2.1/elsewhere", http.StatusFound)
	})
	res, err := Run(context.Background(), Config{URL: srv.URL, Requests: 3})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[int]int64{302: 3}, res.Status); diff != "" || res.Errors != 0 {
		t.Errorf("status (-want +got):\n%s; errors %d", diff, res.Errors)
	}
}

func TestRunInterrupted(t *testing.T) {
	srv, _ := newServer(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	res, err := Run(ctx, Config{URL: srv.URL, Duration: time.Minute})
	if err == nil || res.Requests == 0 {
		t.Errorf("err %v, %d requests; want an interruption error with partial results", err, res.Requests)
	}
}

func TestRunMemory(t *testing.T) {
	if _, err := ReadMemory(1); err != nil {
		skipOutsideCI(t, "no /proc here: %v", err)
	}
	srv, _ := newServer(t, nil)
	// This test process stands in for the server being measured.
	res, err := Run(context.Background(), Config{URL: srv.URL, Requests: 10, PID: currentPID()})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Memory
	if m == nil || m.After.RSS <= 0 || m.After.Peak < m.After.RSS || m.Before.RSS <= 0 {
		t.Errorf("memory = %+v", m)
	}
	// Enough requests that the target's CPU time passes the stat file's
	// 10 ms ticks.
	res, err = Run(context.Background(), Config{URL: srv.URL, Requests: 3000, PID: currentPID()})
	if err != nil {
		t.Fatal(err)
	}
	if res.TargetCPU <= 0 || res.CPUPerRequest() <= 0 || res.TargetCPUShare() <= 0 {
		t.Errorf("target CPU %v, %v per request, share %.2f", res.TargetCPU, res.CPUPerRequest(), res.TargetCPUShare())
	}
	if _, err := Run(context.Background(), Config{URL: srv.URL, Requests: 10, PID: 1 << 30}); err == nil {
		t.Error("a run against a missing pid succeeded")
	}
}

func TestRunRefuses(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"public v4", Config{URL: "http://192.0.2.1/", Requests: 1}, "not a loopback address"},
		{"private v4", Config{URL: "http://10.0.0.1:4242/proxy", Requests: 1}, "not a loopback address"},
		{"v6", Config{URL: "http://[2001:db8::1]:80/", Requests: 1}, "not a loopback address"},
		{"unspecified", Config{URL: "http://0.0.0.0:80/", Requests: 1}, "not a loopback address"},
		{"scheme", Config{URL: "ftp://127.0.0.1/", Requests: 1}, "scheme"},
		{"no scheme", Config{URL: "127.0.0.1:80", Requests: 1}, "bad URL"},
		{"no host", Config{URL: "http:///x", Requests: 1}, "no host"},
		{"unbounded", Config{URL: "http://127.0.0.1/"}, "request count or a duration"},
		{"too many", Config{URL: "http://127.0.0.1/", Requests: MaxRequests + 1}, "request count"},
		{"negative count", Config{URL: "http://127.0.0.1/", Requests: -1}, "request count"},
		{"too long", Config{URL: "http://127.0.0.1/", Duration: MaxDuration + 1}, "duration"},
		{"too wide", Config{URL: "http://127.0.0.1/", Requests: 1, Concurrency: MaxConcurrency + 1}, "concurrency"},
		{"bad timeout", Config{URL: "http://127.0.0.1/", Requests: 1, Timeout: -1}, "timeout"},
		{"bad method", Config{URL: "http://127.0.0.1/", Requests: 1, Method: "GET X"}, "method"},
		{"header value", Config{URL: "http://127.0.0.1/", Requests: 1, Header: http.Header{"X": {"a\r\nb"}}}, "header"},
		{"header name", Config{URL: "http://127.0.0.1/", Requests: 1, Header: http.Header{"X Y": {"a"}}}, "header"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Run(context.Background(), tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestCheckURLLocalhost(t *testing.T) {
	addrs, err := net.DefaultResolver.LookupNetIP(context.Background(), "ip", "localhost")
	if err != nil || len(addrs) == 0 {
		skipOutsideCI(t, "localhost does not resolve here: %v", err)
	}
	if _, err := CheckURL(context.Background(), "http://localhost:8080/proxy"); err != nil {
		t.Errorf("localhost refused: %v", err)
	}
}

func TestDialLoopbackOnly(t *testing.T) {
	tests := []struct {
		addr string
		ok   bool
	}{
		{"127.0.0.1:80", true},
		{"127.1.2.3:80", true},
		{"[::1]:80", true},
		{"[::ffff:127.0.0.1]:80", true},
		{"192.0.2.1:80", false},
		{"[2001:db8::1]:80", false},
		{"localhost:80", false},
	}
	for _, tt := range tests {
		if err := dialLoopbackOnly("tcp", tt.addr, nil); (err == nil) != tt.ok {
			t.Errorf("dialLoopbackOnly(%s) = %v, want ok=%v", tt.addr, err, tt.ok)
		}
	}
}

func TestUniqueParam(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.Query().Get("u")] = true
		mu.Unlock()
		if r.URL.Query().Get("keep") != "1" {
			w.WriteHeader(http.StatusBadRequest)
		}
	}))
	defer srv.Close()
	res, err := Run(context.Background(), Config{URL: srv.URL + "/?keep=1", UniqueParam: "u", Concurrency: 4, Requests: 200})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status[http.StatusOK] != 200 || len(seen) != 200 {
		t.Errorf("statuses %v, %d distinct values; want 200 of each", res.Status, len(seen))
	}
}

// skipOutsideCI skips a test whose machine lacks something, except in CI,
// where the machine is known to have it and a skip would hide a fault.
func skipOutsideCI(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}

func TestResultCPUFigures(t *testing.T) {
	tests := []struct {
		name   string
		r      Result
		perReq time.Duration
		share  float64
	}{
		{"busy core", Result{Requests: 1000, Elapsed: time.Second, TargetCPU: time.Second}, time.Millisecond, 1},
		{"half a core", Result{Requests: 4, Elapsed: 2 * time.Second, TargetCPU: time.Second}, 250 * time.Millisecond, 0.5},
		{"no requests", Result{Elapsed: time.Second, TargetCPU: time.Second}, 0, 1},
		{"no pid", Result{Requests: 10}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.r.CPUPerRequest(); got != tt.perReq {
				t.Errorf("CPUPerRequest = %v, want %v", got, tt.perReq)
			}
			if got := tt.r.TargetCPUShare(); got != tt.share {
				t.Errorf("TargetCPUShare = %v, want %v", got, tt.share)
			}
		})
	}
}
