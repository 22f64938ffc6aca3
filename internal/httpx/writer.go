package httpx

import (
	"net/http"
)

// statusWriter records the status and body size of a response for the
// access log and metrics. It passes Flush through (streaming responses
// keep working) and exposes Unwrap so http.ResponseController reaches the
// connection's other features.
type statusWriter struct {
	http.ResponseWriter
	status    int
	bytes     int64
	wrote     bool // the final (non-1xx) header has been sent
	unmatched bool // set by NotFoundHandler and MethodNotAllowed
}

func (w *statusWriter) WriteHeader(code int) {
	// 1xx headers (103 Early Hints) are not the response's status.
	if !w.wrote && (code >= 200 || code == http.StatusSwitchingProtocols) {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if !w.wrote {
		w.status, w.wrote = http.StatusOK, true
	}
	n, err := w.ResponseWriter.Write(p)
	w.bytes += int64(n)
	return n, err
}

// Flush sends buffered data; a writer that cannot flush makes it a no-op,
// as it would be without this wrapper's type assertion succeeding.
func (w *statusWriter) Flush() {
	if !w.wrote {
		w.status, w.wrote = http.StatusOK, true
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController find the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// code is the status to report: what was sent, or 200 when the handler
// returned without writing anything (net/http then sends 200).
func (w *statusWriter) code() int {
	if !w.wrote {
		return http.StatusOK
	}
	return w.status
}

// markUnmatched tells an enclosing statusWriter, through any wrappers that
// implement Unwrap, that no route matched the request.
func markUnmatched(w http.ResponseWriter) {
	for w != nil {
		if sw, ok := w.(*statusWriter); ok {
			sw.unmatched = true
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			return
		}
		w = u.Unwrap()
	}
}
