package server

// A project's own API tokens (/api/admin/projects/{projectId}/api-tokens):
// client and frontend tokens of that one project, which a project's Owner
// manages from the project page.

import (
	"net/http"
	"slices"
	"strings"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

func registerProjectAPITokens(s *Server, m mux) {
	m.admin("GET /api/admin/projects/{projectId}/api-tokens", PermReadAPIToken, s.handleListProjectAPITokens)
	m.admin("POST /api/admin/projects/{projectId}/api-tokens", PermCreateAPIToken, s.handleCreateProjectAPIToken)
	m.admin("DELETE /api/admin/projects/{projectId}/api-tokens/{token}", PermDeleteAPIToken, s.handleDeleteProjectAPIToken)
}

// ofProjectOnly reports whether a token serves exactly this one project.
func ofProjectOnly(t store.APIToken, project string) bool {
	return t.UserID == 0 && len(t.Projects) == 1 && t.Projects[0] == project
}

// handleListProjectAPITokens is Unleash's getProjectApiTokens: the tokens
// of this project alone (tokens of several projects or of all are managed
// at /api/admin/api-tokens). Secrets are never shown. 404 for an unknown
// project.
func (s *Server) handleListProjectAPITokens(w http.ResponseWriter, r *http.Request) error {
	ctx, project := r.Context(), r.PathValue("projectId")
	out := []TokenJSON{}
	err := s.view(ctx, func(rd store.Reader) error {
		if _, err := rd.GetProject(ctx, project); err != nil {
			return err
		}
		list, err := rd.ListAPITokens(ctx, store.APITokenFilter{})
		for _, t := range list {
			if ofProjectOnly(t, project) {
				out = append(out, tokenJSON(t, ""))
			}
		}
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]any{"tokens": out})
}

// handleCreateProjectAPIToken is Unleash's createProjectApiToken: a client
// (backend) or frontend token of this project alone; the body's project
// or projects, if any, must name only it. Event api-token-created. 201
// with the token and its secret, shown this once.
func (s *Server) handleCreateProjectAPIToken(w http.ResponseWriter, r *http.Request) error {
	var body apiTokenBody
	if err := decode(w, r, &body); err != nil {
		return err
	}
	project := r.PathValue("projectId")
	if (body.Project != "" && body.Project != project) || slices.ContainsFunc(body.Projects, func(p string) bool { return p != project }) {
		return apierr.Invalid("projects", "a token created here serves project %s alone; create tokens of other projects at /api/admin/api-tokens", project)
	}
	switch strings.ToLower(strings.TrimSpace(body.Type)) {
	case "client", "backend", "frontend":
	default:
		return apierr.Invalid("type", "a project's token is of type client (backend) or frontend, not %q", body.Type)
	}
	body.Project, body.Projects = "", []string{project}
	ctx := r.Context()
	var out TokenJSON
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		if _, err := tx.GetProject(ctx, project); err != nil {
			return nil, err
		}
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

// handleDeleteProjectAPIToken is Unleash's deleteProjectApiToken: the
// token (by secret or id) is deleted when it serves this project alone;
// 404 for a token of other projects, and 200 for one that does not exist,
// as in Unleash (then without an event). Event api-token-deleted.
func (s *Server) handleDeleteProjectAPIToken(w http.ResponseWriter, r *http.Request) error {
	ctx, project := r.Context(), r.PathValue("projectId")
	return s.answerEmptyOK(w, s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		if _, err := tx.GetProject(ctx, project); err != nil {
			return nil, err
		}
		t, err := findAPIToken(ctx, tx, r.PathValue("token"))
		if apierr.Is(err, apierr.NotFound) {
			return nil, nil
		} else if err != nil {
			return nil, err
		}
		if !ofProjectOnly(t, project) {
			return nil, apierr.New(apierr.NotFound, "that API token does not serve project %s alone; delete it at /api/admin/api-tokens", project)
		}
		if err := tx.DeleteAPIToken(ctx, t.ID); err != nil {
			return nil, err
		}
		return []store.Event{tokenEvent("api-token-deleted", nil, &t)}, nil
	}))
}
