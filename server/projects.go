package server

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// Projects: /api/admin/projects. Unleash's open-source build has only the
// listing; creating, reading, changing and deleting one project follow the
// enterprise API so that its tooling (Terraform provider, scripts) works.
// The flags of a project (…/projects/{projectId}/features) live in another
// area.

func registerProjects(s *Server, m mux) {
	m.admin("GET /api/admin/projects", PermRead, s.handleListProjects)
	m.admin("POST /api/admin/projects", PermCreateProject, s.handleCreateProject)
	m.admin("GET /api/admin/projects/{projectId}", PermRead, s.handleGetProject)
	m.admin("PUT /api/admin/projects/{projectId}", PermUpdateProject, s.handleUpdateProject)
	m.admin("DELETE /api/admin/projects/{projectId}", PermDeleteProject, s.handleDeleteProject)
}

// projectJSON is a project as answers and audit events show it.
type projectJSON struct {
	ID                string     `json:"id"`
	Name              string     `json:"name"`
	Description       *string    `json:"description"`
	Mode              string     `json:"mode"`
	DefaultStickiness string     `json:"defaultStickiness"`
	FeatureLimit      *int       `json:"featureLimit"`
	CreatedAt         time.Time  `json:"createdAt"`
	UpdatedAt         *time.Time `json:"updatedAt"`
	// Environments is filled where one project is shown.
	Environments []projectEnvironmentJSON `json:"environments,omitempty"`
}

// projectListItem adds the counts the project list shows. Members are the
// users who hold a project role there, themselves or through a group.
type projectListItem struct {
	projectJSON
	// Health is the share of the active flags that are neither stale nor
	// past their type's lifetime, as the project health report counts it.
	Health       int  `json:"health"`
	FeatureCount int  `json:"featureCount"`
	MemberCount  int  `json:"memberCount"`
	Favorite     bool `json:"favorite"`
}

// projectSummary is a project as the project list shows it: Unleash's
// projectSchema, which leaves out the feature limit and environments.
type projectSummary struct {
	ID                string     `json:"id"`
	Name              string     `json:"name"`
	Description       *string    `json:"description"`
	Mode              string     `json:"mode"`
	DefaultStickiness string     `json:"defaultStickiness"`
	CreatedAt         time.Time  `json:"createdAt"`
	UpdatedAt         *time.Time `json:"updatedAt"`
	Health            int        `json:"health"`
	// TechnicalDebt is 100 minus Health, as Unleash reports it.
	TechnicalDebt int  `json:"technicalDebt"`
	FeatureCount  int  `json:"featureCount"`
	MemberCount   int  `json:"memberCount"`
	Favorite      bool `json:"favorite"`
}

func projectResponse(p store.Project) projectJSON {
	return projectJSON{
		ID: p.ID, Name: p.Name, Description: nullable(p.Description), Mode: p.Mode,
		DefaultStickiness: p.DefaultStickiness, FeatureLimit: p.FeatureLimit, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt,
	}
}

func (s *Server) handleListProjects(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	var items []projectSummary
	sight, err := s.sightOf(ctx)
	if err != nil {
		return err
	}
	err = s.view(ctx, func(rd store.Reader) error {
		projects, err := rd.ListProjects(ctx)
		if err != nil {
			return err
		}
		projects = filterSeen(sight, projects, func(p store.Project) string { return p.ID })
		active := false
		features, err := rd.ListFeatures(ctx, store.FeatureFilter{Archived: &active})
		if err != nil {
			return err
		}
		health, err := projectsHealth(ctx, rd, features, s.now())
		if err != nil {
			return err
		}
		members, err := projectMemberCounts(ctx, rd)
		if err != nil {
			return err
		}
		favs, err := readFavorites(ctx, rd, principalFrom(ctx).UserID())
		if err != nil {
			return err
		}
		items = make([]projectSummary, 0, len(projects))
		for _, p := range projects {
			h := health[p.ID]
			items = append(items, projectSummary{
				ID: p.ID, Name: p.Name, Description: nullable(p.Description), Mode: p.Mode, DefaultStickiness: p.DefaultStickiness,
				CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt, Health: h.rating(), TechnicalDebt: 100 - h.rating(),
				FeatureCount: h.active, MemberCount: members[p.ID], Favorite: slices.Contains(favs.Projects, p.ID),
			})
		}
		return nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]any{"version": 1, "projects": items})
}

func (s *Server) handleGetProject(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	id := r.PathValue("projectId")
	var item projectListItem
	err := s.view(ctx, func(rd store.Reader) error {
		p, err := rd.GetProject(ctx, id)
		if err != nil {
			return err
		}
		item.projectJSON = projectResponse(p)
		if item.Environments, err = projectEnvironmentsOf(ctx, rd, id); err != nil {
			return err
		}
		active := false
		features, err := rd.ListFeatures(ctx, store.FeatureFilter{Project: id, Archived: &active})
		if err != nil {
			return err
		}
		item.FeatureCount = len(features)
		members, err := projectMemberCounts(ctx, rd)
		item.MemberCount = members[id]
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, item)
}

// projectBody is the body of POST and PUT. Every field is optional on PUT,
// where only the fields sent change.
type projectBody struct {
	ID                bodyField[string]   `json:"id"`
	Name              bodyField[string]   `json:"name"`
	Description       bodyField[string]   `json:"description"`
	Mode              bodyField[string]   `json:"mode"`
	DefaultStickiness bodyField[string]   `json:"defaultStickiness"`
	FeatureLimit      bodyField[*int]     `json:"featureLimit"`
	Environments      bodyField[[]string] `json:"environments"`
}

// apply copies the sent fields onto p and checks the result.
func (b projectBody) apply(p *store.Project) error {
	if b.Name.Sent {
		p.Name = strings.TrimSpace(b.Name.V)
	}
	if b.Description.Sent {
		p.Description = b.Description.V
	}
	if b.Mode.Sent && b.Mode.V != "" {
		p.Mode = b.Mode.V
	}
	if b.DefaultStickiness.Sent && b.DefaultStickiness.V != "" {
		p.DefaultStickiness = b.DefaultStickiness.V
	}
	if b.FeatureLimit.Sent {
		p.FeatureLimit = b.FeatureLimit.V
	}
	switch {
	case p.Name == "":
		return apierr.Invalid("name", "name is required and must not be empty")
	case p.Mode != "" && p.Mode != "open" && p.Mode != "protected" && p.Mode != "private":
		return apierr.Invalid("mode", "mode must be open, protected or private, not %q", p.Mode)
	case p.FeatureLimit != nil && *p.FeatureLimit < 0:
		return apierr.Invalid("featureLimit", "featureLimit must not be negative; send null for no limit")
	}
	if err := checkText("name", p.Name, 100); err != nil {
		return err
	}
	if err := checkText("description", p.Description, 1000); err != nil {
		return err
	}
	return checkText("defaultStickiness", p.DefaultStickiness, 100)
}

// projectIDFromName derives a URL-friendly id from a name, as Unleash does
// when a project is created without an id.
func projectIDFromName(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		ok := r < utf8.RuneSelf && urlNameRe.MatchString(string(r))
		if ok {
			b.WriteRune(r)
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
		}
		dash = !ok
	}
	return strings.Trim(b.String(), "-")
}

// handleCreateProject creates a project. Without an environments list it
// gets every enabled environment, as new Unleash projects do.
func (s *Server) handleCreateProject(w http.ResponseWriter, r *http.Request) error {
	var body projectBody
	if err := decode(w, r, &body); err != nil {
		return err
	}
	p := store.Project{ID: strings.TrimSpace(body.ID.V)}
	if !body.Name.Sent {
		body.Name = bodyField[string]{Sent: true, V: p.ID}
	}
	if err := body.apply(&p); err != nil {
		return err
	}
	if p.ID == "" {
		p.ID = projectIDFromName(p.Name)
	}
	if err := checkURLName("id", p.ID, 1, 100); err != nil {
		return err
	}
	ctx := r.Context()
	var out projectJSON
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		envs, err := projectCreateEnvironments(ctx, tx, body.Environments.V)
		if err != nil {
			return nil, err
		}
		created, err := tx.CreateProject(ctx, p)
		if err != nil {
			return nil, err
		}
		for _, env := range envs {
			if err := tx.CreateProjectEnvironment(ctx, store.ProjectEnvironment{Project: created.ID, Environment: env}); err != nil {
				return nil, err
			}
		}
		out = projectResponse(created)
		if out.Environments, err = projectEnvironmentsOf(ctx, tx, created.ID); err != nil {
			return nil, err
		}
		owner, err := ownerOfNewProject(ctx, tx, created.ID)
		if err != nil {
			return nil, err
		}
		return append([]store.Event{{Type: "project-created", Project: created.ID, Data: eventData(out)}}, owner...), nil
	})
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/admin/projects/"+out.ID)
	return writeJSON(w, http.StatusCreated, out)
}

// projectCreateEnvironments checks the environments asked for, or picks the
// enabled ones when none were named.
func projectCreateEnvironments(ctx context.Context, rd store.Reader, asked []string) ([]string, error) {
	if len(asked) == 0 {
		all, err := rd.ListEnvironments(ctx)
		var names []string
		for _, e := range all {
			if e.Enabled {
				names = append(names, e.Name)
			}
		}
		return names, err
	}
	seen := map[string]bool{}
	var names []string
	for _, name := range asked {
		if _, err := rd.GetEnvironment(ctx, name); apierr.Is(err, apierr.NotFound) {
			return nil, apierr.Invalid("environments", "environment %q does not exist", name)
		} else if err != nil {
			return nil, err
		}
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	return names, nil
}

func (s *Server) handleUpdateProject(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("projectId")
	var body projectBody
	if err := decode(w, r, &body); err != nil {
		return err
	}
	if body.ID.Sent && body.ID.V != "" && body.ID.V != id {
		return apierr.Invalid("id", "the id in the body (%q) differs from the project in the path (%q); project ids cannot change", body.ID.V, id)
	}
	ctx := r.Context()
	var out projectJSON
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		before, err := tx.GetProject(ctx, id)
		if err != nil {
			return nil, err
		}
		p := before
		p.UpdatedAt = nil
		if err := body.apply(&p); err != nil {
			return nil, err
		}
		updated, err := tx.UpdateProject(ctx, p)
		if err != nil {
			return nil, err
		}
		out = projectResponse(updated)
		return []store.Event{{Type: "project-updated", Project: id, Data: eventData(out), PreData: eventData(projectResponse(before))}}, nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

// handleDeleteProject deletes an empty project. The default project stays,
// as in Unleash; so does a project that still has flags (archived ones
// included) or API tokens scoped to it, which would otherwise be left
// pointing nowhere.
func (s *Server) handleDeleteProject(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("projectId")
	if id == store.DefaultProject {
		return apierr.New(apierr.BadData, "the default project cannot be deleted")
	}
	ctx := r.Context()
	return s.answerEmptyOK(w, s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		p, err := tx.GetProject(ctx, id)
		if err != nil {
			return nil, err
		}
		features, err := tx.ListFeatures(ctx, store.FeatureFilter{Project: id})
		if err != nil {
			return nil, err
		}
		if len(features) > 0 {
			return nil, apierr.New(apierr.BadData,
				"project %q still has %d flag(s), archived ones included; move or delete them before deleting the project", id, len(features))
		}
		tokens, err := tx.ListAPITokens(ctx, store.APITokenFilter{})
		if err != nil {
			return nil, err
		}
		for _, t := range tokens {
			if contains(t.Projects, id) {
				return nil, apierr.New(apierr.BadData,
					"API token %q is scoped to project %q; delete it before deleting the project", t.TokenName, id)
			}
		}
		if err := tx.DeleteProject(ctx, id); err != nil {
			return nil, err
		}
		return []store.Event{{Type: "project-deleted", Project: id, PreData: eventData(projectResponse(p))}}, nil
	}))
}

// answerEmptyOK answers a successful change with 200 and no body, as Unleash
// does for deletions and for enabling environments in projects.
func (s *Server) answerEmptyOK(w http.ResponseWriter, err error) error {
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

// Validation helpers shared by the admin areas of projects, environments,
// segments, context fields, tag types, strategy definitions, users, tokens
// and events.

// urlNameRe is what names that appear in URLs may contain: project ids and
// the names of environments, context fields, tag types and strategies.
var urlNameRe = regexp.MustCompile(`^[A-Za-z0-9_.~-]+$`)

// checkURLName checks a name that is used in URLs: min to max characters,
// URL-friendly.
func checkURLName(field, v string, min, max int) error {
	n := utf8.RuneCountInString(v)
	switch {
	case v == "":
		return apierr.Invalid(field, "%s is required", field)
	case n < min || n > max:
		return apierr.Invalid(field, "%s must be %d to %d characters long", field, min, max)
	case !urlNameRe.MatchString(v):
		return apierr.Invalid(field, "%s %q must be URL-friendly: letters, digits, '-', '_', '.' and '~' only", field, v)
	}
	return nil
}

// checkText refuses free text that is too long or holds a NUL character,
// which PostgreSQL cannot store.
func checkText(field, v string, max int) error {
	if utf8.RuneCountInString(v) > max {
		return apierr.Invalid(field, "%s must be at most %d characters long", field, max)
	}
	if strings.ContainsRune(v, 0) {
		return apierr.Invalid(field, "%s must not contain NUL characters", field)
	}
	return nil
}

// pathInt reads an integer path parameter; anything else is a 400 naming
// the parameter.
func pathInt(r *http.Request, name string) (int, error) {
	v := r.PathValue(name)
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, apierr.Invalid(name, "%s must be a non-negative integer, not %q", name, v)
	}
	return n, nil
}

// bodyField is an optional body property: Sent tells whether the body had
// it at all, so that updates change only what was sent. null counts as
// sent, with the zero value.
type bodyField[T any] struct {
	Sent bool
	V    T
}

func (f *bodyField[T]) UnmarshalJSON(b []byte) error {
	f.Sent = true
	if string(b) == "null" {
		var zero T
		f.V = zero
		return nil
	}
	return json.Unmarshal(b, &f.V)
}
