package web

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
)

func get(t *testing.T, h http.Handler, method, path string, header map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestShellAndAssets(t *testing.T) {
	h := Handler()
	shell := get(t, h, "GET", "/projects/default", nil)
	if shell.Code != http.StatusOK {
		t.Fatalf("shell: %d", shell.Code)
	}
	body := shell.Body.String()
	// The shell names its assets under the build's version; the app module
	// imports its pages relatively, so they share that prefix.
	m := regexp.MustCompile(`src="(/assets/([0-9a-f]+)/app\.js)"`).FindStringSubmatch(body)
	if m == nil || m[2] != Version() {
		t.Fatalf("shell does not load the versioned app.js: %s", body)
	}
	if !strings.Contains(body, `href="/assets/`+Version()+`/style.css"`) {
		t.Errorf("shell does not load the versioned style.css")
	}
	if strings.Contains(body, "{{") || regexp.MustCompile(`<script>|style="|\son[a-z]+=`).MatchString(body) {
		t.Errorf("shell has a placeholder, an inline script, style or handler: %s", body)
	}

	tests := []struct {
		name, path, wantType, wantCache string
		wantStatus                      int
	}{
		{"shell", "/", "text/html; charset=utf-8", "no-cache", 200},
		{"app", m[1], "text/javascript; charset=utf-8", "public, max-age=31536000, immutable", 200},
		{"page module", "/assets/" + Version() + "/pages/login.js", "text/javascript; charset=utf-8", "public, max-age=31536000, immutable", 200},
		{"style", "/assets/" + Version() + "/style.css", "text/css; charset=utf-8", "public, max-age=31536000, immutable", 200},
		{"other version", "/assets/0123456789abcdef/app.js", "", "", 404},
		{"unknown file", "/assets/" + Version() + "/nope.js", "", "", 404},
		{"shell source", "/assets/" + Version() + "/index.html", "", "", 404},
		{"traversal", "/assets/" + Version() + "/../web.go", "", "", 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := get(t, h, "GET", tt.path, nil)
			if res.Code != tt.wantStatus {
				t.Fatalf("status %d, want %d", res.Code, tt.wantStatus)
			}
			// Every answer carries the security headers, 404s too.
			for k, v := range securityHeaders {
				if got := res.Header().Get(k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
			if !strings.Contains(res.Header().Get("Content-Security-Policy"), "script-src 'self';") {
				t.Errorf("CSP allows more than own scripts")
			}
			if tt.wantStatus != 200 {
				return
			}
			if got := res.Header().Get("Content-Type"); got != tt.wantType {
				t.Errorf("Content-Type %q, want %q", got, tt.wantType)
			}
			if got := res.Header().Get("Cache-Control"); got != tt.wantCache {
				t.Errorf("Cache-Control %q, want %q", got, tt.wantCache)
			}
			etag := res.Header().Get("ETag")
			if etag == "" {
				t.Fatal("no ETag")
			}
			for _, inm := range []string{etag, "W/" + etag, `"other", ` + etag} {
				again := get(t, h, "GET", tt.path, map[string]string{"If-None-Match": inm})
				if again.Code != http.StatusNotModified || again.Body.Len() != 0 {
					t.Errorf("If-None-Match %s: %d with %d bytes, want 304 without a body", inm, again.Code, again.Body.Len())
				}
			}
			if other := get(t, h, "GET", tt.path, map[string]string{"If-None-Match": `"other"`}); other.Code != 200 {
				t.Errorf("another ETag: %d, want 200", other.Code)
			}
			head := get(t, h, "HEAD", tt.path, nil)
			if head.Code != 200 || head.Body.Len() != 0 || head.Header().Get("Content-Length") != res.Header().Get("Content-Length") {
				t.Errorf("HEAD: %d, %d bytes, length %q", head.Code, head.Body.Len(), head.Header().Get("Content-Length"))
			}
		})
	}
	if res := get(t, h, "POST", "/projects", nil); res.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d, want 405", res.Code)
	}
}

// A change to any file gives every file a new URL, so no browser keeps an
// old module that imports a new one.
func TestVersionCoversEveryFile(t *testing.T) {
	base := fstest.MapFS{
		"index.html": {Data: []byte(`<script type="module" src="{{ASSETS}}/app.js"></script>`)},
		"app.js":     {Data: []byte("import './pages/a.js';")},
		"pages/a.js": {Data: []byte("export const a = 1;")},
		"style.css":  {Data: []byte("body{}")},
	}
	u1, err := load(base)
	if err != nil {
		t.Fatal(err)
	}
	changed := fstest.MapFS{}
	for k, v := range base {
		changed[k] = v
	}
	changed["pages/a.js"] = &fstest.MapFile{Data: []byte("export const a = 2;")}
	u2, err := load(changed)
	if err != nil {
		t.Fatal(err)
	}
	if u1.version == u2.version {
		t.Fatal("a changed page module kept the version")
	}
	if !strings.Contains(string(u2.shell.body), "/assets/"+u2.version+"/app.js") || u1.shell.etag == u2.shell.etag {
		t.Errorf("the shell does not follow the version: %s", u2.shell.body)
	}
	if _, err := load(fstest.MapFS{"app.js": {Data: []byte("x")}}); err == nil {
		t.Error("a tree without index.html loaded")
	}
}

func TestGzip(t *testing.T) {
	h := Handler()
	path := "/assets/" + Version() + "/app.js"
	plain := get(t, h, "GET", path, nil)
	tests := []struct {
		name, accept string
		gzipped      bool
	}{
		{"none", "", false},
		{"gzip", "gzip, deflate, br", true},
		{"weighted", "br;q=1.0, gzip;q=0.8", true},
		{"refused", "gzip;q=0, identity", false},
		{"other", "br", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := get(t, h, "GET", path, map[string]string{"Accept-Encoding": tt.accept})
			if res.Code != 200 || res.Header().Get("Vary") != "Accept-Encoding" {
				t.Fatalf("%d, Vary %q", res.Code, res.Header().Get("Vary"))
			}
			if got := res.Header().Get("Content-Encoding") == "gzip"; got != tt.gzipped {
				t.Fatalf("gzipped %v, want %v", got, tt.gzipped)
			}
			body := res.Body.Bytes()
			if tt.gzipped {
				if res.Header().Get("ETag") == plain.Header().Get("ETag") {
					t.Error("the compressed form has the plain form's ETag")
				}
				zr, err := gzip.NewReader(bytes.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				if body, err = io.ReadAll(zr); err != nil {
					t.Fatal(err)
				}
				again := get(t, h, "GET", path, map[string]string{"Accept-Encoding": tt.accept, "If-None-Match": res.Header().Get("ETag")})
				if again.Code != http.StatusNotModified {
					t.Errorf("revalidating the compressed form: %d", again.Code)
				}
			}
			if !bytes.Equal(body, plain.Body.Bytes()) {
				t.Error("the answer differs from the file")
			}
		})
	}
}
