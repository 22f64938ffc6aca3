package docsui

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestHandler(t *testing.T) {
	h := Handler("Test API", "/docs/openapi.json", "/docs/ui/")
	get := func(path string, header ...string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", path, nil)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	tests := []struct {
		name, path, acceptEncoding string
		status                     int
		ctype, encoding, contains  string
	}{
		{"page", "/docs/ui/", "", 200, "text/html; charset=utf-8", "", `data-url="/docs/openapi.json"`},
		{"page by name", "/docs/ui/index.html", "", 200, "text/html; charset=utf-8", "", "<title>Test API</title>"},
		{"start script", "/docs/ui/start.js", "", 200, "text/javascript; charset=utf-8", "", "SwaggerUIBundle({"},
		{"bundle, gzip", "/docs/ui/swagger-ui-bundle.js", "gzip, deflate", 200, "text/javascript; charset=utf-8", "gzip", ""},
		{"bundle, plain", "/docs/ui/swagger-ui-bundle.js", "", 200, "text/javascript; charset=utf-8", "", "SwaggerUIBundle"},
		{"bundle, gzip refused", "/docs/ui/swagger-ui-bundle.js", "gzip;q=0", 200, "text/javascript; charset=utf-8", "", "SwaggerUIBundle"},
		{"styles", "/docs/ui/swagger-ui.css", "", 200, "text/css; charset=utf-8", "", ".swagger-ui"},
		{"icon", "/docs/ui/favicon-32x32.png", "gzip", 200, "image/png", "", "PNG"},
		{"unknown", "/docs/ui/nothing.js", "", 404, "", "", ""},
		{"the embedded directory", "/docs/ui/.", "", 404, "", "", ""},
		{"outside base", "/elsewhere/swagger-ui.css", "", 404, "", "", ""},
		{"deeper path", "/docs/ui/a/swagger-ui.css", "", 404, "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := get(tt.path, "Accept-Encoding", tt.acceptEncoding)
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d", rec.Code, tt.status)
			}
			if tt.status != 200 {
				return
			}
			if got := rec.Header().Get("Content-Type"); got != tt.ctype {
				t.Errorf("Content-Type %q, want %q", got, tt.ctype)
			}
			if got := rec.Header().Get("Content-Encoding"); got != tt.encoding {
				t.Errorf("Content-Encoding %q, want %q", got, tt.encoding)
			}
			body := rec.Body.Bytes()
			if tt.encoding == "gzip" {
				zr, err := gzip.NewReader(bytes.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				if body, err = io.ReadAll(zr); err != nil {
					t.Fatal(err)
				}
				if !bytes.Contains(body, []byte("SwaggerUIBundle")) {
					t.Error("the gzipped bundle does not hold the UI")
				}
			}
			if !bytes.Contains(body, []byte(tt.contains)) {
				t.Errorf("body (%d bytes) lacks %q", len(body), tt.contains)
			}
		})
	}
}

// TestPageRunsNoInlineScript: every script of the page is a file, so the
// documentation's policy can allow scripts from its own origin only.
func TestPageRunsNoInlineScript(t *testing.T) {
	rec := httptest.NewRecorder()
	Handler("T", "/doc.json", "/ui/").ServeHTTP(rec, httptest.NewRequest("GET", "/ui/", nil))
	page := rec.Body.String()
	if n := strings.Count(page, "<script"); n != 2 || strings.Count(page, `<script src="`) != n {
		t.Errorf("want two scripts, both files:\n%s", page)
	}
}

func TestTitleIsEscaped(t *testing.T) {
	rec := httptest.NewRecorder()
	Handler(`<script>x</script>`, `/d"oc.json`, "/ui/").ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/ui/", nil))
	if page := rec.Body.String(); strings.Contains(page, "<script>x") || strings.Contains(page, `/d"oc`) {
		t.Errorf("title or URL not escaped:\n%s", page)
	}
}
