package server

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/signalbox/signalbox/internal/fixture"
	"github.com/signalbox/signalbox/store"
	"github.com/signalbox/signalbox/store/sqlstore"
)

// newBenchServer builds a server holding n generated flags in development.
func newBenchServer(b *testing.B, _ *testing.T, n int) *testServer {
	b.Helper()
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	if _, err := Bootstrap(ctx, st, BootstrapConfig{ClientTokens: []string{testClientToken}, FrontendTokens: []string{testFrontendToken}, AdminPassword: testAdminPassword}); err != nil {
		b.Fatal(err)
	}
	if err := fixture.Seed(ctx, st, fixture.Features(n, 1), store.EnvDevelopment); err != nil {
		b.Fatal(err)
	}
	srv, err := New(ctx, st, Config{Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	return &testServer{srv: srv}
}

// discardRecorder is a ResponseWriter that counts bytes and keeps nothing,
// so benchmarks measure the handler rather than buffer growth.
type discardRecorder struct {
	h    http.Header
	code int
	n    int
}

func newDiscardRecorder() *discardRecorder { return &discardRecorder{h: http.Header{}} }

func (d *discardRecorder) Header() http.Header { return d.h }
func (d *discardRecorder) WriteHeader(c int)   { d.code = c }
func (d *discardRecorder) Write(p []byte) (int, error) {
	if d.code == 0 {
		d.code = http.StatusOK
	}
	d.n += len(p)
	return len(p), nil
}
func (d *discardRecorder) reset() { clear(d.h); d.code = 0; d.n = 0 }

// serveEach serves the request next returns through h once per benchmark
// iteration, into rec, and stops the benchmark on any status but want.
func serveEach(b *testing.B, h http.Handler, rec *discardRecorder, want int, next func() *http.Request) {
	b.ReportAllocs()
	for b.Loop() {
		rec.reset()
		h.ServeHTTP(rec, next())
		if rec.code != want {
			b.Fatal(rec.code)
		}
	}
}
