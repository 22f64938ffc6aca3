package httpx

import (
	"net/http"
	"strings"

	"github.com/signalbox/signalbox/internal/apierr"
)

// NotFoundHandler answers every request with a 404 NotFoundError record.
// Register it as the catch-all ("/") of a ServeMux whose misses should be
// JSON; the mux then also answers 404 (not 405) for a known path with an
// unknown method, which is what the Unleash proxy does. HTTPMetrics counts
// these requests under route "unmatched".
func NotFoundHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		markUnmatched(w)
		apierr.Write(w, r, nil, apierr.New(apierr.NotFound, "there is nothing at %s %s", r.Method, r.URL.Path))
	})
}

// MethodNotAllowed answers with a 405 record and an Allow header listing
// allow. HTTPMetrics counts these requests under route "unmatched".
func MethodNotAllowed(allow ...string) http.Handler {
	allowed := strings.Join(allow, ", ")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		markUnmatched(w)
		if allowed != "" {
			w.Header().Set("Allow", allowed)
		}
		apierr.Write(w, r, nil, apierr.New(apierr.MethodNotAllowed, "method %s is not allowed on %s", r.Method, r.URL.Path))
	})
}

// JSONMisses makes the plain-text 404 and 405 answers of a ServeMux into
// JSON Error records, keeping the mux's Allow header. It must wrap the mux
// itself (be last in Chain): it recognises a miss by the mux leaving
// r.Pattern empty, which it can only see on the request it hands the mux.
// Answers from matched handlers, including their own 404s, pass untouched.
func JSONMisses() Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(missWriterFor(w, r), r)
		})
	}
}

// missWriterFor returns a missWriter around w, kept in w when w is the
// chain's statusWriter (the usual case: JSONMisses comes after the
// middleware that makes it), else newly allocated.
func missWriterFor(w http.ResponseWriter, r *http.Request) *missWriter {
	var m *missWriter
	if sw, ok := w.(*statusWriter); ok {
		m = &sw.miss
	} else {
		m = new(missWriter)
	}
	*m = missWriter{ResponseWriter: w, r: r}
	return m
}

// missWriter swaps a ServeMux's plain-text miss for a JSON record at the
// moment the mux writes the header, and swallows the text that follows.
type missWriter struct {
	http.ResponseWriter
	r       *http.Request
	swallow bool
}

func (m *missWriter) WriteHeader(code int) {
	if m.r.Pattern == "" && (code == http.StatusNotFound || code == http.StatusMethodNotAllowed) && !m.swallow {
		m.swallow = true
		// http.Error set a length for its text body. The
		// X-Content-Type-Options: nosniff it set holds for the record too.
		m.Header().Del("Content-Length")
		if code == http.StatusNotFound {
			NotFoundHandler().ServeHTTP(m.ResponseWriter, m.r)
		} else {
			MethodNotAllowed().ServeHTTP(m.ResponseWriter, m.r)
		}
		return
	}
	m.ResponseWriter.WriteHeader(code)
}

func (m *missWriter) Write(p []byte) (int, error) {
	if m.swallow {
		return len(p), nil
	}
	return m.ResponseWriter.Write(p)
}

// Flush keeps streaming handlers behind the mux working.
func (m *missWriter) Flush() {
	if !m.swallow {
		_ = http.NewResponseController(m.ResponseWriter).Flush()
	}
}

// Unwrap lets http.ResponseController and markUnmatched see through.
func (m *missWriter) Unwrap() http.ResponseWriter { return m.ResponseWriter }
