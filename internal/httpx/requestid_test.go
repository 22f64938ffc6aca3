package httpx

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestRequestID(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h := Chain(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}), RequestID(), AccessLog(log))
	send := func(id string) string {
		req := httptest.NewRequest("GET", "/x", nil)
		if id != "" {
			req.Header.Set(RequestIDHeader, id)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Header().Get(RequestIDHeader)
	}
	tests := []struct {
		name, in string
		keep     bool
	}{
		{"none", "", false},
		{"uuid", "3f2b8c1e-5d4a-4e8b-9a7c-1234567890ab", true},
		{"aws trace", "Root=1-67891233-abcdef012345678912345678", true},
		{"spaces", "a b", false},
		{"newline", "a\nb", false},
		{"quote", `a"b`, false},
		{"too long", strings.Repeat("a", 129), false},
		{"longest", strings.Repeat("a", 128), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := send(tt.in)
			if tt.keep && got != tt.in {
				t.Errorf("%q answered as %q", tt.in, got)
			}
			if !tt.keep && (got == tt.in || len(got) != 32) {
				t.Errorf("%q answered as %q, want a new id", tt.in, got)
			}
			if !strings.Contains(logs.String(), "request_id="+got) && !strings.Contains(logs.String(), `request_id="`+got+`"`) {
				t.Errorf("log lacks request_id=%s: %s", got, logs.String())
			}
		})
	}
	if a, b := send(""), send(""); a == b {
		t.Errorf("two requests got the id %s", a)
	}
}
