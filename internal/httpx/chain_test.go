package httpx

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestChain(t *testing.T) {
	var trace []string
	mw := func(name string) Middleware {
		return func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				trace = append(trace, name+">")
				next.ServeHTTP(w, r)
				trace = append(trace, "<"+name)
			})
		}
	}
	h := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { trace = append(trace, "h") })
	tests := []struct {
		name string
		mws  []Middleware
		want string
	}{
		{name: "none", want: "h"},
		{name: "one", mws: []Middleware{mw("a")}, want: "a> h <a"},
		{name: "order", mws: []Middleware{mw("a"), mw("b"), mw("c")}, want: "a> b> c> h <c <b <a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			trace = nil
			Chain(h, tt.mws...).ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
			if got := strings.Join(trace, " "); got != tt.want {
				t.Errorf("trace = %q, want %q", got, tt.want)
			}
		})
	}
}
