package httpx

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/signalbox/signalbox/internal/apierr"
)

func TestJSONMisses(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /flags/{name}", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("name") == "missing" {
			http.Error(w, "own text 404", http.StatusNotFound)
			return
		}
		_, _ = io.WriteString(w, "flag")
	})
	mux.HandleFunc("GET /dir/", func(w http.ResponseWriter, r *http.Request) {})
	h := Chain(mux, JSONMisses())
	tests := []struct {
		name   string
		method string
		path   string
		status int
		kind   apierr.Kind // "" when the body is not an Error record
		body   string
		allow  string
	}{
		{name: "match", method: "GET", path: "/flags/a", status: 200, body: "flag"},
		{name: "handler's own 404 untouched", method: "GET", path: "/flags/missing", status: 404, body: "own text 404\n"},
		{name: "unknown path", method: "GET", path: "/nope", status: 404, kind: apierr.NotFound},
		{name: "wrong method", method: "DELETE", path: "/flags/a", status: 405, kind: apierr.MethodNotAllowed, allow: "GET, HEAD"},
		{name: "redirect untouched", method: "GET", path: "/dir", status: http.StatusTemporaryRedirect},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(tt.method, tt.path, nil))
			if tt.kind != "" {
				mustErrorBody(t, rec, tt.status, tt.kind)
				if got := rec.Header().Values("X-Content-Type-Options"); len(got) != 1 || got[0] != "nosniff" {
					t.Errorf("X-Content-Type-Options %q, want nosniff", got)
				}
			} else if rec.Code != tt.status || (tt.body != "" && rec.Body.String() != tt.body) {
				t.Errorf("got %d %q, want %d %q", rec.Code, rec.Body, tt.status, tt.body)
			}
			if got := rec.Header().Get("Allow"); got != tt.allow {
				t.Errorf("Allow = %q, want %q", got, tt.allow)
			}
		})
	}
}

func TestNotFoundHandlerCatchAll(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /proxy", func(http.ResponseWriter, *http.Request) {})
	mux.Handle("/", NotFoundHandler())
	tests := []struct {
		name, method, path string
		status             int
	}{
		{"known", "GET", "/proxy", 200},
		{"unknown path", "GET", "/other", 404},
		// The proxy answers an unknown method on a known path with 404.
		{"unknown method", "DELETE", "/proxy", 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			mux.ServeHTTP(rec, httptest.NewRequest(tt.method, tt.path, nil))
			if tt.status == 404 {
				mustErrorBody(t, rec, 404, apierr.NotFound)
			} else if rec.Code != tt.status {
				t.Errorf("status = %d, want %d", rec.Code, tt.status)
			}
		})
	}
}

func TestMethodNotAllowed(t *testing.T) {
	rec := httptest.NewRecorder()
	MethodNotAllowed("GET", "POST").ServeHTTP(rec, httptest.NewRequest("PUT", "/proxy", nil))
	mustErrorBody(t, rec, 405, apierr.MethodNotAllowed)
	if got := rec.Header().Get("Allow"); got != "GET, POST" {
		t.Errorf("Allow = %q", got)
	}
}
