package proxy

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/signalbox/signalbox/internal/docsui"
	"github.com/signalbox/signalbox/internal/httpx"
)

// openAPIDoc describes the proxy's own endpoints. Paths are relative to
// the server URL, which is set to the base path at start.
//
//go:embed openapi.json
var openAPIDoc []byte

// edgeOpenAPIDoc describes the endpoints of Edge mode.
//
//go:embed edge_openapi.json
var edgeOpenAPIDoc []byte

// oasDoc is the OpenAPI document and the Swagger UI, both served from the
// binary: the UI's assets are embedded, so it works offline.
type oasDoc struct {
	json []byte
	ui   http.Handler
}

func newOASDoc(base, keyHeader string) (*oasDoc, error) {
	return newOASDocFrom(openAPIDoc, "Signalbox proxy", base, keyHeader)
}

// newOASDocFrom serves the document raw under base, naming keyHeader as
// the header of its API keys.
func newOASDocFrom(raw []byte, title, base, keyHeader string) (*oasDoc, error) {
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("openapi document: %w", err)
	}
	server := base
	if server == "" {
		server = "/"
	}
	doc["servers"] = []any{map[string]any{"url": server}}
	// The key header is configurable; the document names the real one.
	if comps, ok := doc["components"].(map[string]any); ok {
		if schemes, ok := comps["securitySchemes"].(map[string]any); ok {
			for _, s := range schemes {
				if m, ok := s.(map[string]any); ok {
					m["name"] = keyHeader
				}
			}
		}
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	return &oasDoc{
		json: b,
		ui:   httpx.SecureDocs(docsui.Handler(title, base+routeOASJSON, base+routeOASUI+"/"), base+routeOASUI+"/"),
	}, nil
}

// serveDocs serves the Swagger UI: /docs/openapi redirects to
// /docs/openapi/, and everything under it is the UI's page and assets.
func (p *Proxy) serveDocs(w http.ResponseWriter, r *http.Request, path string) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		notFound(w)
		return
	}
	r.Pattern = "GET " + routeOASUI
	if path == routeOASUI {
		http.Redirect(w, r, p.base+routeOASUI+"/", http.StatusMovedPermanently)
		return
	}
	p.oas.ui.ServeHTTP(w, r)
}

// serveOASJSON answers /docs/openapi.json.
func (p *Proxy) serveOASJSON(w http.ResponseWriter, r *http.Request) {
	r.Pattern = "GET " + routeOASJSON
	writeJSON(w, r, p.oas.json, false)
}
