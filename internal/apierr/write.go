package apierr

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"

	"github.com/google/uuid"
)

// Body is the Error record written for every failed admin or client API call.
type Body struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	Message string   `json:"message"`
	Details []Detail `json:"details,omitempty"`
	// Path and Type are set on AuthenticationRequired, pointing to the login.
	Path string `json:"path,omitempty"`
	Type string `json:"type,omitempty"`
}

// BodyOf builds the body for err. Errors that are not *Error become a
// generic InternalError whose message reveals nothing.
func BodyOf(err error) (int, Body) {
	var e *Error
	if !errors.As(err, &e) {
		e = &Error{Kind: Internal, Message: "an internal error occurred; it has been logged with this id"}
	}
	b := Body{ID: uuid.NewString(), Name: string(e.Kind), Message: e.Message, Details: e.Details}
	if len(b.Details) == 0 {
		b.Details = []Detail{{Message: e.Message}}
	}
	if e.Kind == AuthenticationRequired {
		b.Path, b.Type = "/auth/simple/login", "password"
	}
	return e.Kind.Status(), b
}

// Write writes err as a JSON Error record with its status, and logs causes
// of internal errors with the same id.
func Write(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	if clientGone(r, err) {
		// The caller hung up (or the server is shutting down) and the work
		// stopped because of it: nobody reads this answer and nothing
		// failed, so it is neither a 500 nor worth an error line.
		if log != nil {
			log.Debug("request ended before its answer", "method", r.Method, "path", r.URL.Path, "err", err)
		}
		w.WriteHeader(StatusClientClosedRequest)
		return
	}
	status, body := BodyOf(err)
	if status >= 500 && log != nil {
		attrs := []any{"id", body.ID, "method", r.Method, "path", r.URL.Path, "err", err}
		// The request id middleware puts the id in the response header.
		if rid := w.Header().Get("X-Request-Id"); rid != "" {
			attrs = append(attrs, "request_id", rid)
		}
		log.Error("request failed", attrs...)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

// StatusClientClosedRequest is the status recorded (in access logs and
// metrics) for a request whose caller went away before the answer; no
// client ever reads it. The number is the one common proxies use.
const StatusClientClosedRequest = 499

// clientGone reports whether err only says that the request's own context
// ended: the client disconnected or its deadline passed.
func clientGone(r *http.Request, err error) bool {
	return r.Context().Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded))
}
