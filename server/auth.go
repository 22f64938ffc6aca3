package server

import (
	"context"
	"crypto/subtle"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// SessionCookie is the name of the admin session cookie.
const SessionCookie = "signalbox-session"

// Principal is who made a request: a user (session or personal token) or an
// API token.
type Principal struct {
	User  *store.User     // set for users
	Token *store.APIToken // set for API tokens, personal ones included
	// groupRoles are the root roles of the user's groups, read with the
	// user when the request is authenticated.
	groupRoles []int
}

// userPrincipal is the principal of user u (acting through tok, if not
// nil), with the root roles of the groups u belongs to.
func userPrincipal(ctx context.Context, rd store.Reader, u store.User, tok *store.APIToken) (*Principal, error) {
	groups, err := rd.ListUserGroups(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	p := &Principal{User: &u, Token: tok}
	for _, g := range groups {
		if g.RootRole != 0 {
			p.groupRoles = append(p.groupRoles, g.RootRole)
		}
	}
	return p, nil
}

// RootRole is a user's effective root role: the most powerful of their own
// and those of their groups. 0 for API tokens.
func (p *Principal) RootRole() int {
	if p == nil || p.User == nil {
		return 0
	}
	return strongestRootRole(append([]int{p.User.RootRole}, p.groupRoles...)...)
}

// Name is what audit events record as createdBy.
func (p *Principal) Name() string {
	switch {
	case p == nil:
		return "unknown"
	case p.User != nil:
		if p.User.Username != "" {
			return p.User.Username
		}
		if p.User.Email != "" {
			return p.User.Email
		}
		return p.User.Name
	case p.Token != nil:
		return p.Token.TokenName
	}
	return "unknown"
}

// UserID is the acting user's id, 0 for API tokens.
func (p *Principal) UserID() int {
	if p != nil && p.User != nil {
		return p.User.ID
	}
	return 0
}

// can reports whether the principal holds perm at root level, through the
// user's effective root role or as an admin token.
func (p *Principal) can(perm Permission) bool {
	if p.User != nil {
		return rootRoleAllows(p.RootRole(), perm)
	}
	return p.Token != nil && p.Token.Type == store.TokenAdmin
}

type principalKey struct{}

func withPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// principalFrom returns the request's principal; routes behind authentication
// always have one.
func principalFrom(ctx context.Context) *Principal {
	p, _ := ctx.Value(principalKey{}).(*Principal)
	return p
}

// tokenSecret reads a token from Authorization, with or without "Bearer ".
func tokenSecret(r *http.Request, allowBearer bool) string {
	v := strings.TrimSpace(r.Header.Get("Authorization"))
	if allowBearer && len(v) > 7 && strings.EqualFold(v[:7], "bearer ") {
		v = strings.TrimSpace(v[7:])
	}
	return v
}

// lookupToken finds a valid (known, unexpired) API token. The store finds it
// by the hash of the secret; the constant-time compare guards against a
// store that matched loosely.
func (s *Server) lookupToken(ctx context.Context, secret string) (*store.APIToken, error) {
	if secret == "" {
		return nil, apierr.New(apierr.AuthenticationRequired, "you must sign in at /auth/simple/login or send an API token in the Authorization header")
	}
	hash := store.HashSecret(secret)
	tok, ok, err := s.cachedToken(ctx, hash)
	if err != nil {
		return nil, err
	}
	if !ok || subtle.ConstantTimeCompare([]byte(tok.SecretHash), []byte(hash)) != 1 {
		return nil, apierr.New(apierr.AuthenticationRequired, "the API token is not valid; sign in at /auth/simple/login or send a valid token")
	}
	if tok.ExpiresAt != nil && !tok.ExpiresAt.After(s.now()) {
		return nil, apierr.New(apierr.AuthenticationRequired, "the API token has expired")
	}
	return &tok, nil
}

// authenticateAdmin resolves the principal of an admin API request: a
// session cookie, or an admin or personal API token. Client and frontend
// tokens are refused with 403.
func (s *Server) authenticateAdmin(r *http.Request) (*Principal, error) {
	if secret := tokenSecret(r, true); secret != "" {
		tok, err := s.lookupToken(r.Context(), secret)
		if err != nil {
			return nil, err
		}
		if tok.UserID != 0 { // a personal access token acts as its user
			var p *Principal
			err := s.store.View(r.Context(), func(rd store.Reader) error {
				u, err := rd.GetUser(r.Context(), tok.UserID)
				if err != nil {
					return apierr.New(apierr.AuthenticationRequired, "the token's user no longer exists")
				}
				p, err = userPrincipal(r.Context(), rd, u, tok)
				return err
			})
			if err != nil {
				return nil, err
			}
			return p, nil
		}
		if tok.Type != store.TokenAdmin {
			return nil, apierr.New(apierr.NoAccess, "a %s token cannot be used on the admin API; use an admin token or sign in", tok.Type)
		}
		return &Principal{Token: tok}, nil
	}
	if c, err := r.Cookie(SessionCookie); err == nil && c.Value != "" {
		return s.sessionPrincipal(r.Context(), c.Value)
	}
	return nil, apierr.New(apierr.AuthenticationRequired, "you must sign in at /auth/simple/login or send an API token in the Authorization header")
}

func (s *Server) sessionPrincipal(ctx context.Context, cookie string) (*Principal, error) {
	var p *Principal
	err := s.store.View(ctx, func(rd store.Reader) error {
		sess, err := rd.GetSession(ctx, store.HashSecret(cookie))
		if err != nil {
			return err
		}
		if !sess.ExpiresAt.After(s.now()) {
			return apierr.New(apierr.AuthenticationRequired, "the session has expired; sign in again at /auth/simple/login")
		}
		u, err := rd.GetUser(ctx, sess.UserID)
		if err != nil {
			return err
		}
		p, err = userPrincipal(ctx, rd, u, nil)
		return err
	})
	if apierr.Is(err, apierr.NotFound) {
		return nil, apierr.New(apierr.AuthenticationRequired, "the session is not valid; sign in at /auth/simple/login")
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}

// authenticateSDK resolves the token of a client or frontend API request.
// Missing or unknown tokens are 401, tokens of another kind 403; both with
// a {"message": ...} body.
func (s *Server) authenticateSDK(r *http.Request, kind string) (*store.APIToken, error) {
	tok, err := s.lookupToken(r.Context(), tokenSecret(r, true))
	if err != nil {
		return nil, err
	}
	if tok.Type != kind {
		return nil, apierr.New(apierr.NoAccess, "this endpoint needs a %s token, not a %s token", kind, tok.Type)
	}
	return tok, nil
}

// tokenEnvironment is the environment a client or frontend token reads.
// Tokens made for all environments ("*") read the development environment.
func tokenEnvironment(t *store.APIToken) string {
	if t.Environment == "" || t.Environment == "*" {
		return store.EnvDevelopment
	}
	return t.Environment
}

// ParseToken splits a token string of the form <project>:<environment>.<secret>
// (admin: *:*.<secret>). Projects may be "*" or a name; "[]" marks a
// multi-project token whose projects are listed elsewhere.
func ParseToken(s string) (project, environment string, ok bool) {
	scope, secret, found := strings.Cut(s, ".")
	if !found || secret == "" {
		return "", "", false
	}
	project, environment, found = strings.Cut(scope, ":")
	if !found || project == "" || environment == "" {
		return "", "", false
	}
	return project, environment, true
}

// loginLimiter slows down password guessing: after 5 failures for one login
// name within 15 minutes, further attempts are refused until the window
// passes. It is in memory; the per-user count in the store (loginAttempts)
// is what admins see.
type loginLimiter struct {
	now func() time.Time
	mu  sync.Mutex
	hit map[string][]time.Time
}

func newLoginLimiter(now func() time.Time) *loginLimiter {
	return &loginLimiter{now: now, hit: map[string][]time.Time{}}
}

const (
	loginWindow      = 15 * time.Minute
	loginMaxFailures = 5
)

// allow reports whether another attempt for login may proceed.
func (l *loginLimiter) allow(login string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.recent(login)) < loginMaxFailures
}

func (l *loginLimiter) fail(login string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.hit[login] = append(l.recent(login), l.now())
	if len(l.hit) > 100000 { // bound memory under a spray of names
		l.hit = map[string][]time.Time{}
	}
}

func (l *loginLimiter) succeed(login string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.hit, login)
}

func (l *loginLimiter) recent(login string) []time.Time {
	cut := l.now().Add(-loginWindow)
	kept := l.hit[login][:0]
	for _, t := range l.hit[login] {
		if t.After(cut) {
			kept = append(kept, t)
		}
	}
	return kept
}
