package proxy

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/signalbox/signalbox/internal/fixture"
)

// BenchmarkLoadNewContext is the load benchmark's "new context each
// request" row in process: its payload (internal/fixture) and its query,
// with a user id never seen before on every request.
func BenchmarkLoadNewContext(b *testing.B) {
	const base = "sessionId=s-1&properties%5Bcountry%5D=no&properties%5Bage%5D=30"
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("flags=%d", n), func(b *testing.B) {
			cfg := testConfig(b, "http://127.0.0.1:9/api")
			cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn}))
			p, err := New(cfg)
			if err != nil {
				b.Fatal(err)
			}
			p.install(fixture.Features(n, 1), fromUpstream)
			req := httptest.NewRequest("GET", "/proxy?"+base, nil)
			req.Header.Set("Authorization", testClientKey)
			i := 0
			runBench(b, p.Handler(), func() *http.Request {
				i++
				req.URL.RawQuery = base + "&userId=" + strconv.Itoa(i)
				return req
			})
		})
	}
}
