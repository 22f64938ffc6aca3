package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// API tokens (/api/admin/api-tokens) and personal access tokens
// (/api/admin/user/tokens). Only a hash of a secret is stored: the secret
// appears once, in the answer that creates the token, and never in lists
// or audit events.

func registerAPITokens(s *Server, m mux) {
	m.admin("GET /api/admin/api-tokens", PermReadAPIToken, s.handleListAPITokens)
	m.admin("POST /api/admin/api-tokens", PermCreateAPIToken, s.handleCreateAPIToken)
	m.admin("GET /api/admin/api-tokens/{name}", PermReadAPIToken, s.handleAPITokensByName)
	m.admin("PUT /api/admin/api-tokens/{token}", PermUpdateAPIToken, s.handleUpdateAPIToken)
	m.admin("DELETE /api/admin/api-tokens/{token}", PermDeleteAPIToken, s.handleDeleteAPIToken)

	m.admin("GET /api/admin/user/tokens", PermRead, s.handleListPATs)
	m.admin("POST /api/admin/user/tokens", PermRead, s.handleCreatePAT)
	m.admin("DELETE /api/admin/user/tokens/{id}", PermRead, s.handleDeletePAT)
}

// newTokenSecret returns <scope>.<56 random hex characters>.
func newTokenSecret(scope string) string {
	b := make([]byte, 28)
	_, _ = rand.Read(b)
	return scope + "." + hex.EncodeToString(b)
}

// parseTimeField reads a date-time property: RFC 3339, or a plain date
// (midnight UTC).
func parseTimeField(field, v string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, apierr.Invalid(field, "%s must be a date-time such as 2030-01-31T12:00:00Z, not %q", field, v)
}

// mayManageToken checks the extra permission admin tokens need: only Admins
// create, change, delete or see them.
func mayManageToken(ctx context.Context, tokenType string) error {
	if tokenType == store.TokenAdmin && !principalFrom(ctx).can(PermAdmin) {
		return noAccess(PermAdmin, "")
	}
	return nil
}

// mayCreateForProjects checks the projects of a new client or frontend
// token: Admins create them for any projects; others only for projects in
// which they hold a project role that allows it (Owner or Member), never
// for all projects (*), which would reach projects, production included,
// they have no part in.
func (s *Server) mayCreateForProjects(ctx context.Context, t store.APIToken) error {
	p := principalFrom(ctx)
	if p.can(PermAdmin) {
		return nil
	}
	if slices.Contains(t.Projects, "*") || p.User == nil {
		return apierr.New(apierr.NoAccess,
			"only an Admin can create a token for all projects (*); name the projects you hold a role in (projects)")
	}
	for _, project := range t.Projects {
		ok, err := s.projectRoleGrants(ctx, p.User.ID, project, PermCreateAPIToken)
		if err != nil {
			return err
		}
		if !ok {
			return apierr.New(apierr.NoAccess,
				"you need a role in project %s (Owner or Member) to create a token for it", project)
		}
	}
	return nil
}

// creatorOf is the user who creates a token through p: the user, or the
// user who created the admin token p acts through (0 when unknown).
func creatorOf(p *Principal) int {
	switch {
	case p == nil:
		return 0
	case p.User != nil:
		return p.User.ID
	case p.Token != nil:
		return p.Token.CreatedByUserID
	}
	return 0
}

// listableTokens are the API tokens a principal may see: never personal
// ones, admin tokens only to Admins.
func listableTokens(ctx context.Context, list []store.APIToken, name string) []TokenJSON {
	out := []TokenJSON{}
	for _, t := range list {
		if t.UserID != 0 || mayManageToken(ctx, t.Type) != nil || (name != "" && t.TokenName != name) {
			continue
		}
		out = append(out, tokenJSON(t, ""))
	}
	return out
}

func (s *Server) handleListAPITokens(w http.ResponseWriter, r *http.Request) error {
	return s.answerTokens(w, r, "")
}

// handleAPITokensByName lists the tokens with one name (names need not be
// unique).
func (s *Server) handleAPITokensByName(w http.ResponseWriter, r *http.Request) error {
	return s.answerTokens(w, r, r.PathValue("name"))
}

func (s *Server) answerTokens(w http.ResponseWriter, r *http.Request, name string) error {
	var list []store.APIToken
	err := s.view(r.Context(), func(rd store.Reader) (err error) {
		list, err = rd.ListAPITokens(r.Context(), store.APITokenFilter{})
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]any{"tokens": listableTokens(r.Context(), list, name)})
}

// apiTokenBody is createApiTokenSchema, with the older username for
// tokenName and upper-case types accepted.
type apiTokenBody struct {
	Type        string   `json:"type"`
	TokenName   string   `json:"tokenName"`
	Username    string   `json:"username"`
	Environment string   `json:"environment"`
	Project     string   `json:"project"`
	Projects    []string `json:"projects"`
	ExpiresAt   string   `json:"expiresAt"`
}

// token checks the body against the store and returns the token to create
// with its secret.
func (b apiTokenBody) token(ctx context.Context, rd store.Reader, now time.Time) (store.APIToken, string, error) {
	t := store.APIToken{Type: strings.ToLower(strings.TrimSpace(b.Type)), TokenName: strings.TrimSpace(b.TokenName)}
	if t.Type == "backend" { // Unleash's newer name for client tokens
		t.Type = store.TokenClient
	}
	if t.TokenName == "" {
		t.TokenName = strings.TrimSpace(b.Username)
	}
	switch {
	case t.Type != store.TokenAdmin && t.Type != store.TokenClient && t.Type != store.TokenFrontend:
		return t, "", apierr.Invalid("type", "type must be client, frontend or admin, not %q", b.Type)
	case t.TokenName == "":
		return t, "", apierr.Invalid("tokenName", "tokenName is required")
	case b.Project != "" && len(b.Projects) > 0:
		return t, "", apierr.Invalid("projects", "send either project or projects, not both")
	}
	if err := checkText("tokenName", t.TokenName, 255); err != nil {
		return t, "", err
	}
	if b.ExpiresAt != "" {
		at, err := parseTimeField("expiresAt", b.ExpiresAt)
		if err != nil {
			return t, "", err
		}
		if !at.After(now) {
			return t, "", apierr.Invalid("expiresAt", "expiresAt must be in the future")
		}
		t.ExpiresAt = &at
	}
	projects := b.Projects
	if b.Project != "" {
		projects = []string{b.Project}
	}
	var err error
	if t.Projects, err = tokenProjects(ctx, rd, projects); err != nil {
		return t, "", err
	}
	if t.Environment, err = tokenEnvironmentFor(ctx, rd, t.Type, b.Environment); err != nil {
		return t, "", err
	}
	if t.Type == store.TokenAdmin && (len(t.Projects) != 1 || t.Projects[0] != "*") {
		return t, "", apierr.Invalid("projects", "admin tokens are for all projects (*)")
	}
	scope := "[]"
	if len(t.Projects) == 1 {
		scope = t.Projects[0]
	}
	secret := newTokenSecret(scope + ":" + t.Environment)
	t.SecretHash, t.Prefix = store.HashSecret(secret), redact(secret)
	return t, secret, nil
}

// tokenProjects checks the projects of a token; none or "*" means all.
func tokenProjects(ctx context.Context, rd store.Reader, asked []string) ([]string, error) {
	var out []string
	for _, p := range asked {
		p = strings.TrimSpace(p)
		if p == "*" {
			return []string{"*"}, nil
		}
		if p == "" {
			return nil, apierr.Invalid("projects", "project names must not be empty; use * for all projects")
		}
		if _, err := rd.GetProject(ctx, p); apierr.Is(err, apierr.NotFound) {
			return nil, apierr.Invalid("projects", "project %q does not exist", p)
		} else if err != nil {
			return nil, err
		}
		if !contains(out, p) {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return []string{"*"}, nil
	}
	return out, nil
}

// tokenEnvironmentFor checks a token's environment: admin tokens are for
// all (*); others for one that exists, development when none is given.
func tokenEnvironmentFor(ctx context.Context, rd store.Reader, typ, env string) (string, error) {
	env = strings.TrimSpace(env)
	if typ == store.TokenAdmin {
		if env != "" && env != "*" {
			return "", apierr.Invalid("environment", "admin tokens are for all environments (*)")
		}
		return "*", nil
	}
	if env == "" {
		env = store.EnvDevelopment
	}
	if env == "*" {
		return env, nil
	}
	if _, err := rd.GetEnvironment(ctx, env); apierr.Is(err, apierr.NotFound) {
		return "", apierr.Invalid("environment", "environment %q does not exist", env)
	} else if err != nil {
		return "", err
	}
	return env, nil
}

// handleCreateAPIToken creates a token and answers its secret, once.
func (s *Server) handleCreateAPIToken(w http.ResponseWriter, r *http.Request) error {
	var body apiTokenBody
	if err := decode(w, r, &body); err != nil {
		return err
	}
	ctx := r.Context()
	var out TokenJSON
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		t, secret, err := body.token(ctx, tx, s.now())
		if err != nil {
			return nil, err
		}
		var events []store.Event
		out, events, err = s.createToken(ctx, tx, t, secret)
		return events, err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, out)
}

// createToken stores a new API token for the principal of ctx, who must
// be allowed its type and projects, and answers it with its secret (shown
// this once) and its one event.
func (s *Server) createToken(ctx context.Context, tx store.Tx, t store.APIToken, secret string) (TokenJSON, []store.Event, error) {
	if err := mayManageToken(ctx, t.Type); err != nil {
		return TokenJSON{}, nil, err
	}
	if err := s.mayCreateForProjects(ctx, t); err != nil {
		return TokenJSON{}, nil, err
	}
	t.CreatedByUserID = creatorOf(principalFrom(ctx))
	created, err := tx.CreateAPIToken(ctx, t)
	if err != nil {
		return TokenJSON{}, nil, err
	}
	return tokenJSON(created, secret), []store.Event{tokenEvent("api-token-created", &created, nil)}, nil
}

// tokenEvent records a token change without its secret.
func tokenEvent(typ string, after, before *store.APIToken) store.Event {
	e := store.Event{Type: typ}
	for _, t := range []*store.APIToken{after, before} {
		if t == nil {
			continue
		}
		if t.Environment != "*" {
			e.Environment = t.Environment
		}
		if len(t.Projects) == 1 && t.Projects[0] != "*" {
			e.Project = t.Projects[0]
		}
	}
	if after != nil {
		e.Data = eventData(tokenJSON(*after, ""))
	}
	if before != nil {
		e.PreData = eventData(tokenJSON(*before, ""))
	}
	return e
}

// findAPIToken reads the token a path names: by its secret, as Unleash's
// paths take it; by the shown form the lists answer in secret, when it
// names one token; or by id. Personal tokens are not found here.
func findAPIToken(ctx context.Context, rd store.Reader, ref string) (store.APIToken, error) {
	t, err := rd.GetAPITokenByHash(ctx, store.HashSecret(ref))
	if apierr.Is(err, apierr.NotFound) && strings.HasSuffix(ref, "…") {
		t, err = findAPITokenByShownForm(ctx, rd, ref)
	}
	if id, perr := strconv.ParseInt(ref, 10, 64); perr == nil && apierr.Is(err, apierr.NotFound) {
		t, err = rd.GetAPIToken(ctx, id)
	}
	if err == nil && t.UserID != 0 {
		err = apierr.New(apierr.NotFound, "API token not found")
	}
	if apierr.Is(err, apierr.NotFound) {
		// A path that is not an id may be a secret (of a personal token,
		// say, or a mistyped one): it is never repeated, not even in part.
		if _, perr := strconv.ParseInt(ref, 10, 64); perr == nil {
			return t, apierr.New(apierr.NotFound, "there is no API token with id %s", ref)
		}
		return t, apierr.New(apierr.NotFound, "there is no API token with that secret")
	}
	return t, err
}

// findAPITokenByShownForm finds the one API token whose shown form is
// shown. Shown forms keep only a few characters of the secret, so two
// tokens of one scope may share one; then the whole secret must name it.
func findAPITokenByShownForm(ctx context.Context, rd store.Reader, shown string) (store.APIToken, error) {
	list, err := rd.ListAPITokens(ctx, store.APITokenFilter{})
	if err != nil {
		return store.APIToken{}, err
	}
	var found []store.APIToken
	for _, t := range list {
		if t.UserID == 0 && t.Prefix == shown {
			found = append(found, t)
		}
	}
	switch len(found) {
	case 0:
		return store.APIToken{}, apierr.New(apierr.NotFound, "API token not found")
	case 1:
		return found[0], nil
	}
	return store.APIToken{}, apierr.New(apierr.Conflict,
		"%d API tokens begin with these characters; name the token by its whole secret", len(found))
}

// handleUpdateAPIToken changes when a token expires (expiresAt; a past
// time ends it at once).
func (s *Server) handleUpdateAPIToken(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		ExpiresAt string `json:"expiresAt"`
	}
	if err := decode(w, r, &body); err != nil {
		return err
	}
	if body.ExpiresAt == "" {
		return apierr.Invalid("expiresAt", "expiresAt is required")
	}
	at, err := parseTimeField("expiresAt", body.ExpiresAt)
	if err != nil {
		return err
	}
	ctx := r.Context()
	var out TokenJSON
	err = s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		before, err := findAPIToken(ctx, tx, r.PathValue("token"))
		if err != nil {
			return nil, err
		}
		if err := mayManageToken(ctx, before.Type); err != nil {
			return nil, err
		}
		t := before
		t.ExpiresAt = &at
		updated, err := tx.UpdateAPIToken(ctx, t)
		if err != nil {
			return nil, err
		}
		out = tokenJSON(updated, "")
		return []store.Event{tokenEvent("api-token-updated", &updated, &before)}, nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleDeleteAPIToken(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	return s.answerEmptyOK(w, s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		t, err := findAPIToken(ctx, tx, r.PathValue("token"))
		if err != nil {
			return nil, err
		}
		if err := mayManageToken(ctx, t.Type); err != nil {
			return nil, err
		}
		if err := tx.DeleteAPIToken(ctx, t.ID); err != nil {
			return nil, err
		}
		return []store.Event{tokenEvent("api-token-deleted", nil, &t)}, nil
	}))
}

// maxPATs is how many personal access tokens one user may hold, as in
// Unleash.
const maxPATs = 10

// patJSON is Unleash's patSchema.
type patJSON struct {
	ID          int64      `json:"id"`
	Secret      string     `json:"secret,omitempty"`
	Description string     `json:"description"`
	UserID      int        `json:"userId"`
	CreatedAt   time.Time  `json:"createdAt"`
	SeenAt      *time.Time `json:"seenAt"`
	ExpiresAt   *time.Time `json:"expiresAt"`
}

func patResponse(t store.APIToken, secret string) patJSON {
	return patJSON{ID: t.ID, Secret: secret, Description: t.TokenName, UserID: t.UserID, CreatedAt: t.CreatedAt, SeenAt: t.SeenAt, ExpiresAt: t.ExpiresAt}
}

// userPATs lists the personal access tokens of a user.
func userPATs(ctx context.Context, rd store.Reader, userID int) ([]store.APIToken, error) {
	return rd.ListAPITokens(ctx, store.APITokenFilter{UserID: userID})
}

func (s *Server) handleListPATs(w http.ResponseWriter, r *http.Request) error {
	u, err := signedInUser(r.Context(), apierr.NoAccess)
	if err != nil {
		return err
	}
	var list []store.APIToken
	err = s.view(r.Context(), func(rd store.Reader) (err error) {
		list, err = userPATs(r.Context(), rd, u.ID)
		return err
	})
	if err != nil {
		return err
	}
	out := make([]patJSON, len(list))
	for i, t := range list {
		out[i] = patResponse(t, "")
	}
	return writeJSON(w, http.StatusOK, map[string]any{"pats": out})
}

// handleCreatePAT creates a personal access token for the signed-in user:
// it acts as that user on the admin API until it expires.
func (s *Server) handleCreatePAT(w http.ResponseWriter, r *http.Request) error {
	u, err := signedInUser(r.Context(), apierr.NoAccess)
	if err != nil {
		return err
	}
	var body struct {
		Description string `json:"description"`
		ExpiresAt   string `json:"expiresAt"`
	}
	if err := decode(w, r, &body); err != nil {
		return err
	}
	desc := strings.TrimSpace(body.Description)
	if desc == "" {
		return apierr.Invalid("description", "description is required")
	}
	if err := checkText("description", desc, 255); err != nil {
		return err
	}
	if body.ExpiresAt == "" {
		return apierr.Invalid("expiresAt", "expiresAt is required")
	}
	at, err := parseTimeField("expiresAt", body.ExpiresAt)
	if err != nil {
		return err
	}
	if !at.After(s.now()) {
		return apierr.Invalid("expiresAt", "expiresAt must be in the future")
	}
	ctx := r.Context()
	var out patJSON
	err = s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		mine, err := userPATs(ctx, tx, u.ID)
		if err != nil {
			return nil, err
		}
		if len(mine) >= maxPATs {
			return nil, apierr.New(apierr.OperationDenied, "you already have %d personal access tokens, the most one user may hold; delete one first", maxPATs)
		}
		for _, t := range mine {
			if t.TokenName == desc {
				return nil, apierr.New(apierr.NameExists, "you already have a personal access token described %q", desc)
			}
		}
		secret := newTokenSecret("user")
		secret = strings.Replace(secret, ".", ":", 1) // Unleash's form: user:<hex>
		t := store.APIToken{
			SecretHash: store.HashSecret(secret), Prefix: secret[:9] + "…", TokenName: desc, Type: store.TokenAdmin,
			Projects: []string{"*"}, Environment: "*", UserID: u.ID, ExpiresAt: &at,
		}
		created, err := tx.CreateAPIToken(ctx, t)
		if err != nil {
			return nil, err
		}
		out = patResponse(created, secret)
		return []store.Event{{Type: "pat-created", Data: eventData(patResponse(created, ""))}}, nil
	})
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/admin/user/tokens/"+strconv.FormatInt(out.ID, 10))
	return writeJSON(w, http.StatusCreated, out)
}

// handleDeletePAT deletes one of the signed-in user's personal tokens;
// other users' tokens are not found.
func (s *Server) handleDeletePAT(w http.ResponseWriter, r *http.Request) error {
	u, err := signedInUser(r.Context(), apierr.NoAccess)
	if err != nil {
		return err
	}
	// What is sent in place of the id may be the token's secret: it is not
	// repeated in the answer.
	id, err := strconv.Atoi(r.PathValue("id"))
	if err != nil || id < 0 {
		return apierr.Invalid("id", "id must be the token's numeric id, as GET /api/admin/user/tokens lists it")
	}
	ctx := r.Context()
	return s.answerEmptyOK(w, s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		t, err := tx.GetAPIToken(ctx, int64(id))
		if err == nil && t.UserID != u.ID {
			err = apierr.New(apierr.NotFound, "you have no personal access token %d", id)
		}
		if err != nil {
			return nil, err
		}
		if err := tx.DeleteAPIToken(ctx, t.ID); err != nil {
			return nil, err
		}
		return []store.Event{{Type: "pat-deleted", PreData: eventData(patResponse(t, ""))}}, nil
	}))
}
