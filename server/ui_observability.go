package server

// What Unleash's UI reports and asks about itself: errors it hit
// (/api/admin/record-ui-error), written to the server log, and whether
// the server reports telemetry (/api/admin/telemetry/settings; it never
// does).

import (
	"net/http"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/signalbox/signalbox/internal/apierr"
)

func registerUIObservability(s *Server, m mux) {
	m.admin("POST /api/admin/record-ui-error", PermRead, s.handleRecordUIError)
	m.admin("GET /api/admin/telemetry/settings", PermRead, s.handleTelemetrySettings)
}

// Bounds of UI error reports: what one log line keeps of a report, and
// how many reports are logged per minute (for the whole server; the rest
// are answered the same but only counted in the next line logged), so
// that a page stuck in an error loop cannot flood the log.
const (
	uiErrorMessageMax = 1000
	uiErrorStackMax   = 4000
	uiErrorsPerMinute = 30
)

// uiErrorLimiter counts the reports of the current minute.
type uiErrorLimiter struct {
	mu      sync.Mutex
	window  time.Time
	logged  int
	dropped int
}

// allow reports whether to log a report now, and how many were dropped
// since the last one logged.
func (l *uiErrorLimiter) allow(now time.Time) (bool, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if w := now.Truncate(time.Minute); !w.Equal(l.window) {
		l.window, l.logged = w, 0
	}
	if l.logged >= uiErrorsPerMinute {
		l.dropped++
		return false, 0
	}
	l.logged++
	dropped := l.dropped
	l.dropped = 0
	return true, dropped
}

var uiErrors uiErrorLimiter

// truncateRunes cuts s to at most n characters, marking the cut.
func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// handleRecordUIError is Unleash's uiObservability: the report is logged
// (message and stack cut to bounds, at most uiErrorsPerMinute a minute)
// with who sent it, and answered 204.
func (s *Server) handleRecordUIError(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		ErrorMessage *string `json:"errorMessage"`
		ErrorStack   string  `json:"errorStack"`
	}
	if err := decode(w, r, &body); err != nil {
		return err
	}
	if body.ErrorMessage == nil {
		return apierr.Invalid("errorMessage", "errorMessage is required")
	}
	if ok, dropped := uiErrors.allow(time.Now()); ok {
		s.log.Warn("UI error reported",
			"message", truncateRunes(*body.ErrorMessage, uiErrorMessageMax),
			"stack", truncateRunes(body.ErrorStack, uiErrorStackMax),
			"by", principalFrom(r.Context()).Name(), "notLogged", dropped)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// handleTelemetrySettings is Unleash's getTelemetrySettings: this server
// collects and sends neither version nor usage information.
func (s *Server) handleTelemetrySettings(w http.ResponseWriter, r *http.Request) error {
	return writeJSON(w, http.StatusOK, map[string]bool{"versionInfoCollectionEnabled": false, "featureInfoCollectionEnabled": false})
}
