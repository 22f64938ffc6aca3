package proxy

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/signalbox/signalbox/answer"
)

// FuzzRequestDecoding drives the GET query parser and the POST body
// decoder, through the real handler, with arbitrary input: whatever
// arrives, the answer is a 200 toggles document or a 4xx error document,
// never a panic or a 5xx.
func FuzzRequestDecoding(f *testing.F) {
	for _, seed := range []struct{ query, body string }{
		{"userId=alice&sessionId=1", `{"context":{"userId":"alice"},"toggles":["on-default"]}`},
		{"properties[a]=b&properties%5Bc%5D=d&x=y", `{"context":{"properties":{"a":"b","n":1,"o":{},"z":null}}}`},
		{"currentTime=2026-01-01T00:00:00Z&environment=e", `{"context":{"currentTime":"not a time"}}`},
		{"%zz=%&&=&properties[]=1&properties[=", `{"toggles":[1]}`},
		{"appName=" + strings.Repeat("a", 100), `[]`},
		{"remoteAddress=::1", `{"context":[],"toggles":{}}`},
		{"", `{"context":{"userId":5,"appName":true,"sessionId":null}}`},
		{"", "{\"context\":{\"userId\":\"\xff\xfe\"}}"},
		{"", `{"context":`},
		{"", ``},
	} {
		f.Add(seed.query, seed.body)
	}
	up := newFakeUpstream(f)
	cfg := testConfig(f, up.url())
	cfg.EnableAllEndpoint = true
	cfg.MaxBodyBytes = 4096
	h := startProxy(f, cfg)
	h.waitReady(f)
	handler := h.p.Handler()

	f.Fuzz(func(t *testing.T, query, body string) {
		// The context parser on its own, without HTTP's own checks.
		ctx := answer.ContextFromQuery(query)
		_ = ctx
		var lr answer.Lookup
		if json.Unmarshal([]byte(body), &lr) == nil {
			_, _, _ = lr.Parse()
		}
		var mr metricsRequest
		if json.Unmarshal([]byte(body), &mr) == nil {
			_, _ = mr.validate()
		}

		for _, r := range []*http.Request{
			newRawRequest("GET", "/proxy", query, ""),
			newRawRequest("GET", "/proxy/all", query, ""),
			newRawRequest("POST", "/proxy", query, body),
			newRawRequest("POST", "/proxy/all", "", body),
			newRawRequest("POST", "/proxy/client/metrics", "", body),
			newRawRequest("POST", "/proxy/client/register", "", body),
		} {
			rec := httptest.NewRecorder()
			handler.ServeHTTP(rec, r)
			switch {
			case rec.Code == http.StatusOK && strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json"):
				var out struct {
					Toggles []json.RawMessage `json:"toggles"`
				}
				if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || out.Toggles == nil {
					t.Fatalf("%s %s: 200 with a bad document %q: %v", r.Method, r.URL, rec.Body.Bytes(), err)
				}
			case rec.Code == http.StatusOK:
				// metrics and register answer "OK".
			case rec.Code >= 400 && rec.Code < 500:
				if rec.Code != http.StatusUnauthorized && !json.Valid(rec.Body.Bytes()) {
					t.Fatalf("%s %s: %d with a non-JSON body %q", r.Method, r.URL, rec.Code, rec.Body.Bytes())
				}
			default:
				t.Fatalf("%s %s: status %d: %s", r.Method, r.URL, rec.Code, rec.Body.Bytes())
			}
		}
	})
}

// newRawRequest builds a request without url.Parse, so any query text
// reaches the handler as a client could send it.
func newRawRequest(method, path, rawQuery, body string) *http.Request {
	r := httptest.NewRequest(method, path, bytes.NewReader([]byte(body)))
	r.URL.RawQuery = rawQuery
	r.Header.Set("Authorization", testClientKey)
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	return r
}
