package httpx

import (
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"

	"github.com/signalbox/signalbox/internal/apierr"
)

// Recover turns a panic in a later handler into a 500 JSON Error record and
// one error log line (with the panic value, the stack and the record's id),
// so one bad request cannot take the process down. A nil log means
// slog.Default(). Put it first in the chain so it covers every middleware.
//
// If the response had already started, a 500 can no longer be sent; the
// panic is logged and the connection aborted with http.ErrAbortHandler, so
// the client sees a broken response rather than a truncated one that looks
// complete. http.ErrAbortHandler itself is passed on untouched.
func Recover(log *slog.Logger) Middleware {
	if log == nil {
		log = slog.Default()
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			sw := statusWriterFor(w, r)
			defer func() {
				v := recover()
				if v == nil {
					return
				}
				// net/http compares the sentinel with ==, so do we.
				if v == http.ErrAbortHandler {
					panic(v)
				}
				err := &panicError{value: v, stack: debug.Stack()}
				if sw.wrote {
					log.Error("panic after response started", "method", r.Method, "path", r.URL.Path, "err", err)
					panic(http.ErrAbortHandler)
				}
				// Headers the handler set for the answer it meant to send
				// would misdescribe the error record (a Content-Length would
				// even cut it short); headers of middleware, such as CORS,
				// are kept so browsers can still read the error.
				h := w.Header()
				for _, k := range representationHeaders {
					h.Del(k)
				}
				apierr.Write(w, r, log, err)
			}()
			next.ServeHTTP(sw, r)
		})
	}
}

// representationHeaders describe a response body; Recover drops them before
// writing its own.
var representationHeaders = []string{
	"Content-Length", "Content-Encoding", "Content-Range", "Content-Disposition",
	"Content-Language", "ETag", "Last-Modified", "Cache-Control", "Expires",
}

// panicError carries a recovered panic to apierr.Write, which logs it.
// Not being an *apierr.Error, it is answered with the generic internal
// error message, so nothing about the panic reaches the caller.
type panicError struct {
	value any
	stack []byte
}

func (e *panicError) Error() string { return fmt.Sprintf("panic: %v", e.value) }

// Unwrap exposes a panic value that was an error, for errors.Is/As.
func (e *panicError) Unwrap() error {
	if err, ok := e.value.(error); ok {
		return err
	}
	return nil
}

// LogValue logs the stack as its own attribute instead of inside the message.
func (e *panicError) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("panic", fmt.Sprint(e.value)),
		slog.String("stack", string(e.stack)),
	)
}

var _ slog.LogValuer = (*panicError)(nil)
