package answer

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/signalbox/signalbox/engine"
	"github.com/signalbox/signalbox/internal/fixture"
)

// headerWriter is a ResponseWriter that keeps nothing but its header map,
// cleared between requests as net/http reuses it.
type headerWriter struct{ h http.Header }

func (w *headerWriter) Header() http.Header         { return w.h }
func (w *headerWriter) WriteHeader(int)             {}
func (w *headerWriter) Write(p []byte) (int, error) { return len(p), nil }

// TestKeptAnswerAllocs pins what serving a kept answer allocates: its
// cache key, and its Vary value appended to any set before (by the CORS
// layer, in the proxy). The ETag and Content-Length values are made once,
// when the answer is kept (they were three allocations a request).
func TestKeptAnswerAllocs(t *testing.T) {
	snap := engine.Compile(fixture.Features(60, 1), engine.Options{})
	a := New(snap, 1<<20)
	ctx := &engine.Context{AppName: "web", UserID: "u1", Properties: map[string]string{"region": "eu"}}
	r := httptest.NewRequest(http.MethodGet, "/proxy", nil)
	w := &headerWriter{h: http.Header{}}
	serve := func() {
		clear(w.h)
		a.Write(w, r, ctx, nil, false, true)
	}
	for range 3 { // kept from the second sighting on
		serve()
	}
	if a.CachedAnswers() != 1 {
		t.Fatalf("%d answers kept, want 1", a.CachedAnswers())
	}
	if got := testing.AllocsPerRun(1000, serve); got != 2 {
		t.Errorf("serving a kept answer allocates %v times, want 2", got)
	}
	if w.h.Get("Content-Length") == "" || w.h.Get("Etag") == "" {
		t.Errorf("header %v lacks the answer's length or tag", w.h)
	}
}
