package server

import (
	"encoding/json"
	"net/http"
	"sync"

	"github.com/signalbox/signalbox/internal/docsui"
	"github.com/signalbox/signalbox/internal/httpx"
)

// The API documentation: the OpenAPI document at /docs/openapi.json and
// Swagger UI at /docs/openapi/, whose scripts and styles are embedded in
// the binary (internal/docsui), so the page works without internet access.

const (
	docsJSONPath = "/docs/openapi.json"
	docsUIPath   = "/docs/openapi/"
)

func registerDocs(s *Server, m mux) {
	// The document is built at the first request: by then every area has
	// registered its routes.
	var (
		once sync.Once
		doc  []byte
		err  error
	)
	m.public("GET "+docsJSONPath, func(w http.ResponseWriter, r *http.Request) error {
		once.Do(func() { doc, err = json.Marshal(buildOpenAPI(s.Routes(), s.cfg.Version)) })
		if err != nil {
			return err
		}
		w.Header().Set("Content-Type", "application/json")
		_, werr := w.Write(doc)
		return werr
	})

	ui := docsui.Handler("Signalbox API", docsJSONPath, docsUIPath)
	secured := httpx.SecureDocs(ui, docsUIPath)
	m.public("GET "+docsUIPath, func(w http.ResponseWriter, r *http.Request) error {
		secured.ServeHTTP(w, r)
		return nil
	})
	m.public("GET /docs/openapi", func(w http.ResponseWriter, r *http.Request) error {
		http.Redirect(w, r, docsUIPath, http.StatusMovedPermanently)
		return nil
	})
}
