package answer

import (
	"net/http"
	"slices"
	"strings"

	"github.com/rs/cors"
)

// CORS holds the options of the frontend API's CORS answers, named as
// the reference proxy's cors.* settings. Zero values mean the defaults.
type CORS struct {
	// Origin lists the allowed origins (cors.origin, CORS_ORIGIN, default *).
	Origin []string
	// Methods lists the allowed methods (cors.methods, CORS_METHODS,
	// default GET, POST).
	Methods []string
	// AllowedHeaders lists the allowed request headers
	// (cors.allowedHeaders, CORS_ALLOWED_HEADERS); empty echoes what the
	// preflight asks for, as the reference does.
	AllowedHeaders []string
	// ExposedHeaders lists the headers scripts may read
	// (cors.exposedHeaders, CORS_EXPOSED_HEADERS, default ETag).
	ExposedHeaders []string
	// Credentials allows credentials (cors.credentials, CORS_CREDENTIALS).
	Credentials bool
	// MaxAge is how many seconds a preflight may be cached (cors.maxAge,
	// CORS_MAX_AGE, default 172800); negative sends 0.
	MaxAge int
	// OptionsSuccessStatus answers a passing preflight
	// (cors.optionsSuccessStatus, CORS_OPTIONS_SUCCESS_STATUS, default 204).
	OptionsSuccessStatus int
	// PreflightContinue hands preflights on to the routes
	// (cors.preflightContinue, CORS_PREFLIGHT_CONTINUE); they have none, so
	// such a preflight gets 404 after its CORS headers, as in Express.
	PreflightContinue bool
}

// DefaultCORSMaxAge is how many seconds a preflight may be cached when
// CORS.MaxAge is zero (two days, as the reference proxy has it).
const DefaultCORSMaxAge = 172800

// corsPolicy applies the cors.* options with rs/cors, adjusted where
// Express's cors middleware, which the reference uses, answers differently:
//
//   - a preflight lists every allowed method (rs/cors echoes only the one
//     asked for);
//   - with no allowed headers configured, a preflight allows whatever it is
//     asked for (rs/cors would allow only a few simple headers, and browser
//     SDKs send Authorization);
//   - with the wildcard origin, Access-Control-Allow-Origin and the exposed
//     headers are sent even to requests without an Origin header.
type corsPolicy struct {
	c       *cors.Cors
	methods string
	anyOrig bool
	exposed []string
}

func newCORS(o CORS) *corsPolicy {
	origins := o.Origin
	if len(origins) == 0 {
		origins = []string{"*"}
	}
	methods := slices.Clone(o.Methods) // upper-cased below; the caller's stays as it is
	if len(methods) == 0 {
		methods = []string{http.MethodGet, http.MethodPost}
	}
	for i, m := range methods {
		methods[i] = strings.ToUpper(strings.TrimSpace(m))
	}
	headers := o.AllowedHeaders
	if len(headers) == 0 {
		headers = []string{"*"}
	}
	exposed := o.ExposedHeaders
	if len(exposed) == 0 {
		exposed = []string{"ETag"}
	}
	maxAge := o.MaxAge
	if maxAge == 0 {
		maxAge = DefaultCORSMaxAge
	}
	status := o.OptionsSuccessStatus
	if status == 0 {
		status = http.StatusNoContent
	}
	anyOrig := false
	for _, orig := range origins {
		if orig == "*" {
			anyOrig = true
		}
	}
	return &corsPolicy{
		c: cors.New(cors.Options{
			AllowedOrigins:       origins,
			AllowedMethods:       methods,
			AllowedHeaders:       headers,
			ExposedHeaders:       exposed,
			AllowCredentials:     o.Credentials,
			MaxAge:               maxAge,
			OptionsSuccessStatus: status,
			OptionsPassthrough:   o.PreflightContinue,
		}),
		methods: strings.Join(methods, ", "),
		anyOrig: anyOrig,
		exposed: []string{strings.Join(exposed, ", ")},
	}
}

// CORSMiddleware is the proxy's CORS policy for o (zero fields take the
// proxy's defaults) as middleware. The server's frontend API uses it, so
// that browser SDKs get the same CORS answers from the server and the
// proxy.
func CORSMiddleware(o CORS) func(http.Handler) http.Handler { return newCORS(o).handler }

var headerAnyOrigin = []string{"*"}

// handler wraps next in the policy. It is the outermost middleware, so
// every answer, 401 and 503 included, carries the CORS headers.
func (p *corsPolicy) handler(next http.Handler) http.Handler {
	// rs/cors writes exposed header names in Go's canonical case ("Etag");
	// put back the names as configured ("ETag"), as Express sends them.
	inner := p.c.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		if _, ok := h["Access-Control-Expose-Headers"]; ok {
			h["Access-Control-Expose-Headers"] = p.exposed
		}
		next.ServeHTTP(w, r)
	}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			inner.ServeHTTP(&preflightWriter{ResponseWriter: w, methods: p.methods, exposed: p.exposed}, r)
			return
		}
		if p.anyOrig && len(r.Header["Origin"]) == 0 {
			h := w.Header()
			h["Access-Control-Allow-Origin"] = headerAnyOrigin
			h["Access-Control-Expose-Headers"] = p.exposed
		}
		inner.ServeHTTP(w, r)
	})
}

// preflightWriter replaces the single echoed method of a passing preflight
// with the full configured list when the status is written, and adds the
// exposed headers, which Express's cors sends on preflights too (rs/cors
// sends them only on actual requests).
type preflightWriter struct {
	http.ResponseWriter
	methods string
	exposed []string
	done    bool
}

func (w *preflightWriter) WriteHeader(code int) {
	w.fix()
	w.ResponseWriter.WriteHeader(code)
}

func (w *preflightWriter) Write(b []byte) (int, error) {
	w.fix()
	return w.ResponseWriter.Write(b)
}

func (w *preflightWriter) fix() {
	if w.done {
		return
	}
	w.done = true
	h := w.Header()
	if len(h["Access-Control-Allow-Methods"]) > 0 {
		h["Access-Control-Allow-Methods"] = []string{w.methods}
	}
	if len(h["Access-Control-Allow-Origin"]) > 0 {
		h["Access-Control-Expose-Headers"] = w.exposed
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *preflightWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
