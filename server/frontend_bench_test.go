package server

import (
	"fmt"
	"net/http"
	"testing"
)

// BenchmarkFrontend measures GET /api/frontend in process at several
// payload sizes, with the context of sbbench's frontend rows: the same
// context each request (answered from the answer cache) and a new user
// each request.
func BenchmarkFrontend(b *testing.B) {
	for _, n := range []int{60, 500, 5000} {
		ts := newBenchServer(b, nil, n)
		h := ts.srv.Handler()
		rec := newDiscardRecorder()
		req, _ := http.NewRequest("GET", "/api/frontend?userId=123&sessionId=s-1", nil)
		req.Header.Set("Authorization", testFrontendToken)
		b.Run(fmt.Sprintf("same/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				rec.reset()
				h.ServeHTTP(rec, req)
				if rec.code != http.StatusOK {
					b.Fatal(rec.code)
				}
			}
			b.SetBytes(int64(rec.n))
		})
		b.Run(fmt.Sprintf("new-user/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				req.URL.RawQuery = fmt.Sprintf("sessionId=s-1&userId=%d", i)
				rec.reset()
				h.ServeHTTP(rec, req)
				if rec.code != http.StatusOK {
					b.Fatal(rec.code)
				}
			}
			b.SetBytes(int64(rec.n))
		})
	}
}
