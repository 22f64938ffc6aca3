// Package docsui serves Swagger UI for an OpenAPI document: a page of its
// own and the UI's scripts and styles, embedded in the binary (from
// swgui's asset package, stored gzipped) so the page works without
// internet access.
//
// It replaces swgui's ready-made handlers, whose package compressed-asset
// server hashed every asset when the program started: some 4.7 MB of
// memory in every process of the binary, whether it ever served the page
// or not. Here nothing is read before the first request for an asset.
// The page runs no inline script (its start-up script is an asset too), so
// a policy of scripts from this origin only is enough.
package docsui

import (
	"bytes"
	"compress/gzip"
	"html/template"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"

	"github.com/swaggest/swgui/v5/static"
)

// Handler serves the UI under base (a path ending in "/"): the page at
// base, the assets below it. title names the page; docURL is where the
// browser fetches the OpenAPI document.
func Handler(title, docURL, base string) http.Handler {
	var page strings.Builder
	_ = pageTemplate.Execute(&page, struct{ Title, DocURL string }{title, docURL})
	body := page.String()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, ok := strings.CutPrefix(r.URL.Path, base)
		switch {
		case !ok || r.Method != http.MethodGet && r.Method != http.MethodHead:
			http.NotFound(w, r)
		case name == "" || name == "index.html":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-cache")
			_, _ = io.WriteString(w, body)
		case name == startScriptName:
			w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
			_, _ = io.WriteString(w, startScript)
		default:
			serveAsset(w, r, name)
		}
	})
}

// serveAsset serves one of the UI's files. They are stored gzipped: sent
// as they are to clients that take gzip, decompressed for the others.
func serveAsset(w http.ResponseWriter, r *http.Request, name string) {
	if name != path.Base(name) || strings.HasPrefix(name, ".") {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	if ctype := mime.TypeByExtension(path.Ext(name)); ctype != "" {
		h.Set("Content-Type", ctype)
	}
	h.Set("Cache-Control", "public, max-age=86400")
	if b, err := fs.ReadFile(static.FS, name); err == nil { // the icons are stored as they are
		_, _ = w.Write(b)
		return
	}
	b, err := fs.ReadFile(static.FS, name+".gz")
	if err != nil {
		http.NotFound(w, r)
		return
	}
	h.Add("Vary", "Accept-Encoding")
	if acceptsGzip(r) {
		h.Set("Content-Encoding", "gzip")
		_, _ = w.Write(b)
		return
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		http.Error(w, "the asset cannot be read", http.StatusInternalServerError)
		return
	}
	_, _ = io.Copy(w, zr)
}

// acceptsGzip reports whether the request's Accept-Encoding takes gzip
// (names it without refusing it by q=0).
func acceptsGzip(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept-Encoding") {
		for part := range strings.SplitSeq(v, ",") {
			name, params, _ := strings.Cut(part, ";")
			if strings.EqualFold(strings.TrimSpace(name), "gzip") {
				return !zeroQuality(strings.ReplaceAll(strings.TrimSpace(params), " ", ""))
			}
		}
	}
	return false
}

// zeroQuality reports whether params is a quality of 0 ("q=0", "q=0.0").
func zeroQuality(params string) bool {
	v, ok := strings.CutPrefix(params, "q=")
	if !ok {
		return false
	}
	q, err := strconv.ParseFloat(v, 64)
	return err == nil && q == 0
}

const startScriptName = "start.js"

// startScript starts the UI on the document named by the page. Tokens
// entered under Authorize stay in the page, not in the browser's storage.
const startScript = `window.addEventListener("load", function () {
  var el = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: el.dataset.url,
    dom_id: "#swagger-ui",
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    persistAuthorization: false,
    defaultModelsExpandDepth: 0
  });
});
`

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<link rel="stylesheet" href="swagger-ui.css">
<link rel="icon" type="image/png" href="favicon-32x32.png" sizes="32x32">
</head>
<body>
<div id="swagger-ui" data-url="{{.DocURL}}"></div>
<script src="swagger-ui-bundle.js"></script>
<script src="` + startScriptName + `"></script>
</body>
</html>
`))
