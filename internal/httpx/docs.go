package httpx

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"regexp"
	"strings"
)

// SecureDocs wraps a Swagger UI handler (page and assets) with headers that
// keep the page from being framed (clickjacking), its assets from being
// sniffed as another type, and every script from running except the UI's
// own: its asset files and the inline scripts of its page, allowed by hash.
// indexPath is the path at which ui serves its page; the page is rendered
// once here to compute the hashes, which holds because it is the same for
// every request.
func SecureDocs(ui http.Handler, indexPath string) http.Handler {
	csp := docsCSP(ui, indexPath)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		ui.ServeHTTP(w, r)
	})
}

var inlineScript = regexp.MustCompile(`(?s)<script>(.*?)</script>`)

// docsCSP builds the Content-Security-Policy of the UI: scripts from this
// origin and the page's inline ones by hash; styles may be inline (the page
// has a style block and the UI sets style attributes); the UI fetches the
// OpenAPI document and sends "try it out" requests to this origin only.
func docsCSP(ui http.Handler, indexPath string) string {
	req, _ := http.NewRequest(http.MethodGet, indexPath, nil)
	page := &pageRecorder{header: http.Header{}}
	ui.ServeHTTP(page, req)
	scripts := []string{"'self'"}
	for _, m := range inlineScript.FindAllSubmatch(page.body.Bytes(), -1) {
		sum := sha256.Sum256(m[1])
		scripts = append(scripts, "'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'")
	}
	return strings.Join([]string{
		"default-src 'self'",
		"script-src " + strings.Join(scripts, " "),
		"style-src 'self' 'unsafe-inline'",
		"img-src 'self' data:",
		"font-src 'self' data:",
		"connect-src 'self'",
		"object-src 'none'",
		"base-uri 'none'",
		"form-action 'self'",
		"frame-ancestors 'none'",
	}, "; ")
}

// pageRecorder keeps the page a handler writes.
type pageRecorder struct {
	header http.Header
	body   bytes.Buffer
}

func (p *pageRecorder) Header() http.Header         { return p.header }
func (p *pageRecorder) Write(b []byte) (int, error) { return p.body.Write(b) }
func (p *pageRecorder) WriteHeader(int)             {}
