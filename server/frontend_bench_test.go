package server

import (
	"fmt"
	"net/http"
	"strconv"
	"testing"
)

// BenchmarkFrontend measures GET /api/frontend in process at several
// payload sizes, with the context of sbbench's frontend rows: the same
// context each request (answered from the answer cache) and a new user
// each request (making its query costs the benchmark one allocation).
func BenchmarkFrontend(b *testing.B) {
	for _, n := range []int{60, 500, 5000} {
		ts := newBenchServer(b, nil, n)
		h := ts.srv.Handler()
		rec := newDiscardRecorder()
		req, _ := http.NewRequest("GET", "/api/frontend?userId=123&sessionId=s-1", nil)
		req.Header.Set("Authorization", testFrontendToken)
		b.Run(fmt.Sprintf("same/%d", n), func(b *testing.B) {
			serveEach(b, h, rec, http.StatusOK, func() *http.Request { return req })
			b.SetBytes(int64(rec.n))
		})
		b.Run(fmt.Sprintf("new-user/%d", n), func(b *testing.B) {
			const prefix = "sessionId=s-1&userId="
			q := []byte(prefix)
			i := int64(0)
			serveEach(b, h, rec, http.StatusOK, func() *http.Request {
				i++
				q = strconv.AppendInt(q[:len(prefix)], i, 10)
				req.URL.RawQuery = string(q)
				return req
			})
			b.SetBytes(int64(rec.n))
		})
	}
}
