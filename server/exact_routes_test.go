package server

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestExactRoutesAsTheMux: every GET the map answers, the mux would have
// answered with the same pattern; requests it leaves alone reach the mux.
func TestExactRoutesAsTheMux(t *testing.T) {
	e := newTestServer(t).srv.router()
	for _, want := range []string{"/api/client/features", "/api/frontend", "/health"} {
		if _, ok := e.get[want]; !ok {
			t.Errorf("%s is not among the exact routes", want)
		}
	}
	for path, rt := range e.get {
		req := httptest.NewRequest("GET", path, nil)
		if _, pattern := e.mux.Handler(req); pattern != rt.pattern {
			t.Errorf("GET %s: the mux chooses %q, the map %q", path, pattern, rt.pattern)
		}
	}
	tests := []struct {
		name, method, target string
		exact                bool
	}{
		{"exact GET", "GET", "/api/client/features", true},
		{"HEAD", "HEAD", "/api/client/features", false},
		{"another method", "POST", "/api/frontend", false},
		{"escaped slash", "GET", "/api/client%2Ffeatures", false},
		{"trailing slash", "GET", "/api/client/features/", false},
		{"wildcard route", "GET", "/api/client/features/some-flag", false},
		{"unclean path", "GET", "/api//client/features", false},
		{"root", "GET", "/", false},
	}
	// The same map with handlers that say what they saw, and a mux that
	// takes everything else.
	var reached, pattern string
	probe := &exactRoutes{get: map[string]exactRoute{}, mux: http.NewServeMux()}
	for path, rt := range e.get {
		probe.get[path] = exactRoute{pattern: rt.pattern, h: http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			reached, pattern = "map", r.Pattern
		})}
	}
	probe.mux.HandleFunc("/", func(http.ResponseWriter, *http.Request) { reached = "mux" })
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reached, pattern = "", ""
			probe.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(tt.method, tt.target, nil))
			// The mux redirects an unclean path itself.
			if (reached == "map") != tt.exact {
				t.Errorf("answered from the map: %v, want %v", reached == "map", tt.exact)
			}
			if tt.exact && pattern != tt.method+" "+tt.target {
				t.Errorf("request pattern %q", pattern)
			}
		})
	}
}
