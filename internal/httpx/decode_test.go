package httpx

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/signalbox/signalbox/internal/apierr"
)

type decodeTarget struct {
	Toggles []string `json:"toggles"`
	Context struct {
		UserID     string            `json:"userId"`
		Properties map[string]string `json:"properties"`
	} `json:"context"`
	Limit int `json:"limit"`
}

func TestDecodeJSON(t *testing.T) {
	tests := []struct {
		name        string
		contentType string // "-" for no header
		body        string
		max         int64
		kind        apierr.Kind // "" for success
		empty       bool        // errors.Is(err, ErrEmptyBody)
		msg         []string    // substrings of the message
		path        string      // Details[0].Path for Validation
		want        decodeTarget
	}{
		{name: "ok", contentType: "application/json", body: `{"toggles":["a"],"context":{"userId":"u"}}`,
			want: decodeTarget{Toggles: []string{"a"}, Context: struct {
				UserID     string            `json:"userId"`
				Properties map[string]string `json:"properties"`
			}{UserID: "u"}}},
		{name: "charset parameter", contentType: "application/json; charset=utf-8", body: `{"limit":3}`, want: decodeTarget{Limit: 3}},
		{name: "vendor json type", contentType: "application/merge-patch+json", body: `{"limit":3}`, want: decodeTarget{Limit: 3}},
		{name: "no content type", contentType: "-", body: `{"limit":3}`, want: decodeTarget{Limit: 3}},
		{name: "unknown fields", contentType: "-", body: `{"limit":3,"extra":{"x":[1]}}`, want: decodeTarget{Limit: 3}},
		{name: "trailing whitespace", contentType: "-", body: "{\"limit\":3}\n\t ", want: decodeTarget{Limit: 3}},
		{name: "null", contentType: "-", body: `null`},
		{name: "text/plain", contentType: "text/plain", body: `{}`, kind: apierr.ContentType, msg: []string{"text/plain"}},
		{name: "form", contentType: "application/x-www-form-urlencoded", body: `a=b`, kind: apierr.ContentType},
		{name: "bad content type", contentType: "application/", body: `{}`, kind: apierr.ContentType},
		{name: "json-like but not json", contentType: "text/json+x", body: `{}`, kind: apierr.ContentType},
		{name: "empty", contentType: "application/json", body: ``, kind: apierr.BadData, empty: true},
		{name: "whitespace only", contentType: "-", body: " \n ", kind: apierr.BadData, empty: true},
		{name: "too large", contentType: "-", body: `{"toggles":["` + strings.Repeat("a", 100) + `"]}`, max: 64,
			kind: apierr.PayloadTooLarge, msg: []string{"64 bytes"}},
		{name: "too large in trailer", contentType: "-", body: `{}` + strings.Repeat(" ", 100), max: 64,
			kind: apierr.PayloadTooLarge},
		{name: "exactly the limit", contentType: "-", body: `{"limit":12}`, max: 12, want: decodeTarget{Limit: 12}},
		{name: "syntax", contentType: "-", body: `{"limit":3,}`, kind: apierr.BadData,
			msg: []string{"could not be parsed as JSON", "at byte 12"}},
		{name: "not json at all", contentType: "-", body: `hello`, kind: apierr.BadData, msg: []string{"could not be parsed", "at byte 1"}},
		{name: "truncated", contentType: "-", body: `{"limit":`, kind: apierr.BadData, msg: []string{"could not be parsed", "after byte 9"}},
		{name: "two values", contentType: "-", body: `{} {}`, kind: apierr.BadData, msg: []string{"after the JSON value"}},
		{name: "trailing garbage", contentType: "-", body: `{}x`, kind: apierr.BadData, msg: []string{"could not be parsed"}},
		{name: "wrong type top field", contentType: "-", body: `{"toggles":"a"}`, kind: apierr.Validation,
			path: "toggles", msg: []string{"toggles must be an array, not string"}},
		{name: "wrong type nested", contentType: "-", body: `{"context":{"userId":5}}`, kind: apierr.Validation,
			path: "context.userId", msg: []string{"context.userId must be a string, not number"}},
		{name: "context not object", contentType: "-", body: `{"context":"x"}`, kind: apierr.Validation,
			path: "context", msg: []string{"context must be an object"}},
		{name: "fraction for int", contentType: "-", body: `{"limit":1.5}`, kind: apierr.Validation, path: "limit",
			msg: []string{"limit must be an integer"}},
		{name: "array body", contentType: "-", body: `[1]`, kind: apierr.Validation, path: "body",
			msg: []string{"body must be an object, not array"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/proxy", strings.NewReader(tt.body))
			if tt.contentType != "-" {
				r.Header.Set("Content-Type", tt.contentType)
			}
			var got decodeTarget
			err := DecodeJSON(httptest.NewRecorder(), r, &got, tt.max)
			if tt.kind == "" {
				if err != nil {
					t.Fatalf("DecodeJSON: %v", err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("decoded (-want +got):\n%s", diff)
				}
				return
			}
			var ae *apierr.Error
			if !errors.As(err, &ae) || ae.Kind != tt.kind {
				t.Fatalf("err = %v, want kind %s", err, tt.kind)
			}
			if got := errors.Is(err, ErrEmptyBody); got != tt.empty {
				t.Errorf("errors.Is(err, ErrEmptyBody) = %v, want %v", got, tt.empty)
			}
			for _, s := range tt.msg {
				if !strings.Contains(ae.Message, s) {
					t.Errorf("message %q lacks %q", ae.Message, s)
				}
			}
			if tt.path != "" && (len(ae.Details) == 0 || ae.Details[0].Path != tt.path) {
				t.Errorf("details = %+v, want path %q", ae.Details, tt.path)
			}
		})
	}
}

// TestDecodeJSONSmallAndLargeBodiesAgree: a body read whole and decoded
// in one go, and the same body made longer than that buffer by trailing
// spaces (which JSON ignores), which goes through the streaming decoder,
// give the same value or the same error.
func TestDecodeJSONSmallAndLargeBodiesAgree(t *testing.T) {
	for _, body := range []string{
		`{"toggles":["a","b"],"context":{"userId":"u","properties":{"p":"v"}},"limit":3}`,
		``, `   `, `{"limit":1} x`, `{"limit":1}{"limit":2}`, `{"limit":}`, `{"limit":"many"}`, `[1]`, `{"limit":1`,
	} {
		decode := func(b string) (decodeTarget, string) {
			var got decodeTarget
			err := DecodeJSON(httptest.NewRecorder(), httptest.NewRequest("POST", "/", strings.NewReader(b)), &got, 0)
			if err == nil {
				return got, ""
			}
			return got, err.Error()
		}
		small, smallErr := decode(body)
		large, largeErr := decode(body + strings.Repeat(" ", 2*smallBodyBytes))
		// A body cut short names the last byte read, which the spaces move.
		if strings.Contains(smallErr, "it ends after byte") {
			smallErr, largeErr = strings.Split(smallErr, "byte")[0], strings.Split(largeErr, "byte")[0]
		}
		if smallErr != largeErr || !cmp.Equal(small, large) {
			t.Errorf("%q: read whole %+v %q, streamed %+v %q", body, small, smallErr, large, largeErr)
		}
	}
}

func TestDecodeJSONNilBodyAndBadTarget(t *testing.T) {
	r := httptest.NewRequest("POST", "/", nil)
	r.Body = nil
	if err := DecodeJSON(httptest.NewRecorder(), r, &decodeTarget{}, 0); !errors.Is(err, ErrEmptyBody) {
		t.Errorf("nil body: err = %v, want ErrEmptyBody", err)
	}
	r = httptest.NewRequest("POST", "/", strings.NewReader(`{}`))
	if err := DecodeJSON(httptest.NewRecorder(), r, decodeTarget{}, 0); !apierr.Is(err, apierr.Internal) {
		t.Errorf("non-pointer target: err = %v, want InternalError", err)
	}
}

// IsJSONContentType is what DecodeJSON accepts as a declared type; an absent
// type, which DecodeJSON reads as JSON, is not a declaration.
func TestIsJSONContentType(t *testing.T) {
	for ct, want := range map[string]bool{
		"application/json":                  true,
		"Application/JSON; charset=utf-8":   true,
		"application/merge-patch+json":      true,
		"":                                  false,
		" ":                                 false,
		"text/plain":                        false,
		"text/plain; x=application/json":    false,
		"application/x-www-form-urlencoded": false,
		"multipart/form-data; boundary=x":   false,
		"application/":                      false,
		"text/json+x":                       false,
	} {
		if got := IsJSONContentType(ct); got != want {
			t.Errorf("IsJSONContentType(%q) = %v, want %v", ct, got, want)
		}
		if err := checkContentType(ct); want && err != nil {
			t.Errorf("DecodeJSON refuses %q: %v", ct, err)
		}
	}
}

func TestDecodeValue(t *testing.T) {
	tests := []struct {
		name string
		data string
		kind apierr.Kind // "" for success
		path string      // Details[0].Path for Validation
		msg  string
		want decodeTarget
	}{
		{name: "ok", data: `{"limit":3}`, want: decodeTarget{Limit: 3}},
		{name: "field of the wrong type", data: `{"toggles":"a"}`, kind: apierr.Validation, path: "data.toggles",
			msg: "data.toggles must be an array, not string"},
		{name: "nested field", data: `{"context":{"userId":7}}`, kind: apierr.Validation, path: "data.context.userId",
			msg: "data.context.userId must be a string, not number"},
		{name: "the value itself", data: `[1]`, kind: apierr.Validation, path: "data", msg: "data must be an object, not array"},
		{name: "syntax", data: `{"limit":`, kind: apierr.BadData},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got decodeTarget
			err := DecodeValue([]byte(tt.data), &got, "data")
			if tt.kind == "" {
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
				return
			}
			var e *apierr.Error
			if !errors.As(err, &e) || e.Kind != tt.kind {
				t.Fatalf("error %v, want kind %s", err, tt.kind)
			}
			if tt.path != "" && (len(e.Details) == 0 || e.Details[0].Path != tt.path) {
				t.Errorf("details %+v, want path %s", e.Details, tt.path)
			}
			if tt.msg != "" && e.Message != tt.msg {
				t.Errorf("message %q, want %q", e.Message, tt.msg)
			}
		})
	}
}
