package httpx

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// ownWriter hides the statusWriter of the middleware before it, so that
// the next one makes a writer of its own.
func ownWriter(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(hiddenWriter{w}, r)
	})
}

type hiddenWriter struct{ http.ResponseWriter }

func (h hiddenWriter) Unwrap() http.ResponseWriter { return h.ResponseWriter }

// TestSharedStatusWriter checks that the middleware read the same status,
// byte count and route whether they share one statusWriter or each make
// their own: for plain answers, 1xx headers, panics before and after the
// answer started, and routing misses.
func TestSharedStatusWriter(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /body", func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "hello") })
	mux.HandleFunc("GET /hints", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusEarlyHints)
		w.WriteHeader(http.StatusAccepted)
	})
	mux.HandleFunc("GET /boom", func(http.ResponseWriter, *http.Request) { panic("boom") })
	mux.HandleFunc("GET /late", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "partial")
		panic("late")
	})
	mux.Handle("GET /gone", NotFoundHandler())

	requests := []struct {
		method, path string
		status       int   // answered, logged and counted
		bytes        int64 // logged; -1 for the length of the Error record answered
		route        string
		aborted      bool // the chain panics with http.ErrAbortHandler
		recorded     int  // the recorder's code when not status (it keeps the first header, 1xx too)
	}{
		{method: "GET", path: "/body", status: 200, bytes: 5, route: "GET /body"},
		{method: "GET", path: "/hints", status: 202, route: "GET /hints", recorded: http.StatusEarlyHints},
		// Recover writes its record after the others have logged and counted.
		{method: "GET", path: "/boom", status: 500, route: "GET /boom"},
		// Recover cannot answer 500 once the answer started: it aborts.
		{method: "GET", path: "/late", status: 200, bytes: 7, route: "GET /late", aborted: true},
		{method: "GET", path: "/gone", status: 404, bytes: -1, route: unmatchedRoute},
		{method: "GET", path: "/nope", status: 404, bytes: -1, route: unmatchedRoute},
		{method: "DELETE", path: "/body", status: 405, bytes: -1, route: unmatchedRoute},
	}
	chains := []struct {
		name   string
		shared bool
	}{{"shared writer", true}, {"own writers", false}}
	for _, c := range chains {
		for _, req := range requests {
			t.Run(c.name+" "+req.method+" "+req.path, func(t *testing.T) {
				reg := newRegistry()
				metrics, err := HTTPMetrics(reg)
				if err != nil {
					t.Fatal(err)
				}
				var logs bytes.Buffer
				debug := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
				quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
				mws := []Middleware{Recover(quiet), AccessLog(debug), metrics, JSONMisses()}
				if !c.shared {
					mws = []Middleware{Recover(quiet), ownWriter, AccessLog(debug), ownWriter, metrics, ownWriter, JSONMisses()}
				}
				rec := httptest.NewRecorder()
				var wantPanic any
				if req.aborted {
					wantPanic = http.ErrAbortHandler
				}
				func() {
					defer func() {
						if v := recover(); v != wantPanic {
							t.Errorf("chain panicked with %v, want %v", v, wantPanic)
						}
					}()
					Chain(mux, mws...).ServeHTTP(rec, httptest.NewRequest(req.method, req.path, nil))
				}()
				wantCode := req.status
				if req.recorded != 0 {
					wantCode = req.recorded
				}
				if rec.Code != wantCode {
					t.Errorf("answered %d, want %d", rec.Code, wantCode)
				}
				bytesWant := req.bytes
				if bytesWant < 0 { // an Error record: its length
					bytesWant = int64(rec.Body.Len())
				}
				for _, s := range []string{fmt.Sprintf("status=%d ", req.status), fmt.Sprintf("bytes=%d ", bytesWant)} {
					if !strings.Contains(logs.String(), s) {
						t.Errorf("log lacks %q: %s", s, logs.String())
					}
				}
				want := fmt.Sprintf("http_requests_total{method=%s,route=%s,status=%d} 1", req.method, req.route, req.status)
				found := false
				for _, s := range series(t, reg) {
					found = found || s == want
				}
				if !found {
					t.Errorf("series %v lack %s", series(t, reg), want)
				}
			})
		}
	}
}
