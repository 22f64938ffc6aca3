package proxy

import (
	"crypto/subtle"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/signalbox/signalbox/answer"
	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/engine"
	"github.com/signalbox/signalbox/internal/apierr"
)

// Texts of the plain answers. They are our own words; statuses and content
// types are the reference's.
const (
	notReadyText = "The proxy has not loaded a flag configuration from its upstream yet and cannot answer requests. Try again shortly.\n"
	allOffText   = "The /proxy/all endpoint is turned off. Start the proxy with ENABLE_ALL_ENDPOINT=true (option enableAllEndpoint) to turn it on."
)

// Header values shared by every answer; net/http only reads them.
var (
	hdrJSON    = []string{"application/json; charset=utf-8"}
	hdrText    = []string{"text/plain; charset=utf-8"}
	hdrHTML    = []string{"text/html; charset=utf-8"}
	hdrNoSniff = []string{"nosniff"}
)

// getToggles answers GET /proxy (enabled flags) and GET /proxy/all (every
// flag). The context comes from the query string.
func (p *Proxy) getToggles(w http.ResponseWriter, r *http.Request, st *state, all bool) {
	if !p.authorized(r) {
		unauthorized(w)
		return
	}
	ctx := answer.ContextFromQuery(r.URL.RawQuery)
	madeUp := p.finishContext(&ctx, r, true)
	p.evaluateAndWrite(w, r, st, &ctx, nil, all, !madeUp)
}

// postToggles answers POST /proxy and POST /proxy/all: with a toggles list
// exactly those flags (counted in the metrics), otherwise as the GET does.
func (p *Proxy) postToggles(w http.ResponseWriter, r *http.Request, st *state, all bool) {
	if !p.authorized(r) {
		unauthorized(w)
		return
	}
	var body answer.Lookup
	if _, rerr := p.decodeBody(w, r, &body); rerr != nil {
		writeRequestError(w, rerr)
		return
	}
	ctx, toggles, ferr := body.Parse()
	if ferr != nil {
		writeRequestError(w, fieldError(ferr))
		return
	}
	madeUp := p.finishContext(&ctx, r, len(toggles) == 0)
	p.evaluateAndWrite(w, r, st, &ctx, toggles, all, !madeUp)
}

// evaluateAndWrite evaluates the named flags (or every flag, or every
// enabled flag) and writes the answer; evaluations of a toggles list are
// counted in the metrics.
func (p *Proxy) evaluateAndWrite(w http.ResponseWriter, r *http.Request, st *state, ctx *engine.Context, names []string, all, cacheable bool) {
	st.answers.WriteCounting(w, r, ctx, names, all, cacheable, p.usage.countResults)
}

// writeJSON writes a 200 JSON answer with a weak ETag (see answer.WriteJSON).
func writeJSON(w http.ResponseWriter, r *http.Request, body []byte, cacheable bool) {
	answer.WriteJSON(w, r, body, cacheable)
}

// authorized reports whether the request carries a client key in the
// configured header. The value must equal a key exactly: "Bearer <key>" is
// refused, as by the reference.
func (p *Proxy) authorized(r *http.Request) bool {
	v := r.Header[p.keyHeader]
	if len(v) == 0 || v[0] == "" {
		return false
	}
	_, ok := p.keys[v[0]]
	return ok
}

// serverSide reports whether the request carries an
// expServerSideSdkConfig token. Compared in constant time: these tokens
// unlock the raw configuration.
func (p *Proxy) serverSide(r *http.Request) bool {
	v := r.Header[p.keyHeader]
	if len(v) == 0 || v[0] == "" {
		return false
	}
	found := 0
	for t := range p.serverTokens {
		found |= subtle.ConstantTimeCompare([]byte(t), []byte(v[0]))
	}
	return found == 1
}

// clientMetrics merges what a browser SDK posts into the proxy's own
// metrics. As in the reference, the body is validated before the key.
func (p *Proxy) clientMetrics(w http.ResponseWriter, r *http.Request) {
	var body metricsRequest
	var b clientapi.MetricsBucket
	ok := p.acceptSDKPost(w, r, &body, "the body must be a metrics object with appName, instanceId and bucket",
		func() (rerr *apierr.Error) { b, rerr = body.validate(); return rerr })
	if !ok {
		return
	}
	known := func(string) bool { return false }
	if st := p.state.Load(); st != nil {
		known = st.snap.Has
	}
	p.countReport(*body.AppName, "", b, known)
	okText(w)
}

// countReport counts an SDK's report: per application when the proxy
// serves an Edge scope (env "" is the scope's), else, as the reference
// proxy does, under the proxy's own name.
func (p *Proxy) countReport(app, env string, b clientapi.MetricsBucket, known func(string) bool) {
	if p.apps != nil {
		if env == "" {
			env = p.apps.env
		}
		if p.apps.addBucket(app, env, b, known) {
			return
		}
		if p.ownName != nil {
			p.ownName.Inc()
		}
	}
	p.usage.addBucket(b, known)
}

// acceptSDKPost decodes and validates what a browser SDK posts, then checks
// its key (the body first, as the reference does). It writes the error
// answer and reports false when the request goes no further.
func (p *Proxy) acceptSDKPost(w http.ResponseWriter, r *http.Request, body any, emptyMessage string, validate func() *apierr.Error) bool {
	empty, rerr := p.decodeBody(w, r, body)
	if rerr == nil && empty {
		rerr = invalid(".body", "required", emptyMessage)
	}
	if rerr == nil {
		rerr = validate()
	}
	if rerr != nil {
		writeRequestError(w, rerr)
		return false
	}
	if !p.authorized(r) && !p.serverSide(r) {
		unauthorized(w)
		return false
	}
	return true
}

// clientRegister accepts SDK registrations and forwards them upstream
// with the next metrics upload.
func (p *Proxy) clientRegister(w http.ResponseWriter, r *http.Request) {
	var body registerRequest
	var reg clientapi.Registration
	ok := p.acceptSDKPost(w, r, &body, "the body must be a registration with appName, interval, started and strategies",
		func() (rerr *apierr.Error) { reg, rerr = body.validate(); return rerr })
	if !ok {
		return
	}
	if p.apps != nil {
		p.apps.register(reg)
	} else {
		p.regs.add(reg)
	}
	okText(w)
}

// clientFeatures serves the raw configuration to server-side tokens only.
func (p *Proxy) clientFeatures(w http.ResponseWriter, r *http.Request, st *state) {
	if !p.serverSide(r) || st.features == nil {
		unauthorized(w)
		return
	}
	writeJSON(w, r, st.features, true)
}

// health answers "ok" as Express's res.send("ok") does: text/html, a weak
// ETag, no client key needed.
func health(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h["Content-Type"] = hdrHTML
	etag := answer.ETag([]byte("ok"))
	h["Etag"] = []string{etag}
	if answer.ETagMatches(r.Header["If-None-Match"], etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h["Content-Length"] = []string{"2"}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte("ok"))
}

func unauthorized(w http.ResponseWriter) { writeText(w, http.StatusUnauthorized, "Unauthorized") }

func notFound(w http.ResponseWriter) { writeText(w, http.StatusNotFound, "Not Found") }

func okText(w http.ResponseWriter) { writeText(w, http.StatusOK, "OK") }

func writeText(w http.ResponseWriter, status int, text string) {
	h := w.Header()
	h["Content-Type"] = hdrText
	h["X-Content-Type-Options"] = hdrNoSniff
	h["Content-Length"] = []string{strconv.Itoa(len(text))}
	w.WriteHeader(status)
	_, _ = w.Write([]byte(text))
}

// allDisabled is the 501 of /proxy/all when it is turned off, with the
// reference's {"error": ...} body.
func allDisabled(w http.ResponseWriter) {
	writeErrorBody(w, http.StatusNotImplemented, errorBody{Error: allOffText})
}

// errorBody is the reference proxy's error shape.
type errorBody struct {
	Error      string           `json:"error"`
	Validation []validationItem `json:"validation,omitempty"`
}

// validationItem names one problem of a request body. dataPath follows
// the reference's ".body.field" spelling.
type validationItem struct {
	Keyword  string `json:"keyword"`
	DataPath string `json:"dataPath"`
	Message  string `json:"message"`
}

// writeRequestError writes a refused request in the reference's shape.
func writeRequestError(w http.ResponseWriter, e *apierr.Error) {
	body := errorBody{Error: e.Message}
	if e.Kind == apierr.Validation {
		for _, d := range e.Details {
			body.Validation = append(body.Validation, validationItem{Keyword: d.Keyword, DataPath: d.Path, Message: d.Message})
		}
	}
	writeErrorBody(w, e.Kind.Status(), body)
}

func writeErrorBody(w http.ResponseWriter, status int, body errorBody) {
	b, _ := json.Marshal(body)
	h := w.Header()
	h["Content-Type"] = hdrJSON
	h["Content-Length"] = []string{strconv.Itoa(len(b))}
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// oneToggle answers the frontend API's single-flag path: the flag's toggle
// when it is on for the context from the query, 404 otherwise (off or
// unknown), as Unleash Edge does.
func (p *Proxy) oneToggle(w http.ResponseWriter, r *http.Request, st *state, name string) {
	ctx := answer.ContextFromQuery(r.URL.RawQuery)
	p.finishContext(&ctx, r, true)
	res := st.snap.Evaluate(name, &ctx)
	p.usage.countResults([]engine.Result{res})
	if !res.Found || !res.Enabled {
		notFound(w)
		return
	}
	st.answers.WriteToggle(w, r, &res)
}

// oneFeature answers the client API's single-flag path from the raw
// configuration: the flag as in the full answer, 404 when unknown.
func (p *Proxy) oneFeature(w http.ResponseWriter, r *http.Request, st *state, name string) {
	if st.features == nil {
		unauthorized(w)
		return
	}
	var all struct {
		Features []json.RawMessage `json:"features"`
	}
	if err := json.Unmarshal(st.features, &all); err == nil {
		for _, raw := range all.Features {
			var head struct {
				Name string `json:"name"`
			}
			if json.Unmarshal(raw, &head) == nil && head.Name == name {
				writeJSON(w, r, raw, false)
				return
			}
		}
	}
	notFound(w)
}
