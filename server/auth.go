package server

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/internal/clientip"
	"github.com/signalbox/signalbox/internal/httpx"
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
	// sight is what the principal may see of projects, read when a request
	// first needs it (see sightOf).
	sight *projectSight
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
	tok, ok, err := s.tokenBySecret(ctx, secret)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, apierr.New(apierr.AuthenticationRequired, "the API token is not valid; sign in at /auth/simple/login or send a valid token")
	}
	if tok.ExpiresAt != nil && !tok.ExpiresAt.After(s.now()) {
		return nil, apierr.New(apierr.AuthenticationRequired, "the API token has expired")
	}
	return tok, nil
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

// newCrossOriginProtection is the check of writes made by browsers: same
// origin (Sec-Fetch-Site, or Origin against Host), or the public URL's
// origin, which a reverse proxy may not pass on as the Host.
func newCrossOriginProtection(publicURL string) *http.CrossOriginProtection {
	cop := http.NewCrossOriginProtection()
	if u, err := url.Parse(publicURL); err == nil && u.Scheme != "" && u.Host != "" {
		_ = cop.AddTrustedOrigin(u.Scheme + "://" + u.Host)
	}
	return cop
}

// checkOrigin refuses a browser's unsafe request sent from another site.
// Requests without Origin and Sec-Fetch-Site (scripts, SDKs, curl) pass:
// they carry no cookie a browser attached on its own.
func (s *Server) checkOrigin(r *http.Request) error {
	if err := s.crossOrigin.Check(r); err != nil {
		return apierr.New(apierr.NoAccess, "cross-origin request refused: a browser may only send this from the server's own pages; scripts and other sites use an API token in the Authorization header")
	}
	return nil
}

// checkCookieWrite guards the writes of a session signed in by cookie, the
// one credential a browser sends on its own: they must come from this
// server's own pages, and a body must be declared JSON. A page of another
// site can neither pass the origin check nor send JSON without the
// browser asking this server first (CORS preflight), which it does not
// allow. API tokens are not sent by browsers on their own, so requests
// authenticated by one are not checked and work from anywhere.
func (s *Server) checkCookieWrite(r *http.Request, p *Principal) error {
	if p.Token != nil || p.User == nil {
		return nil
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return nil
	}
	if err := s.checkOrigin(r); err != nil {
		return err
	}
	ct := r.Header.Get("Content-Type")
	if (ct != "" || r.ContentLength != 0) && !httpx.IsJSONContentType(ct) {
		return apierr.New(apierr.ContentType, "a change made with a session cookie must send its body as JSON (Content-Type: application/json), not %q", ct)
	}
	return nil
}

// clientAddr is the address the request came from, as sign-in limits count
// it: the client behind trusted proxies, else the socket peer (so that a
// forwarded chain that cannot be read still counts somewhere).
func (s *Server) clientAddr(r *http.Request) string {
	if ip := s.clientIP(r); ip != "" {
		return ip
	}
	return clientip.Trust{}.ClientIP(r)
}
