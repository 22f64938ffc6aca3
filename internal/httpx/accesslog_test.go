package httpx

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestAccessLog(t *testing.T) {
	tests := []struct {
		name    string
		level   slog.Level
		handler http.HandlerFunc
		want    []string // substrings of the log line; nil means no line
	}{
		{
			name:    "implicit 200",
			level:   slog.LevelDebug,
			handler: func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "hello") },
			want:    []string{"msg=\"http request\"", "method=POST", "path=/a/b", "status=200", "bytes=5", "duration="},
		},
		{
			name:    "explicit status",
			level:   slog.LevelDebug,
			handler: func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) },
			want:    []string{"status=204", "bytes=0"},
		},
		{
			name:  "early hints not the status",
			level: slog.LevelDebug,
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusEarlyHints)
				w.WriteHeader(http.StatusAccepted)
			},
			want: []string{"status=202"},
		},
		{
			name:    "nothing written",
			level:   slog.LevelDebug,
			handler: func(http.ResponseWriter, *http.Request) {},
			want:    []string{"status=200"},
		},
		{
			name:    "query left out",
			level:   slog.LevelDebug,
			handler: func(http.ResponseWriter, *http.Request) {},
			want:    []string{"path=/a/b "},
		},
		{
			name:    "info level logs nothing",
			level:   slog.LevelInfo,
			handler: func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "hello") },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: tt.level}))
			rec := httptest.NewRecorder()
			AccessLog(log)(tt.handler).ServeHTTP(rec, httptest.NewRequest("POST", "/a/b?userId=secret", nil))
			out := logs.String()
			if tt.want == nil {
				if out != "" {
					t.Errorf("logged %q, want nothing", out)
				}
				return
			}
			if strings.Count(out, "\n") != 1 || strings.Contains(out, "secret") {
				t.Errorf("want one line without the query, got %q", out)
			}
			for _, s := range tt.want {
				if !strings.Contains(out, s) {
					t.Errorf("log lacks %q: %s", s, out)
				}
			}
		})
	}
}

func TestAccessLogPanic(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h := Chain(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }),
		Recover(slog.New(slog.NewTextHandler(io.Discard, nil))), AccessLog(log))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	if rec.Code != 500 || !strings.Contains(logs.String(), "status=500") {
		t.Errorf("code %d, log %q; want 500 and a logged 500", rec.Code, logs.String())
	}
}

// TestFlusherKept checks that middleware writers do not hide http.Flusher,
// which streaming answers need.
func TestFlusherKept(t *testing.T) {
	debug := slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelDebug}))
	metrics, err := HTTPMetrics(newRegistry())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		mw   Middleware
	}{
		{"AccessLog", AccessLog(debug)},
		{"Recover", Recover(debug)},
		{"HTTPMetrics", metrics},
		{"JSONMisses", JSONMisses()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			tt.mw(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				f, ok := w.(http.Flusher)
				if !ok {
					t.Fatal("writer is not an http.Flusher")
				}
				_, _ = io.WriteString(w, "x")
				f.Flush()
				if err := http.NewResponseController(w).Flush(); err != nil {
					t.Errorf("ResponseController.Flush: %v", err)
				}
			})).ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
			if !rec.Flushed {
				t.Error("underlying writer was not flushed")
			}
		})
	}
}
