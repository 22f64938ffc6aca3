package httpx

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/signalbox/signalbox/internal/apierr"
)

// FuzzDecodeJSON checks that no body or Content-Type makes DecodeJSON panic
// and that every failure is an *apierr.Error of a client-error kind.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []struct{ ct, body string }{
		{"application/json", `{"toggles":["a"],"context":{"userId":"u","properties":{"k":"v"}}}`},
		{"", `{"limit":1.5}`},
		{"text/plain", `{}`},
		{"application/json; charset=\"utf-8\"", `{} {}`},
		{"application/x+json", `{"context":[`},
		{"", ""},
		{"", "\xff\xfe"},
	} {
		f.Add(s.ct, s.body)
	}
	f.Fuzz(func(t *testing.T, ct, body string) {
		r := httptest.NewRequest("POST", "/proxy", strings.NewReader(body))
		if ct != "" {
			r.Header.Set("Content-Type", ct)
		}
		var dst decodeTarget
		err := DecodeJSON(httptest.NewRecorder(), r, &dst, 256)
		if err == nil {
			return
		}
		var ae *apierr.Error
		if !errors.As(err, &ae) {
			t.Fatalf("error %v is not an *apierr.Error", err)
		}
		if s := ae.Kind.Status(); s < 400 || s >= 500 {
			t.Fatalf("error %v has status %d, want a 4xx", err, s)
		}
	})
}
