package httpx

import (
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/signalbox/signalbox/internal/apierr"
)

// mustErrorBody decodes an Error record from rec and checks its status and
// name.
func mustErrorBody(t *testing.T, rec *httptest.ResponseRecorder, status int, kind apierr.Kind) apierr.Body {
	t.Helper()
	if rec.Code != status {
		t.Fatalf("status = %d, want %d; body %s", rec.Code, status, rec.Body)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Errorf("Content-Type = %q", ct)
	}
	var b apierr.Body
	if err := json.Unmarshal(rec.Body.Bytes(), &b); err != nil {
		t.Fatalf("body is not an Error record: %v: %s", err, rec.Body)
	}
	if b.Name != string(kind) || b.ID == "" || b.Message == "" {
		t.Errorf("body = %+v, want name %s with id and message", b, kind)
	}
	return b
}
