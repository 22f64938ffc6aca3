package server

import (
	"errors"
	"net/http"

	"github.com/signalbox/signalbox/answer"
	"github.com/signalbox/signalbox/engine"
	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/internal/httpx"
	"github.com/signalbox/signalbox/store"
)

// The frontend API answers browser SDKs with evaluated flags for one
// context, exactly as the proxy does: both read the context and write the
// answer through package answer, here over the same cached payload the
// client API serves.

func (s *Server) handleFrontendGet(w http.ResponseWriter, r *http.Request, tok *store.APIToken) error {
	ctx := answer.ContextFromQuery(r.URL.RawQuery)
	return s.answerFrontend(w, r, tok, &ctx, nil, false)
}

func (s *Server) handleFrontendAll(w http.ResponseWriter, r *http.Request, tok *store.APIToken) error {
	ctx := answer.ContextFromQuery(r.URL.RawQuery)
	return s.answerFrontend(w, r, tok, &ctx, nil, true)
}

// handleFrontendPost reads the body with the proxy's decoder (answer.Lookup), so that a
// body gives the same context here as on the proxy's POST /proxy.
func (s *Server) handleFrontendPost(w http.ResponseWriter, r *http.Request, tok *store.APIToken) error {
	var body answer.Lookup
	if err := httpx.DecodeJSON(w, r, &body, maxBody); err != nil && !errors.Is(err, httpx.ErrEmptyBody) {
		return err
	}
	ctx, toggles, ferr := body.Parse()
	if ferr != nil {
		return apierr.Invalid(ferr.Member(), "%s", ferr.Message)
	}
	return s.answerFrontend(w, r, tok, &ctx, toggles, r.URL.Path == "/api/frontend/all")
}

// answerFrontend fills in the environment of the token and the caller's
// address when the context lacks them, then evaluates names (or every
// enabled flag, or every flag with all) and writes the toggles.
func (s *Server) answerFrontend(w http.ResponseWriter, r *http.Request, tok *store.APIToken, ctx *engine.Context, names []string, all bool) error {
	if ctx.Environment == "" {
		ctx.Environment = tokenEnvironment(tok)
	}
	if ctx.RemoteAddress == "" {
		ctx.RemoteAddress = s.clientIP(r)
	}
	p, err := s.payload(r.Context(), clientQuery{Environment: tokenEnvironment(tok), Projects: tok.Projects})
	if err != nil {
		return err
	}
	p.frontendAnswers().Write(w, r, ctx, names, all, true)
	return nil
}

// answeredOK answers 200 where h answers 202: Unleash's frontend API
// answers browser SDKs' register and metrics posts with 200 (its client
// API, for server SDKs, with 202), and SDKs may check for it.
func answeredOK(h func(http.ResponseWriter, *http.Request, *store.APIToken) error) func(http.ResponseWriter, *http.Request, *store.APIToken) error {
	return func(w http.ResponseWriter, r *http.Request, tok *store.APIToken) error {
		return h(acceptedAsOK{w}, r, tok)
	}
}

// acceptedAsOK writes 200 for 202.
type acceptedAsOK struct{ http.ResponseWriter }

func (w acceptedAsOK) WriteHeader(code int) {
	if code == http.StatusAccepted {
		code = http.StatusOK
	}
	w.ResponseWriter.WriteHeader(code)
}
