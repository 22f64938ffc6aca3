package server

import (
	"net/http"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// Edge-style nodes (`signalbox edge`, Unleash Edge) ask which of the tokens
// their SDKs sent are valid, and what each may read, before serving them.

func registerEdge(s *Server, m mux) {
	m.public("POST /edge/validate", s.handleEdgeValidate)
}

// maxEdgeTokens bounds one validation request: a node asks about the tokens
// it has seen since its last refresh, never thousands at once.
const maxEdgeTokens = 1000

// edgeToken is Unleash's edgeTokenSchema.
type edgeToken struct {
	Token       string   `json:"token"`
	Type        string   `json:"type"`
	Projects    []string `json:"projects"`
	Environment string   `json:"environment"`
}

// handleEdgeValidate answers, for each valid client or frontend token in
// the list, its type, projects and environment; unknown, expired and admin
// tokens are left out. It needs no credentials, as in Unleash: it tells
// nothing to someone who does not already hold a token.
func (s *Server) handleEdgeValidate(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Tokens *[]string `json:"tokens"`
	}
	if err := decode(w, r, &body); err != nil {
		return err
	}
	if body.Tokens == nil {
		return apierr.Invalid("tokens", "tokens is required: a list of token strings")
	}
	if len(*body.Tokens) > maxEdgeTokens {
		return apierr.Invalid("tokens", "at most %d tokens can be validated at once, not %d", maxEdgeTokens, len(*body.Tokens))
	}
	out := []edgeToken{}
	seen := map[string]bool{}
	for _, secret := range *body.Tokens {
		if secret == "" || seen[secret] {
			continue
		}
		seen[secret] = true
		tok, ok, err := s.tokenBySecret(r.Context(), secret)
		if err != nil {
			return err
		}
		if !ok ||
			(tok.ExpiresAt != nil && !tok.ExpiresAt.After(s.now())) ||
			(tok.Type != store.TokenClient && tok.Type != store.TokenFrontend) || tok.UserID != 0 {
			continue
		}
		projects := tok.Projects
		if len(projects) == 0 {
			projects = []string{"*"}
		}
		out = append(out, edgeToken{Token: secret, Type: tok.Type, Projects: projects, Environment: tokenEnvironment(tok)})
	}
	return writeJSON(w, http.StatusOK, map[string]any{"tokens": out})
}
