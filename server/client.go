package server

import (
	"context"
	"net/http"
	"strings"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// sdk registers a client or frontend API route: the token must be of
// kind, and errors are written as Error records.
func (m mux) sdk(pattern, kind string, h func(w http.ResponseWriter, r *http.Request, tok *store.APIToken) error) {
	m.record(pattern, kind, "")
	s := m.s
	var handler http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, err := s.authenticateSDK(r, kind)
		if err == nil {
			err = h(w, r, tok)
		}
		if err != nil {
			s.writeError(w, r, err)
		}
	})
	if kind == store.TokenFrontend {
		// Browser SDKs call the frontend API from other origins; every
		// answer, errors included, carries the CORS headers.
		handler = s.withFrontendCORS(handler)
	}
	m.Handle(pattern, handler)
}

// clientQueryFor builds the payload query of a request: the token's scope
// narrowed by the project, namePrefix and tag parameters.
func clientQueryFor(r *http.Request, tok *store.APIToken) (clientQuery, error) {
	q := clientQuery{Environment: tokenEnvironment(tok), Projects: tok.Projects}
	if r.URL.RawQuery == "" {
		return q, nil // what SDKs send unless told to filter
	}
	query := r.URL.Query()
	q.NamePrefix = query.Get("namePrefix")
	all := len(tok.Projects) == 0 || (len(tok.Projects) == 1 && tok.Projects[0] == "*")
	if asked := query["project"]; len(asked) > 0 {
		var keep []string
		for _, p := range asked {
			if all || contains(tok.Projects, p) {
				keep = append(keep, p)
			}
		}
		if keep == nil {
			keep = []string{"\x00none"} // asked only for projects outside the token: nothing
		}
		q.Projects = keep
	}
	for _, t := range query["tag"] {
		typ, value, ok := strings.Cut(t, ":")
		if !ok || typ == "" || value == "" {
			return q, apierr.Invalid("tag", "tag filters have the form type:value, got %q", t)
		}
		q.Tags = append(q.Tags, store.Tag{Type: typ, Value: value})
	}
	return q, nil
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// etagMatches implements If-None-Match for our strong ETags: a weak form of
// the same value matches too, as do lists and "*".
func etagMatches(header, etag string) bool {
	if header == "" {
		return false
	}
	for candidate := range strings.SplitSeq(header, ",") {
		candidate = strings.TrimPrefix(strings.TrimSpace(candidate), "W/")
		if candidate == "*" || candidate == etag {
			return true
		}
	}
	return false
}

func (s *Server) handleClientFeatures(w http.ResponseWriter, r *http.Request, tok *store.APIToken) error {
	q, err := clientQueryFor(r, tok)
	if err != nil {
		return err
	}
	p, err := s.payload(r.Context(), q)
	if err != nil {
		return err
	}
	// The header values are shared slices made once (net/http only reads
	// them), as SDKs poll this answer more than any other.
	h := w.Header()
	h["Etag"] = p.etagHeader
	h["Cache-Control"] = noCacheHeader
	// An SDK reads fetch-mode only on a 200: one that should go back to
	// its stream gets a 200 once even when its ETag matches.
	mode, nudge := s.pollFetchMode(r)
	if mode != nil {
		h["Fetch-Mode"] = mode
	}
	if !nudge && etagMatches(r.Header.Get("If-None-Match"), p.etag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	h["Content-Type"] = jsonUTF8Header
	h["Vary"] = varyEncodingHeader
	body, length := p.body, p.bodyLength
	if acceptsGzip(r) {
		h["Content-Encoding"] = gzipHeader
		body, length = p.gzipped, p.gzippedLength
	}
	h["Content-Length"] = length
	_, err = w.Write(body)
	return err
}

var (
	noCacheHeader      = []string{"no-cache"}
	jsonUTF8Header     = []string{"application/json; charset=utf-8"}
	varyEncodingHeader = []string{"Accept-Encoding"}
	gzipHeader         = []string{"gzip"}
)

// acceptsGzip reports whether the request's Accept-Encoding allows gzip
// (and does not refuse it with q=0).
func acceptsGzip(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept-Encoding") {
		for part := range strings.SplitSeq(v, ",") {
			name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			if strings.EqualFold(strings.TrimSpace(name), "gzip") || strings.TrimSpace(name) == "*" {
				q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
				return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
			}
		}
	}
	return false
}

func (s *Server) handleClientFeature(w http.ResponseWriter, r *http.Request, tok *store.APIToken) error {
	q, err := clientQueryFor(r, tok)
	if err != nil {
		return err
	}
	p, err := s.payload(r.Context(), q)
	if err != nil {
		return err
	}
	name := r.PathValue("featureName")
	for _, f := range p.features.Features {
		if f.Name == name {
			return writeJSON(w, http.StatusOK, f)
		}
	}
	return apierr.New(apierr.NotFound, "no feature named %s is visible to this token", name)
}

// reportEnvironment is the environment an SDK's registration or metrics
// count for: the token's, whatever the body says, so that a development
// token cannot write production metrics. Only a token of every environment
// ("*") may name one in the body, as Unleash lets it; when that
// environment does not exist (SDKs default to "default", which is not ours)
// the report counts for the environment the token reads.
func (s *Server) reportEnvironment(ctx context.Context, tok *store.APIToken, asked string) (string, error) {
	if tok.Environment != "*" || asked == "" {
		return tokenEnvironment(tok), nil
	}
	ok, err := s.environmentExists(ctx, asked)
	if err != nil || !ok {
		return tokenEnvironment(tok), err
	}
	return asked, nil
}

func (s *Server) handleClientRegister(w http.ResponseWriter, r *http.Request, tok *store.APIToken) error {
	var reg clientapi.Registration
	if err := decode(w, r, &reg); err != nil {
		return err
	}
	if err := s.register(r, tok, reg); err != nil {
		return err
	}
	w.WriteHeader(http.StatusAccepted)
	return nil
}

// register keeps an SDK's registration within the bounds of what the
// server keeps.
func (s *Server) register(r *http.Request, tok *store.APIToken, reg clientapi.Registration) error {
	if err := validateRegistration(&reg); err != nil {
		return err
	}
	if reg.InstanceID == "" {
		reg.InstanceID = "default"
	}
	env, err := s.reportEnvironment(r.Context(), tok, reg.Environment)
	if err != nil {
		return err
	}
	now := s.now()
	ok, newApp := s.metrics.admitRegistration(reg.AppName, reg.InstanceID, now)
	if !ok {
		return nil // past the bounds: accepted but not kept (and counted as dropped)
	}
	in := store.ClientInstance{
		AppName: reg.AppName, InstanceID: reg.InstanceID, Environment: env,
		SDKVersion: reg.SDKVersion, ClientIP: s.clientIP(r), IntervalMillis: reg.Interval, LastSeen: now,
	}
	if !reg.Started.IsZero() {
		started := reg.Started
		in.Started = &started
	}
	// Written in bulk by the next registration flush (FlushRegistrations),
	// at once for an application new to this server.
	s.metrics.bufferRegistration(store.ClientApplication{AppName: reg.AppName, Strategies: reg.Strategies, SeenAt: &now}, in, newApp)
	return nil
}

// validateRegistration checks the names a registration carries against
// the bounds of what the server keeps.
func validateRegistration(reg *clientapi.Registration) error {
	if strings.TrimSpace(reg.AppName) == "" {
		return &apierr.Error{Kind: apierr.BadData, Message: "appName is required", Details: []apierr.Detail{{Path: "appName", Message: "appName is required"}}}
	}
	for _, f := range []struct{ path, value string }{
		{"appName", reg.AppName}, {"instanceId", reg.InstanceID}, {"sdkVersion", reg.SDKVersion}, {"environment", reg.Environment},
	} {
		if err := checkLabel(f.path, f.value); err != nil {
			return err
		}
	}
	if len(reg.Strategies) > maxRegisteredStrategies {
		return apierr.Invalid("strategies", "at most %d strategies may be registered", maxRegisteredStrategies)
	}
	for _, st := range reg.Strategies {
		if err := checkLabel("strategies", st); err != nil {
			return err
		}
	}
	return nil
}

// checkLabel checks a name an SDK reports: at most maxLabelLen bytes and no
// NUL character, which PostgreSQL refuses in text (a buffered row with one
// would make every later metrics flush fail).
func checkLabel(path, value string) error {
	if len(value) > maxLabelLen {
		return apierr.Invalid(path, "%s must be at most %d bytes", path, maxLabelLen)
	}
	if strings.IndexByte(value, 0) >= 0 {
		return apierr.Invalid(path, "%s must not contain NUL characters", path)
	}
	return nil
}

// handleClientMetrics buffers a metrics report. Only flags the token can
// see (its projects, in the report's environment) are counted; the flag
// list comes from the cached payload of the token's scope, so a report
// reads the database at most once per revision.
func (s *Server) handleClientMetrics(w http.ResponseWriter, r *http.Request, tok *store.APIToken) error {
	var m clientapi.Metrics
	if err := decode(w, r, &m); err != nil {
		return err
	}
	if err := s.acceptMetrics(r, tok, m); err != nil {
		return err
	}
	w.WriteHeader(http.StatusAccepted)
	return nil
}

// acceptMetrics counts an SDK's report of the flags in the token's scope.
func (s *Server) acceptMetrics(r *http.Request, tok *store.APIToken, m clientapi.Metrics) error {
	if err := validateMetrics(&m); err != nil {
		return err
	}
	env, err := s.reportEnvironment(r.Context(), tok, m.Environment)
	if err != nil {
		return err
	}
	p, err := s.payload(r.Context(), clientQuery{Environment: env, Projects: tok.Projects})
	if err != nil {
		return err
	}
	s.recordMetrics(m, env, p.flagNames())
	return nil
}

// validateMetrics checks what the aggregation relies on.
func validateMetrics(m *clientapi.Metrics) error {
	if strings.TrimSpace(m.AppName) == "" {
		return apierr.Invalid("appName", "appName is required")
	}
	for _, f := range []struct{ path, value string }{
		{"appName", m.AppName}, {"instanceId", m.InstanceID}, {"environment", m.Environment},
	} {
		if err := checkLabel(f.path, f.value); err != nil {
			return err
		}
	}
	if m.Bucket.Start.IsZero() || m.Bucket.Stop.IsZero() {
		return apierr.Invalid("bucket", "bucket.start and bucket.stop are required")
	}
	for name, c := range m.Bucket.Toggles {
		if name == "" || c.Yes < 0 || c.No < 0 {
			return apierr.Invalid("bucket.toggles", "toggle counts must be named and not negative")
		}
		if c.Yes > maxReportedCount || c.No > maxReportedCount {
			return apierr.Invalid("bucket.toggles", "toggle counts must be at most %d", int64(maxReportedCount))
		}
		for v, n := range c.Variants {
			if n < 0 || n > maxReportedCount {
				return apierr.Invalid("bucket.toggles", "variant counts must be 0 to %d", int64(maxReportedCount))
			}
			if strings.IndexByte(v, 0) >= 0 {
				return apierr.Invalid("bucket.toggles", "variant names must not contain NUL characters")
			}
		}
	}
	return nil
}
