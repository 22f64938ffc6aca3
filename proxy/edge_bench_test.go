package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// benchEdge is an offline node serving a generated configuration of n
// flags to one frontend and one client token, the node's whole handler
// chain measured in process as the proxy's benchmarks do.
func benchEdge(b *testing.B, n int) http.Handler {
	b.Helper()
	file := filepath.Join(b.TempDir(), "bootstrap.json")
	data, _ := json.Marshal(genPayload(n))
	if err := os.WriteFile(file, data, 0o644); err != nil {
		b.Fatal(err)
	}
	e, err := NewEdge(EdgeConfig{Offline: true, BootstrapFile: file,
		FrontendTokens: []string{"*:production.bench-frontend"}, ClientTokens: []string{"*:production.bench-client"},
		Logger: slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = e.Run(ctx); close(done) }()
	b.Cleanup(func() { cancel(); <-done })
	return e.Handler()
}

func BenchmarkEdgeFrontend(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("flags=%d", n), func(b *testing.B) {
			req := httptest.NewRequest("GET", "/api/frontend?"+benchQuery, nil)
			req.Header.Set("Authorization", "*:production.bench-frontend")
			runBench(b, benchEdge(b, n), func() *http.Request { return req })
		})
	}
}

// BenchmarkEdgeFrontendNewContext gives every request a user never seen
// before.
func BenchmarkEdgeFrontendNewContext(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("flags=%d", n), func(b *testing.B) {
			req := httptest.NewRequest("GET", "/api/frontend", nil)
			req.Header.Set("Authorization", "*:production.bench-frontend")
			i := 0
			runBench(b, benchEdge(b, n), func() *http.Request {
				i++
				id := strconv.Itoa(i)
				req.URL.RawQuery = "appName=web&userId=user-" + id + "&sessionId=s" + id + "&properties[region]=eu-west"
				return req
			})
		})
	}
}

func BenchmarkEdgeClientFeatures(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("flags=%d", n), func(b *testing.B) {
			req := httptest.NewRequest("GET", "/api/client/features", nil)
			req.Header.Set("Authorization", "*:production.bench-client")
			runBench(b, benchEdge(b, n), func() *http.Request { return req })
		})
	}
}
