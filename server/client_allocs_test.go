package server

import (
	"net/http"
	"testing"
)

// TestClientFeaturesNotModifiedAllocs pins what an SDK poll answered 304
// costs through the whole handler chain: the one writer the middleware
// share, the X-Request-Id header value (and the id, when the SDK sent
// none), and the query's cache key. Authenticating the token and the rest
// of the chain allocate nothing.
func TestClientFeaturesNotModifiedAllocs(t *testing.T) {
	ts := newTestServer(t)
	h := ts.srv.Handler()
	w := newDiscardRecorder()
	req, _ := http.NewRequest("GET", "/api/client/features", nil)
	req.Header.Set("Authorization", testClientToken)
	h.ServeHTTP(w, req)
	if w.code != http.StatusOK {
		t.Fatalf("status %d, want 200", w.code)
	}
	etag := w.h.Get("ETag")
	tests := []struct {
		name, id string
		want     float64
	}{
		{name: "new request id", want: 4},
		{name: "SDK's request id", id: "3f2b8c1e-5d4a-4e8b-9a7c-1234567890ab", want: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cond := req.Clone(req.Context())
			cond.Header.Set("If-None-Match", etag)
			if tt.id != "" {
				cond.Header.Set("X-Request-Id", tt.id)
			}
			serve := func() {
				w.reset()
				h.ServeHTTP(w, cond)
			}
			serve()
			if w.code != http.StatusNotModified {
				t.Fatalf("status %d, want 304", w.code)
			}
			if got := testing.AllocsPerRun(1000, serve); got != tt.want {
				t.Errorf("%v allocations a request, want %v", got, tt.want)
			}
		})
	}
}
