package httpx

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
)

// headerWriter keeps one header map and drops the body, so that counting
// allocations counts the chain's alone.
type headerWriter struct {
	h    http.Header
	code int
}

func (w *headerWriter) Header() http.Header         { return w.h }
func (w *headerWriter) WriteHeader(code int)        { w.code = code }
func (w *headerWriter) Write(p []byte) (int, error) { return len(p), nil }

// TestChainAllocs pins what the middleware cost a request that a route
// answers: the chain makes one statusWriter, which Recover, AccessLog,
// HTTPMetrics and JSONMisses all use, and RequestID makes its header value
// and, when the client sent no id, the id. A middleware alone still makes
// its own writer.
func TestChainAllocs(t *testing.T) {
	metrics, err := HTTPMetrics(newRegistry())
	if err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil)) // debug off
	chain := []Middleware{RequestID(), Recover(quiet), AccessLog(quiet), metrics, JSONMisses()}
	tests := []struct {
		name string
		mws  []Middleware
		id   string // the client's X-Request-Id
		want float64
	}{
		{name: "whole chain, new id", mws: chain, want: 3},
		{name: "whole chain, client's id", mws: chain, id: "3f2b8c1e-5d4a-4e8b-9a7c-1234567890ab", want: 2},
		{name: "another order", mws: []Middleware{metrics, RequestID(), Recover(quiet), JSONMisses()}, want: 3},
		{name: "RequestID alone", mws: []Middleware{RequestID()}, want: 2},
		{name: "Recover alone", mws: []Middleware{Recover(quiet)}, want: 1},
		{name: "HTTPMetrics alone", mws: []Middleware{metrics}, want: 1},
		{name: "JSONMisses alone", mws: []Middleware{JSONMisses()}, want: 1},
		{name: "AccessLog with debug off", mws: []Middleware{AccessLog(quiet)}, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mux := http.NewServeMux()
			mux.HandleFunc("GET /features", func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusNotModified)
			})
			h := Chain(mux, tt.mws...)
			req := httptest.NewRequest("GET", "/features", nil)
			if tt.id != "" {
				req.Header.Set(RequestIDHeader, tt.id)
			}
			w := &headerWriter{h: http.Header{}}
			serve := func() {
				clear(w.h)
				w.code = 0
				h.ServeHTTP(w, req)
			}
			serve() // the metrics' series are made on first use
			if w.code != http.StatusNotModified {
				t.Fatalf("status %d, want 304", w.code)
			}
			if got := testing.AllocsPerRun(1000, serve); got != tt.want {
				t.Errorf("%v allocations a request, want %v", got, tt.want)
			}
		})
	}
}
