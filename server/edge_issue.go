package server

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// Unleash Edge's token issuing (POST /edge/issue-token): a node holding an
// admin token (or a personal access token) asks for client tokens, one per
// environment and projects, and gets for each the token it was issued
// before, or a new one.
//
// Only hashes of secrets are stored, so an issued secret cannot be read
// back. It is derived instead: an HMAC, keyed by the caller's own secret
// (sent with every request, never stored), of the environment, the
// projects and the token's creation time. The server finds what it issued
// to this caller by deriving the secret of each candidate token and
// comparing hashes; another caller, or someone reading the database,
// cannot. A token an admin deletes stays deleted: the next request
// creates one with another creation time, so another secret.

func registerEdgeIssue(s *Server, m mux) {
	// Members of a project may ask for its tokens: the handler checks each
	// token's projects, as creating one through the API does.
	m.admin("POST /edge/issue-token", PermRead, s.handleEdgeIssueTokens)
}

// maxEdgeIssue bounds one request: a node asks for the environments and
// project sets it serves, a handful.
const maxEdgeIssue = 100

// edgeTokenRequest is one item of Unleash's edgeEnvironmentProjectsListSchema.
type edgeTokenRequest struct {
	Environment string   `json:"environment"`
	Projects    []string `json:"projects"`
}

// handleEdgeIssueTokens is Unleash's edgeCreateOrReturnTokens: for each
// requested environment and projects, the client token issued to the
// caller before (still valid), or a new one (event api-token-created).
// The caller needs the permission to create such a token, every time
// (Admins: any; others: for projects they hold Owner or Member in, never
// all).
func (s *Server) handleEdgeIssueTokens(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Tokens *[]edgeTokenRequest `json:"tokens"`
	}
	if err := decode(w, r, &body); err != nil {
		return err
	}
	switch {
	case body.Tokens == nil:
		return apierr.Invalid("tokens", "tokens is required: a list of {environment, projects}")
	case len(*body.Tokens) > maxEdgeIssue:
		return apierr.Invalid("tokens", "at most %d tokens can be issued at once, not %d", maxEdgeIssue, len(*body.Tokens))
	}
	key := tokenSecret(r, true)
	if key == "" {
		return apierr.New(apierr.BadRequest, "tokens are issued to an API token: send the admin token or personal access token in the Authorization header")
	}
	ctx := r.Context()
	var out []edgeToken
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		out = []edgeToken{}
		issued, err := tx.ListAPITokens(ctx, store.APITokenFilter{Type: store.TokenClient})
		if err != nil {
			return nil, err
		}
		var events []store.Event
		for _, req := range *body.Tokens {
			want, err := edgeTokenWanted(ctx, tx, req)
			if err != nil {
				return nil, err
			}
			// Checked for tokens issued before too: the caller may have
			// lost the role since.
			if err := s.mayCreateForProjects(ctx, want); err != nil {
				return nil, err
			}
			secret, found := s.issuedBefore(issued, want, key)
			if !found {
				want.CreatedAt = s.now().UTC().Truncate(time.Microsecond)
				secret = edgeSecret(key, want)
				want.SecretHash, want.Prefix = store.HashSecret(secret), redact(secret)
				_, evs, err := s.createToken(ctx, tx, want, secret)
				if err != nil {
					return nil, err
				}
				events = append(events, evs...)
				// A pair asked twice in one request gets one token.
				issued = append(issued, want)
			}
			out = append(out, edgeToken{Token: secret, Type: store.TokenClient, Projects: want.Projects, Environment: want.Environment})
		}
		return events, nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]any{"tokens": out})
}

// edgeTokenWanted checks one request against the store and returns the
// token it asks for, without secret and creation time.
func edgeTokenWanted(ctx context.Context, rd store.Reader, req edgeTokenRequest) (store.APIToken, error) {
	env := strings.TrimSpace(req.Environment)
	if env == "" {
		return store.APIToken{}, apierr.Invalid("environment", "each token needs an environment")
	}
	t := store.APIToken{Type: store.TokenClient}
	var err error
	if t.Environment, err = tokenEnvironmentFor(ctx, rd, store.TokenClient, env); err != nil {
		return t, err
	}
	if t.Projects, err = tokenProjects(ctx, rd, req.Projects); err != nil {
		return t, err
	}
	slices.Sort(t.Projects)
	// Named as Unleash names the tokens it issues to Edge.
	names := strings.Join(t.Projects, "_")
	if len(t.Projects) > 3 {
		names = "[]"
	}
	t.TokenName = "edge_" + t.Environment + "_" + names
	return t, nil
}

// issuedBefore finds the unexpired token of want's kind whose secret the
// caller's key derives, and returns that secret.
func (s *Server) issuedBefore(tokens []store.APIToken, want store.APIToken, key string) (string, bool) {
	for _, t := range tokens {
		if t.UserID != 0 || t.TokenName != want.TokenName || t.Environment != want.Environment ||
			!slices.Equal(sortedCopy(t.Projects), want.Projects) || (t.ExpiresAt != nil && !t.ExpiresAt.After(s.now())) {
			continue
		}
		if secret := edgeSecret(key, t); hmac.Equal([]byte(store.HashSecret(secret)), []byte(t.SecretHash)) {
			return secret, true
		}
	}
	return "", false
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

// edgeSecret derives the secret of token t issued to the holder of key:
// <scope>:<environment>.<56 hex characters>, like every token's.
func edgeSecret(key string, t store.APIToken) string {
	m := hmac.New(sha256.New, []byte(key))
	m.Write([]byte("signalbox edge token\x00" + t.Environment + "\x00" + strings.Join(sortedCopy(t.Projects), "\x00") +
		"\x00" + strconv.FormatInt(t.CreatedAt.UnixMicro(), 10)))
	scope := "[]"
	if len(t.Projects) == 1 {
		scope = t.Projects[0]
	}
	return scope + ":" + t.Environment + "." + hex.EncodeToString(m.Sum(nil))[:56]
}
