package proxy

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"
)

// edgeRoute is where an SDK path of the node goes: the token type it needs
// and the path of the scope proxy that answers it.
type edgeRoute struct {
	tokenType string
	target    string // the scope proxy's path
	post      bool   // POST (else GET)
}

// edgeRoutes maps the node's SDK paths (lower case, no trailing slash) to
// the scope proxy's. The frontend API's /api/proxy names are the older
// spelling Unleash still serves.
var edgeRoutes = func() map[string][]edgeRoute {
	m := map[string][]edgeRoute{
		"/api/client/features": {{tokenClient, routeFeatures, false}},
		"/api/client/register": {{tokenClient, routeRegister, true}},
		"/api/client/metrics":  {{tokenClient, routeMetrics, true}},
	}
	for _, base := range []string{"/api/frontend", "/api/proxy"} {
		m[base] = []edgeRoute{{tokenFrontend, routeProxy, false}, {tokenFrontend, routeProxy, true}}
		m[base+"/all"] = []edgeRoute{{tokenFrontend, routeAll, false}, {tokenFrontend, routeAll, true}}
		m[base+"/client/metrics"] = []edgeRoute{{tokenFrontend, routeMetrics, true}}
		m[base+"/client/register"] = []edgeRoute{{tokenFrontend, routeRegister, true}}
	}
	return m
}()

// route dispatches a request to the node.
func (e *Edge) route(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	if hasUpper(path) {
		path = strings.ToLower(path)
	}
	rest, ok := strings.CutPrefix(path, strings.ToLower(e.cfg.BasePath))
	if !ok || (rest != "" && rest[0] != '/') {
		notFound(w)
		return
	}
	if e.oas != nil && (rest == routeOASUI || strings.HasPrefix(rest, routeOASUI+"/")) {
		e.serveDocs(w, r, rest)
		return
	}
	if len(rest) > 1 && rest[len(rest)-1] == '/' {
		rest = rest[:len(rest)-1]
	}
	get := r.Method == http.MethodGet || r.Method == http.MethodHead
	post := r.Method == http.MethodPost
	switch {
	case rest == routeOASJSON && get && e.oas != nil:
		r.Pattern = "GET " + routeOASJSON
		writeJSON(w, r, e.oas.json, false)
		return
	case rest == "/internal-backstage/health" && get:
		r.Pattern = "GET /internal-backstage/health"
		writeJSONValue(w, http.StatusOK, map[string]string{"status": "OK"})
		return
	case rest == "/internal-backstage/ready" && get:
		r.Pattern = "GET /internal-backstage/ready"
		if e.Ready() {
			writeJSONValue(w, http.StatusOK, map[string]string{"status": "READY"})
		} else {
			writeJSONValue(w, http.StatusServiceUnavailable, map[string]string{"status": "NOT_READY"})
		}
		return
	case rest == "/internal-backstage/tokens" && get:
		r.Pattern = "GET /internal-backstage/tokens"
		e.serveTokenList(w)
		return
	case rest == "/internal-backstage/features" && get:
		r.Pattern = "GET /internal-backstage/features"
		e.serveScopeList(w)
		return
	case (rest == "/internal-backstage/metrics" || rest == "/internal-backstage/prometheus") && get:
		r.Pattern = "GET /internal-backstage/metrics"
		e.promHandler().ServeHTTP(w, r)
		return
	case rest == "/edge/validate" && post:
		r.Pattern = "POST /edge/validate"
		e.serveValidate(w, r)
		return
	}
	for _, one := range singleFlagPaths {
		if name, ok := strings.CutPrefix(rest, one.prefix); ok && name != "" && !strings.Contains(name, "/") {
			r.Pattern = r.Method + " " + one.prefix + "{name}"
			if !get {
				notFound(w)
				return
			}
			// The name as sent: rest is in lower case.
			orig := strings.TrimSuffix(r.URL.Path, "/")
			if len(orig) < len(name) || !strings.EqualFold(orig[len(orig)-len(name):], name) {
				notFound(w)
				return
			}
			name = orig[len(orig)-len(name):]
			if sc := e.scopeFor(w, r, one.tokenType); sc != nil {
				st := sc.p.state.Load()
				if one.tokenType == tokenClient {
					sc.p.oneFeature(w, r, st, name)
				} else {
					sc.p.oneToggle(w, r, st, name)
				}
			}
			return
		}
	}
	if (rest == "/api/client/streaming" || rest == "/api/client/delta") && get {
		r.Pattern = "GET " + rest
		if sc := e.scopeFor(w, r, tokenClient); sc != nil {
			if rest == "/api/client/streaming" {
				e.serveStream(w, r, sc)
			} else {
				e.serveDelta(w, r, sc)
			}
		}
		return
	}
	if rest == "/api/client/metrics/bulk" && post {
		r.Pattern = "POST " + rest
		if sc := e.scopeFor(w, r, tokenClient); sc != nil {
			e.serveBulk(w, r, sc)
		}
		return
	}
	routes, known := edgeRoutes[rest]
	var rt *edgeRoute
	for i := range routes {
		if routes[i].post == post || (!routes[i].post && get) {
			rt = &routes[i]
			break
		}
	}
	if !known || rt == nil {
		notFound(w)
		return
	}
	r.Pattern = r.Method + " " + rest
	sc := e.scopeFor(w, r, rt.tokenType)
	if sc == nil {
		return
	}
	if rt.target == routeAll && e.cfg.DisableAllEndpoint {
		allDisabled(w)
		return
	}
	// The scope proxy answers as if its own key had been sent to its own
	// path: the token was checked above.
	r2 := *r
	u := *r.URL
	u.Path = rt.target
	u.RawPath = ""
	r2.URL = &u
	r2.Header = r.Header.Clone()
	r2.Header[e.keyHeader] = []string{e.internalKey}
	if rt.target == routeFeatures {
		// An SDK reads fetch-mode only on a 200: one that should go back
		// to its stream gets a 200 once even when its ETag matches.
		mode, nudge := e.pollFetchMode(r.Header, time.Now())
		if mode != nil {
			w.Header()["Fetch-Mode"] = mode
		}
		if nudge {
			delete(r2.Header, "If-None-Match")
		}
	}
	sc.p.route(w, &r2)
}

// singleFlagPaths are the paths that name one flag.
var singleFlagPaths = []struct{ prefix, tokenType string }{
	{"/api/client/features/", tokenClient},
	{"/api/frontend/features/", tokenFrontend},
	{"/api/proxy/features/", tokenFrontend},
}

// scopeFor checks the request's token for a route that needs tokenType and
// returns the scope that answers it, ready; nil when it wrote a refusal.
func (e *Edge) scopeFor(w http.ResponseWriter, r *http.Request, tokenType string) *edgeScope {
	token := tokenOf(r)
	if token == "" {
		unauthorized(w)
		return nil
	}
	served, status := e.lookup(r.Context(), token, r)
	if served == nil {
		if status == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", "1")
		}
		writeText(w, status, http.StatusText(status))
		return nil
	}
	if served.info.Type != tokenType {
		writeText(w, http.StatusForbidden, "This endpoint needs a "+tokenType+" token, not a "+served.info.Type+" token.\n")
		return nil
	}
	sc := served.scope
	if sc == nil {
		// A frontend token whose environment and projects no client token
		// of this node covers: the node has no configuration to evaluate,
		// so the upstream answers (offline there is none to ask).
		if e.cfg.Offline {
			writeText(w, http.StatusForbidden, "No client token of this node covers environment "+served.info.Environment+
				" and projects "+strings.Join(served.info.Projects, ",")+".\n")
		} else {
			e.passThrough(w, r, served.info)
		}
		return nil
	}
	if !e.waitReady(r.Context(), sc) {
		writeText(w, http.StatusServiceUnavailable, notReadyText)
		return nil
	}
	return sc
}

// serveValidate answers a downstream node's /edge/validate from what this
// node knows, asking its own upstream about tokens it has not seen.
func (e *Edge) serveValidate(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Tokens []string `json:"tokens"`
	}
	if _, rerr := decodeJSONBody(w, r, &body, DefaultMaxBodyBytes); rerr != nil {
		writeRequestError(w, rerr)
		return
	}
	if len(body.Tokens) > 1000 {
		writeRequestError(w, invalid(".tokens", "maxItems", "at most 1000 tokens can be validated at once"))
		return
	}
	out := []edgeToken{}
	for _, t := range body.Tokens {
		s, status := e.lookup(r.Context(), t, r)
		if s != nil {
			out = append(out, s.info)
			continue
		}
		// A token not asked about (no budget left, or the upstream did
		// not answer) is not known to be invalid: saying so would have
		// the downstream node refuse it for a while. The whole answer
		// is refused instead, and the downstream asks again later.
		if status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable {
			if status == http.StatusTooManyRequests {
				w.Header().Set("Retry-After", "1")
			}
			writeText(w, status, http.StatusText(status))
			return
		}
	}
	writeJSONValue(w, http.StatusOK, map[string]any{"tokens": out})
}

// serveTokenList lists the tokens being served, their secrets shortened.
func (e *Edge) serveTokenList(w http.ResponseWriter) {
	type item struct {
		Token       string   `json:"token"`
		Type        string   `json:"type"`
		Projects    []string `json:"projects"`
		Environment string   `json:"environment"`
	}
	out := []item{}
	for t, s := range *e.view.Load() {
		out = append(out, item{redactToken(t), s.info.Type, s.info.Projects, s.info.Environment})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Token < out[j].Token })
	writeJSONValue(w, http.StatusOK, map[string]any{"tokens": out})
}

// serveScopeList lists each scope with its flag count and readiness.
func (e *Edge) serveScopeList(w http.ResponseWriter) {
	type item struct {
		Environment string   `json:"environment"`
		Projects    []string `json:"projects"`
		Ready       bool     `json:"ready"`
		Flags       int      `json:"flags"`
	}
	e.mu.Lock()
	out := []item{}
	for _, sc := range e.scopes {
		it := item{Environment: sc.info.Environment, Projects: sc.info.Projects}
		if st := sc.p.state.Load(); st != nil {
			it.Ready, it.Flags = true, st.snap.Len()
		}
		out = append(out, it)
	}
	e.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		return out[i].Environment+strings.Join(out[i].Projects, ",") < out[j].Environment+strings.Join(out[j].Projects, ",")
	})
	writeJSONValue(w, http.StatusOK, map[string]any{"scopes": out})
}

func writeJSONValue(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header()["Content-Type"] = hdrJSON
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// passThrough hands a request to the upstream and relays its answer. It
// serves frontend tokens that no client token of the node covers: they
// work, without local evaluation, until a covering client token is in
// TOKENS (said once in the log).
func (e *Edge) passThrough(w http.ResponseWriter, r *http.Request, t edgeToken) {
	if e.warnedPassThrough.CompareAndSwap(false, true) {
		e.log.Warn("frontend tokens without a covering client token are answered by the upstream; add a client token of their environment to TOKENS to answer them here",
			"environment", t.Environment, "token", redactToken(t.Token))
	}
	ctx, cancel := context.WithTimeout(r.Context(), e.cfg.UpstreamTimeout)
	defer cancel()
	body := io.LimitReader(r.Body, DefaultMaxBodyBytes)
	req, err := http.NewRequestWithContext(ctx, r.Method, e.cfg.UpstreamURL+r.URL.Path[len(e.cfg.BasePath):]+queryOf(r), body)
	if err != nil {
		writeText(w, http.StatusBadRequest, "Bad Request")
		return
	}
	for _, h := range []string{"Authorization", "Content-Type", "If-None-Match", "Accept", "unleash-appname", "unleash-sdk"} {
		if v := r.Header.Get(h); v != "" {
			req.Header.Set(h, v)
		}
	}
	res, err := e.hc.Do(req)
	if err != nil {
		writeText(w, http.StatusBadGateway, "The upstream did not answer.\n")
		return
	}
	defer res.Body.Close()
	for _, h := range []string{"Content-Type", "ETag", "Cache-Control", "Vary"} {
		if v := res.Header.Get(h); v != "" {
			w.Header().Set(h, v)
		}
	}
	w.WriteHeader(res.StatusCode)
	_, _ = io.Copy(w, io.LimitReader(res.Body, 64<<20))
}

func queryOf(r *http.Request) string {
	if r.URL.RawQuery == "" {
		return ""
	}
	return "?" + r.URL.RawQuery
}

// serveDocs serves the Swagger UI as the proxy does.
func (e *Edge) serveDocs(w http.ResponseWriter, r *http.Request, path string) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		notFound(w)
		return
	}
	r.Pattern = "GET " + routeOASUI
	if path == routeOASUI {
		http.Redirect(w, r, e.cfg.BasePath+routeOASUI+"/", http.StatusMovedPermanently)
		return
	}
	e.oas.ui.ServeHTTP(w, r)
}
