package server

import (
	"net/http"
	"strings"

	"github.com/signalbox/signalbox/internal/apierr"
)

// Reset and invite links carry a secret that lets a stranger set a password
// or create an account, so the public endpoints that check one are slowed
// down like sign-ins: with a limiter of their own (so that guesses at links
// neither crowd out nor are crowded out by sign-in counts), keyed by the
// secret tried and by the client address. Secrets are random, so each guess
// is a new key and it is the address's count that bounds a guesser: 30
// misses free, then each further one doubles the wait, up to 5 minutes.

// maxLinkSecret bounds the secrets accepted from links; longer ones are
// refused before they are looked up or counted.
const maxLinkSecret = 128

// checkLinkSecret refuses a secret that no link of this server carries by
// its form: empty or too long.
func checkLinkSecret(field, secret string) error {
	if secret == "" {
		return apierr.Invalid(field, "%s is required", field)
	}
	if len(secret) > maxLinkSecret {
		return apierr.Invalid(field, "%s must be at most %d characters long", field, maxLinkSecret)
	}
	return nil
}

// reserveLinkCheck reserves a check of secret from the request's client
// address (kind names the counter: "reset", "invite", "reset-request");
// report whether it matched with done. A refusal is a 429 that says how
// long to wait, in Retry-After too.
func (s *Server) reserveLinkCheck(w http.ResponseWriter, r *http.Request, kind, secret string) (*loginAttempt, error) {
	a, wait := s.tokenChecks.reserve(unknownLoginKey(kind+":"+secret), s.clientAddr(r))
	if a != nil {
		return a, nil
	}
	return nil, tooManyAttempts(w, wait, "too many attempts with links that do not work")
}

// publicBase is the address links and the UI config start with: the configured
// public URL, else the address the request reached. The answer goes to a
// signed-in admin, who sees whether it is right before passing it on.
func (s *Server) publicBase(r *http.Request) string {
	if base := strings.TrimRight(s.cfg.PublicURL, "/"); base != "" {
		return base
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}
