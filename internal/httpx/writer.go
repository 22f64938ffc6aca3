package httpx

import (
	"net/http"
)

// statusWriter records the status and body size of a response for
// recovery, the access log and metrics. It passes Flush through (streaming
// responses keep working) and exposes Unwrap so http.ResponseController
// reaches the connection's other features.
//
// One statusWriter serves a whole chain: the first middleware that needs
// one makes it (see statusWriterFor), and the later ones, handed it as
// their writer, record through it too instead of wrapping it again.
type statusWriter struct {
	http.ResponseWriter
	status    int
	bytes     int64
	wrote     bool // the final (non-1xx) header has been sent
	unmatched bool // set by NotFoundHandler and MethodNotAllowed

	// miss is room for the writer of a JSONMisses handed this writer, so
	// that it needs no allocation of its own.
	miss missWriter

	// conn is the request's connection when it can send a complete answer
	// in one write (see ServeCoalescing).
	conn *coalescingConn
}

// statusWriterFor returns w itself when it is a statusWriter, else a new
// statusWriter around w. Sharing one changes nothing a middleware reads:
// every write made below it passes through the shared writer, so status,
// byte count and the unmatched mark are what a writer of its own would
// record. (The shared one also sees what a middleware in between may write
// before passing the request on, which is part of the same response.)
func statusWriterFor(w http.ResponseWriter, r *http.Request) *statusWriter {
	if sw, ok := w.(*statusWriter); ok {
		return sw
	}
	return &statusWriter{ResponseWriter: w, conn: coalescingConnOf(r.Context())}
}

func (w *statusWriter) WriteHeader(code int) {
	// 1xx headers (103 Early Hints) are not the response's status.
	if !w.wrote && (code >= 200 || code == http.StatusSwitchingProtocols) {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.bytes == 0 && w.conn != nil && len(p) >= coalesceMin && wholeBody(w.ResponseWriter.Header(), p) {
		w.conn.arm()
	}
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
