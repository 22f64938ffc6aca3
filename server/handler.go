package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/internal/httpx"
	"github.com/signalbox/signalbox/store"
)

// handlerFunc is an HTTP handler that returns its error instead of writing
// it, so that statuses are chosen in one place (apierr).
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// maxBody bounds admin and SDK request bodies.
const maxBody = 2 << 20

// mux wraps ServeMux with the server's route registration helpers. Every
// route registered through them is also recorded in the server's route
// table, from which the OpenAPI document is built.
type mux struct {
	s *Server
	*http.ServeMux
	exact map[string]exactRoute // see exactRoutes
}

// Route describes one registered endpoint.
type Route struct {
	Pattern    string     // ServeMux pattern, "METHOD /path/{param}"
	Auth       string     // "admin", "client", "frontend" or "none"
	Permission Permission // for admin routes
}

func (m mux) record(pattern, auth string, perm Permission) {
	m.s.routeTable = append(m.s.routeTable, Route{Pattern: pattern, Auth: auth, Permission: perm})
}

// Routes lists every endpoint the server registered, in registration order.
func (s *Server) Routes() []Route { return s.routeTable }

// secretAnswers are the routes whose answers carry secrets or what stands
// for them: API tokens (the whole secret when created, its shown form in
// lists), personal access tokens, reset-password and invite links, and
// the tokens an Edge node validates. They are answered with
// Cache-Control: no-store, so that no browser or proxy cache keeps them.
var secretAnswers = map[string]bool{
	"GET /api/admin/api-tokens":                       true,
	"POST /api/admin/api-tokens":                      true,
	"GET /api/admin/api-tokens/{name}":                true,
	"PUT /api/admin/api-tokens/{token}":               true,
	"GET /api/admin/projects/{projectId}/api-tokens":  true,
	"POST /api/admin/projects/{projectId}/api-tokens": true,
	"GET /api/admin/user/tokens":                      true,
	"POST /api/admin/user/tokens":                     true,
	"POST /api/admin/user-admin/reset-password":       true,
	"GET " + inviteLinksPath:                          true,
	"POST " + inviteLinksPath:                         true,
	"GET " + inviteLinksPath + "/{token}":             true,
	"PUT " + inviteLinksPath + "/{token}":             true,
	"POST /edge/validate":                             true,
}

// Header values shared by every answer that carries them (net/http only
// reads them).
var (
	noStoreHeader = []string{"no-store"}
	nosniffHeader = []string{"nosniff"}
	hstsHeader    = []string{"max-age=31536000"}
)

// markNoStore sets Cache-Control: no-store on the answers of the secret
// routes.
func markNoStore(pattern string, h http.Handler) http.Handler {
	if !secretAnswers[pattern] {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Cache-Control"] = noStoreHeader
		h.ServeHTTP(w, r)
	})
}

// securityHeaders is the middleware that gives every answer
// X-Content-Type-Options: nosniff, so that no browser reads an answer as
// another type than it says, and, when the server is reached over HTTPS
// (SecureCookies), Strict-Transport-Security, so that browsers keep to
// HTTPS for a year.
func (s *Server) securityHeaders(next http.Handler) http.Handler {
	hsts := s.cfg.SecureCookies
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["X-Content-Type-Options"] = nosniffHeader
		if hsts {
			h["Strict-Transport-Security"] = hstsHeader
		}
		next.ServeHTTP(w, r)
	})
}

// admin registers an admin route that needs perm (see authorize). The
// principal is put in the request context for the handler.
func (m mux) admin(pattern string, perm Permission, h handlerFunc) {
	m.record(pattern, "admin", perm)
	s := m.s
	m.Handle(pattern, markNoStore(pattern, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := s.authenticateAdmin(r)
		if err == nil {
			err = s.checkCookieWrite(r, p)
		}
		if err == nil {
			err = s.checkProjectSight(r, p)
		}
		if err == nil {
			err = s.authorize(r, p, perm)
		}
		if err == nil {
			err = s.refuseInMaintenance(r, pattern)
		}
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		if err := h(w, r.WithContext(withPrincipal(r.Context(), p))); err != nil {
			s.writeError(w, r, err)
		}
	})))
}

// adminCatchAll is admin without recording the route.
func (m mux) adminCatchAll(pattern string, perm Permission, h handlerFunc) {
	n := len(m.s.routeTable)
	m.admin(pattern, perm, h)
	m.s.routeTable = m.s.routeTable[:n]
}

// public registers a route that needs no authentication.
func (m mux) public(pattern string, h handlerFunc) {
	m.record(pattern, "none", "")
	s := m.s
	m.Handle(pattern, markNoStore(pattern, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			s.writeError(w, r, err)
		}
	})))
}

// authorize checks that p holds perm for request r: at root level, or, on
// the routes of one project (with {projectId} in the pattern), through a
// project role the user holds there, directly or through a group.
func (s *Server) authorize(r *http.Request, p *Principal, perm Permission) error {
	if p.can(perm) {
		return nil
	}
	project, environment := r.PathValue("projectId"), r.PathValue("environment")
	if p.User == nil || (project == "" && r.PathValue("featureName") == "") {
		return noAccess(perm, environment)
	}
	var grants []store.ProjectAccess
	err := s.view(r.Context(), func(rd store.Reader) error {
		// Routes that name a flag but not its project (tags, the archive)
		// are in the flag's project.
		if project == "" {
			f, err := rd.GetFeature(r.Context(), r.PathValue("featureName"))
			if err != nil {
				return err
			}
			project = f.Project
		}
		var err error
		grants, err = rd.UserProjectRoles(r.Context(), p.User.ID, project)
		return err
	})
	if apierr.Is(err, apierr.NotFound) {
		return noAccess(perm, environment)
	}
	if err != nil {
		return err
	}
	for _, g := range grants {
		if projectRoleAllows(g.RoleID, perm) {
			return nil
		}
	}
	if environment != "" {
		return apierr.New(apierr.NoAccess, "you need permission %s in environment %s of project %s to do this", perm, environment, project)
	}
	return apierr.New(apierr.NoAccess, "you need permission %s in project %s to do this", perm, project)
}

func noAccess(perm Permission, environment string) error {
	if environment != "" {
		return apierr.New(apierr.NoAccess, "you need permission %s in environment %s to do this", perm, environment)
	}
	return apierr.New(apierr.NoAccess, "you need permission %s to do this", perm)
}

func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	apierr.Write(w, r, s.log, databaseError(w, err))
}

// databaseRetryAfter is the Retry-After of answers while the database does
// not answer, in seconds: the revision poll notices its return about as
// fast.
const databaseRetryAfter = "5"

// databaseError turns a failure of the database itself into the answer
// that says so: 503 with Retry-After while it does not answer, 507 when it
// refused a write for lack of disk space. The answer names the kind of
// database; its location, which callers need not know, is logged. Other
// errors pass unchanged.
func databaseError(w http.ResponseWriter, err error) error {
	var de *store.DatabaseError
	if !errors.As(err, &de) {
		return err
	}
	switch {
	case errors.Is(de, store.ErrDiskFull):
		return apierr.Wrap(apierr.InsufficientStorage, err,
			"the disk of the %s database is full: changes cannot be saved until space is freed; reads still work", de.Engine)
	case errors.Is(de, store.ErrUnavailable):
		w.Header().Set("Retry-After", databaseRetryAfter)
		return apierr.Wrap(apierr.DatabaseUnavailable, err, "the %s database is not reachable; try again later", de.Engine)
	}
	return err
}

// decode reads a JSON request body into dst with the shared limits and
// error kinds (415 wrong content type, 413 too large, 400 malformed or
// empty: every admin body has required fields).
func decode(w http.ResponseWriter, r *http.Request, dst any) error {
	return httpx.DecodeJSON(w, r, dst, maxBody)
}

// writeJSON answers with v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	return httpx.WriteJSON(w, status, v)
}

// change runs fn in one store transaction and records the audit events fn
// returns in the same transaction; the local revision moves forward once it
// commits, so the client API serves the change at once.
func (s *Server) change(ctx context.Context, fn func(tx store.Tx) ([]store.Event, error)) error {
	p := principalFrom(ctx)
	err := s.store.Update(ctx, func(tx store.Tx) error {
		events, err := fn(tx)
		if err != nil {
			return err
		}
		for _, e := range events {
			if e.CreatedBy == "" {
				e.CreatedBy = p.Name()
			}
			if e.CreatedByUserID == 0 {
				e.CreatedByUserID = p.UserID()
			}
			if _, err := tx.AppendEvent(ctx, e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		if errors.Is(err, store.ErrDiskFull) {
			s.noteWrite(err)
		}
		return err
	}
	s.noteWrite(nil)
	if rev, err := s.store.Revision(ctx); err == nil {
		s.raiseRevision(rev)
	}
	return nil
}

// view runs fn in a read transaction.
func (s *Server) view(ctx context.Context, fn func(r store.Reader) error) error {
	return s.store.View(ctx, fn)
}

// eventData marshals v for an event's data or preData; nil stays nil.
func eventData(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}
