package httpx

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/signalbox/signalbox/internal/apierr"
)

func TestRecover(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		status  int
		logs    []string // substrings of the log output
	}{
		{
			name:    "no panic",
			handler: func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) },
			status:  http.StatusTeapot,
		},
		{
			name:    "string panic",
			handler: func(http.ResponseWriter, *http.Request) { panic("boom") },
			status:  http.StatusInternalServerError,
			logs:    []string{"request failed", "boom", "stack=", "recover_test.go", "path=/x"},
		},
		{
			name:    "error panic",
			handler: func(http.ResponseWriter, *http.Request) { panic(errors.New("bad state")) },
			status:  http.StatusInternalServerError,
			logs:    []string{"bad state"},
		},
		{
			name: "runtime error",
			handler: func(w http.ResponseWriter, r *http.Request) {
				var s []int
				_ = s[len(r.URL.Path)]
			},
			status: http.StatusInternalServerError,
			logs:   []string{"index out of range"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			log := slog.New(slog.NewTextHandler(&logs, nil))
			rec := httptest.NewRecorder()
			Recover(log)(tt.handler).ServeHTTP(rec, httptest.NewRequest("GET", "/x", nil))
			if tt.status == http.StatusInternalServerError {
				b := mustErrorBody(t, rec, tt.status, apierr.Internal)
				if strings.Contains(b.Message, "boom") || strings.Contains(b.Message, "bad state") {
					t.Errorf("panic value leaked to the caller: %q", b.Message)
				}
				if !strings.Contains(logs.String(), b.ID) {
					t.Errorf("log does not carry the record id %s:\n%s", b.ID, logs.String())
				}
				if n := strings.Count(logs.String(), "\n"); n != 1 {
					t.Errorf("got %d log lines, want 1:\n%s", n, logs.String())
				}
			} else if rec.Code != tt.status {
				t.Errorf("status = %d, want %d", rec.Code, tt.status)
			}
			for _, s := range tt.logs {
				if !strings.Contains(logs.String(), s) {
					t.Errorf("log lacks %q:\n%s", s, logs.String())
				}
			}
		})
	}
}

func TestRecoverDropsHandlerHeaders(t *testing.T) {
	rec := httptest.NewRecorder()
	h := Recover(slog.New(slog.NewTextHandler(io.Discard, nil)))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Header().Set("Content-Length", "9999")
		w.Header().Set("ETag", `W/"x"`)
		w.Header().Set("Cache-Control", "public, max-age=2")
		panic("boom")
	}))
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	mustErrorBody(t, rec, 500, apierr.Internal)
	for _, k := range []string{"Content-Length", "ETag", "Cache-Control"} {
		if v := rec.Header().Get(k); v != "" {
			t.Errorf("%s = %q survived the panic", k, v)
		}
	}
	if rec.Header().Get("Access-Control-Allow-Origin") != "*" {
		t.Error("CORS header was dropped")
	}
}

func TestRecoverAbort(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		logged  bool
	}{
		{name: "abort passes", handler: func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) }},
		{name: "panic after write aborts", logged: true, handler: func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, "partial")
			panic("late")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			h := Recover(slog.New(slog.NewTextHandler(&logs, nil)))(tt.handler)
			defer func() {
				if v := recover(); v != http.ErrAbortHandler {
					t.Errorf("recovered %v, want http.ErrAbortHandler", v)
				}
				if got := strings.Contains(logs.String(), "panic after response started"); got != tt.logged {
					t.Errorf("logged = %v, want %v:\n%s", got, tt.logged, logs.String())
				}
			}()
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
		})
	}
}

// TestRecoverServer checks the promise end to end: after a panicking
// request the server still answers.
func TestRecoverServer(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /panic", func(http.ResponseWriter, *http.Request) { panic("boom") })
	mux.HandleFunc("GET /ok", func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "ok") })
	srv := httptest.NewServer(Chain(mux, Recover(slog.New(slog.NewTextHandler(io.Discard, nil)))))
	defer srv.Close()
	for _, c := range []struct {
		path   string
		status int
	}{{"/panic", 500}, {"/ok", 200}, {"/panic", 500}, {"/ok", 200}} {
		resp, err := http.Get(srv.URL + c.path)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("GET %s = %d, want %d", c.path, resp.StatusCode, c.status)
		}
	}
}
