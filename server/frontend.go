package server

import (
	"errors"
	"net/http"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/engine"
	"github.com/signalbox/signalbox/internal/httpx"
	"github.com/signalbox/signalbox/proxy"
	"github.com/signalbox/signalbox/store"
)

// The frontend API answers browser SDKs with evaluated flags for one
// context, exactly as the proxy does: it reads the context the same way and
// uses the proxy's answer writer (proxy.Answers) over the same cached
// payload the client API serves.

func (s *Server) handleFrontendGet(w http.ResponseWriter, r *http.Request, tok *store.APIToken) error {
	ctx := proxy.ContextFromQuery(r.URL.RawQuery)
	return s.answerFrontend(w, r, tok, &ctx, nil, false)
}

func (s *Server) handleFrontendAll(w http.ResponseWriter, r *http.Request, tok *store.APIToken) error {
	ctx := proxy.ContextFromQuery(r.URL.RawQuery)
	return s.answerFrontend(w, r, tok, &ctx, nil, true)
}

func (s *Server) handleFrontendPost(w http.ResponseWriter, r *http.Request, tok *store.APIToken) error {
	var body struct {
		Context clientapi.Context `json:"context"`
		Toggles []string          `json:"toggles"`
	}
	if err := httpx.DecodeJSON(w, r, &body, maxBody); err != nil && !errors.Is(err, httpx.ErrEmptyBody) {
		return err
	}
	ctx := engine.ContextFromWire(&body.Context)
	return s.answerFrontend(w, r, tok, &ctx, body.Toggles, r.URL.Path == "/api/frontend/all")
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
