package httpx

import (
	"log/slog"
	"net/http"
	"time"
)

// AccessLog logs one debug line per request with method, path, status,
// response bytes, duration and the request id (when RequestID runs before
// it). It checks the level per request (it may be
// changed at run time through a slog.LevelVar) and costs nothing when debug
// is off. The query string is left out because the proxy's GET context
// (userId, sessionId, properties) travels there and must not land in logs.
// A nil log means slog.Default().
func AccessLog(log *slog.Logger) Middleware {
	if log == nil {
		log = slog.Default()
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx := r.Context()
			if !log.Enabled(ctx, slog.LevelDebug) {
				next.ServeHTTP(w, r)
				return
			}
			sw := statusWriterFor(w, r)
			start := time.Now()
			returned := false
			// Deferred so that a request whose handler panicked is logged
			// too; Recover, further out, answers it with a 500.
			defer func() {
				status := sw.code()
				if !returned && !sw.wrote {
					status = http.StatusInternalServerError
				}
				attrs := []slog.Attr{
					slog.String("method", r.Method),
					slog.String("path", r.URL.Path),
					slog.Int("status", status),
					slog.Int64("bytes", sw.bytes),
					slog.Duration("duration", time.Since(start)),
				}
				if id := RequestIDOf(w); id != "" {
					attrs = append(attrs, slog.String("request_id", id))
				}
				log.LogAttrs(ctx, slog.LevelDebug, "http request", attrs...)
			}()
			next.ServeHTTP(sw, r)
			returned = true
		})
	}
}
