package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/internal/fixture"
)

// The benchmarks drive the whole handler chain (CORS, recovery, access
// log, HTTP metrics, routing, key check, context, evaluation, encoding,
// ETag) in process, so that they measure the proxy rather than the
// loopback network. The context is one a browser SDK sends.

var benchSizes = []int{60, 500, 5000}

const (
	benchQuery = "appName=web&environment=default&userId=user-123&sessionId=8f14e45f&properties[region]=eu-west&properties[email]=a%40example.com&properties[appVersion]=2.4.1"
	benchBody  = `{"context":{"appName":"web","userId":"user-123","sessionId":"8f14e45f","properties":{"region":"eu-west","email":"a@example.com","appVersion":"2.4.1"}}}`
)

// benchProxy is a ready proxy holding a generated configuration of n flags.
func benchProxy(b *testing.B, n int) *Proxy { return benchProxyWith(b, genPayload(n)) }

// benchProxyWith is a ready proxy holding payload.
func benchProxyWith(b *testing.B, payload *clientapi.Features) *Proxy {
	b.Helper()
	cfg := testConfig(b, "http://127.0.0.1:9/api")
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn}))
	p, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	p.install(payload, fromUpstream)
	return p
}

// discardWriter is a ResponseWriter that keeps one header map and drops
// the body, so the benchmark counts the proxy's allocations only.
type discardWriter struct {
	h      http.Header
	status int
	n      int
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) WriteHeader(code int)        { w.status = code }
func (w *discardWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }

func (w *discardWriter) reset() {
	clear(w.h)
	w.status, w.n = 0, 0
}

func runBench(b *testing.B, h http.Handler, newReq func() *http.Request) {
	w := &discardWriter{h: http.Header{}}
	h.ServeHTTP(w, newReq())
	if w.status != http.StatusOK {
		b.Fatalf("status %d", w.status)
	}
	b.SetBytes(int64(w.n))
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU()
	for b.Loop() {
		w.reset()
		h.ServeHTTP(w, newReq())
	}
	// Wall time per op suffers when other processes share the cores; the
	// process's CPU time per op (GC included) does much less.
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}

// processCPU is the user and system CPU time of the process so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkGetProxy(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("flags=%d", n), func(b *testing.B) {
			h := benchProxy(b, n).Handler()
			req := httptest.NewRequest("GET", "/proxy?"+benchQuery, nil)
			req.Header.Set("Authorization", testClientKey)
			req.Header.Set("Origin", "https://app.example")
			runBench(b, h, func() *http.Request { return req })
		})
	}
}

// BenchmarkGetProxyNewContext asks for every enabled flag with a userId
// and sessionId never seen before, as many users each polling for the
// first time do: nothing can come from the answer cache. (Making the query
// costs the benchmark two allocations per request.)
func BenchmarkGetProxyNewContext(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("flags=%d", n), func(b *testing.B) {
			h := benchProxy(b, n).Handler()
			base := strings.NewReplacer("userId=user-123&", "", "sessionId=8f14e45f&", "").Replace(benchQuery)
			req := httptest.NewRequest("GET", "/proxy?"+base, nil)
			req.Header.Set("Authorization", testClientKey)
			i := 0
			runBench(b, h, func() *http.Request {
				i++
				id := strconv.Itoa(i)
				req.URL.RawQuery = base + "&userId=user-" + id + "&sessionId=s" + id
				return req
			})
		})
	}
}

// BenchmarkLoadNewContext is the load benchmark's "new context each
// request" row in process: its payload (internal/fixture) and its query,
// with a user id never seen before on every request.
func BenchmarkLoadNewContext(b *testing.B) {
	const base = "sessionId=s-1&properties%5Bcountry%5D=no&properties%5Bage%5D=30"
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("flags=%d", n), func(b *testing.B) {
			h := benchProxyWith(b, fixture.Features(n, 1)).Handler()
			req := httptest.NewRequest("GET", "/proxy?"+base, nil)
			req.Header.Set("Authorization", testClientKey)
			i := 0
			runBench(b, h, func() *http.Request {
				i++
				req.URL.RawQuery = base + "&userId=" + strconv.Itoa(i)
				return req
			})
		})
	}
}

func BenchmarkPostProxy(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("flags=%d", n), func(b *testing.B) {
			h := benchProxy(b, n).Handler()
			req := httptest.NewRequest("POST", "/proxy", nil)
			req.Header.Set("Authorization", testClientKey)
			req.Header.Set("Content-Type", "application/json")
			body := []byte(benchBody)
			rd := bytes.NewReader(body)
			runBench(b, h, func() *http.Request {
				rd.Reset(body)
				req.Body = io.NopCloser(rd)
				return req
			})
		})
	}
}

// BenchmarkPostProxyToggles evaluates a list of 20 named flags, the form
// that is counted in the usage metrics.
func BenchmarkPostProxyToggles(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("flags=%d", n), func(b *testing.B) {
			p := benchProxy(b, n)
			names := p.state.Load().snap.Names()
			list := make([]string, 0, 20)
			for i := range 20 {
				list = append(list, names[(i*7919)%len(names)])
			}
			lb, _ := json.Marshal(list)
			body := []byte(strings.Replace(benchBody, `}}}`, `}},"toggles":`+string(lb)+`}`, 1))
			req := httptest.NewRequest("POST", "/proxy", nil)
			req.Header.Set("Authorization", testClientKey)
			req.Header.Set("Content-Type", "application/json")
			rd := bytes.NewReader(body)
			runBench(b, p.Handler(), func() *http.Request {
				rd.Reset(body)
				req.Body = io.NopCloser(rd)
				return req
			})
		})
	}
}
