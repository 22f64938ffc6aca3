package proxy

import (
	"net/http"
	"strings"
)

// Route patterns, also used as the route label of the HTTP metrics.
const (
	routeProxy      = "/proxy"
	routeAll        = "/proxy/all"
	routeHealth     = "/proxy/health"
	routeMetrics    = "/proxy/client/metrics"
	routeAllMetrics = "/proxy/all/client/metrics" // listed by the reference's OpenAPI document
	routeRegister   = "/proxy/client/register"
	routeFeatures   = "/proxy/client/features"
	routePrometheus = "/proxy/internal-backstage/prometheus"
	routeOASJSON    = "/docs/openapi.json"
	routeOASUI      = "/docs/openapi"
)

// route dispatches a request. A hand-written switch instead of a ServeMux
// gives Express's routing rules (case-insensitive paths, an optional
// trailing slash, 404 rather than 405 for a known path with another
// method) and costs nothing on the hot path.
func (p *Proxy) route(w http.ResponseWriter, r *http.Request) {
	st := p.state.Load()
	if st == nil {
		writeText(w, http.StatusServiceUnavailable, p.unavailableText())
		return
	}
	path, ok := p.relativePath(r.URL.Path)
	if !ok {
		notFound(w)
		return
	}
	if p.oas != nil && (path == routeOASUI || strings.HasPrefix(path, routeOASUI+"/")) {
		p.serveDocs(w, r, path)
		return
	}
	if len(path) > 1 && path[len(path)-1] == '/' {
		path = path[:len(path)-1]
	}
	get := r.Method == http.MethodGet || r.Method == http.MethodHead
	post := r.Method == http.MethodPost
	switch {
	case path == routeProxy && get:
		r.Pattern = "GET " + routeProxy
		p.getToggles(w, r, st, false)
	case path == routeProxy && post:
		r.Pattern = "POST " + routeProxy
		p.postToggles(w, r, st, false)
	case path == routeAll && (get || post):
		r.Pattern = "GET " + routeAll
		if post {
			r.Pattern = "POST " + routeAll
		}
		// A wrong key hears 401 whether or not the endpoint is on, as
		// from the reference: the 501 is only for callers with a key.
		if !p.cfg.EnableAllEndpoint {
			if p.authorized(r) {
				allDisabled(w)
			} else {
				unauthorized(w)
			}
		} else if get {
			p.getToggles(w, r, st, true)
		} else {
			p.postToggles(w, r, st, true)
		}
	case path == routeHealth && get:
		r.Pattern = "GET " + routeHealth
		health(w, r)
	case (path == routeMetrics || path == routeAllMetrics) && post:
		r.Pattern = "POST " + routeMetrics
		p.clientMetrics(w, r)
	case path == routeRegister && post:
		r.Pattern = "POST " + routeRegister
		p.clientRegister(w, r)
	case path == routeFeatures && get:
		r.Pattern = "GET " + routeFeatures
		p.clientFeatures(w, r, st)
	case path == routeOASJSON && get && p.oas != nil:
		p.serveOASJSON(w, r)
	case path == routePrometheus && get:
		r.Pattern = "GET " + routePrometheus
		p.prom.handler.ServeHTTP(w, r)
	default:
		notFound(w)
	}
}

// relativePath strips the base path. Paths are matched in lower case, as
// Express matches routes case-insensitively by default.
func (p *Proxy) relativePath(path string) (string, bool) {
	if hasUpper(path) {
		path = strings.ToLower(path)
	}
	rest, ok := strings.CutPrefix(path, p.routeBase)
	if !ok || (rest != "" && rest[0] != '/') {
		return "", false
	}
	return rest, true
}

func hasUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return true
		}
	}
	return false
}
