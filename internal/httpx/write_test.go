package httpx

import (
	"net/http/httptest"
	"testing"

	"github.com/signalbox/signalbox/internal/apierr"
)

func TestWriteJSON(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		v       any
		body    string
		wantErr bool
	}{
		{name: "object", status: 200, v: map[string]any{"toggles": []string{}}, body: `{"toggles":[]}`},
		{name: "no html escaping", status: 201, v: "<a&b>", body: `"<a&b>"`},
		{name: "nil", status: 200, v: nil, body: `null`},
		{name: "unencodable", v: make(chan int), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			err := WriteJSON(rec, tt.status, tt.v)
			if tt.wantErr {
				if !apierr.Is(err, apierr.Internal) {
					t.Errorf("err = %v, want an InternalError", err)
				}
				if rec.Body.Len() != 0 || len(rec.Header()) != 0 {
					t.Errorf("wrote %q with headers %v before failing", rec.Body, rec.Header())
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rec.Code != tt.status || rec.Body.String() != tt.body {
				t.Errorf("got %d %q, want %d %q", rec.Code, rec.Body, tt.status, tt.body)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/json; charset=utf-8" {
				t.Errorf("Content-Type = %q", ct)
			}
		})
	}
}
