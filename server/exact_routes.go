package server

import (
	"net/http"
	"strings"
)

// exactRoutes finds the handler of a GET request for a path registered
// without wildcards in a map, before the ServeMux. SDKs poll a few such
// paths (/api/client/features, /api/frontend) many times a second, and
// matching them against the hundreds of admin patterns took 0.5 µs of a
// 23 µs poll. A pattern of method and exact path is the most specific any
// GET of that path can match, so the mux would choose the same handler;
// everything else (other methods, HEAD included, paths the mux would
// clean or redirect, escaped paths) goes to the mux.
type exactRoutes struct {
	get map[string]exactRoute // by path
	mux *http.ServeMux
}

type exactRoute struct {
	pattern string // as registered: the request's Pattern, as the mux sets it
	h       http.Handler
}

func (e *exactRoutes) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && r.URL.RawPath == "" {
		if rt, ok := e.get[r.URL.Path]; ok {
			r.Pattern = rt.pattern
			rt.h.ServeHTTP(w, r)
			return
		}
	}
	e.mux.ServeHTTP(w, r)
}

// Handle registers h for pattern on the ServeMux and, for a GET of an
// exact path, in the map of exactRoutes too.
func (m mux) Handle(pattern string, h http.Handler) {
	m.ServeMux.Handle(pattern, h)
	if path, ok := strings.CutPrefix(pattern, http.MethodGet+" "); ok && exactPath(path) {
		m.exact[path] = exactRoute{pattern: pattern, h: h}
	}
}

// exactPath reports whether a pattern's path matches one path only: no
// wildcards, no trailing slash (a subtree, "/" included), no host before
// it.
func exactPath(path string) bool {
	return strings.HasPrefix(path, "/") && !strings.ContainsAny(path, "{}") && !strings.HasSuffix(path, "/")
}
