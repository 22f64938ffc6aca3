package server

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// Environments: the deployment stages flags are switched in, and which of
// them each project uses (with the strategy a flag gets when it is switched
// on there without one).

func registerEnvironments(s *Server, m mux) {
	m.admin("GET /api/admin/environments", PermRead, s.handleListEnvironments)
	m.admin("POST /api/admin/environments", PermCreateEnvironment, s.handleCreateEnvironment)
	m.admin("PUT /api/admin/environments/sort-order", PermUpdateEnvironment, s.handleSortEnvironments)
	m.admin("GET /api/admin/environments/project/{projectId}", PermRead, s.handleListProjectEnvironments)
	m.admin("GET /api/admin/environments/{name}", PermRead, s.handleGetEnvironment)
	m.admin("PUT /api/admin/environments/{name}", PermUpdateEnvironment, s.handleUpdateEnvironment)
	m.admin("DELETE /api/admin/environments/{name}", PermDeleteEnvironment, s.handleDeleteEnvironment)
	m.admin("POST /api/admin/environments/{name}/on", PermUpdateEnvironment, s.handleToggleEnvironment(true))
	m.admin("POST /api/admin/environments/{name}/off", PermUpdateEnvironment, s.handleToggleEnvironment(false))

	m.admin("POST /api/admin/projects/{projectId}/environments", PermUpdateProject, s.handleAddProjectEnvironment)
	m.admin("DELETE /api/admin/projects/{projectId}/environments/{environment}", PermUpdateProject, s.handleRemoveProjectEnvironment)
	m.admin("POST /api/admin/projects/{projectId}/environments/{environment}/default-strategy", PermUpdateProject, s.handleSetDefaultStrategy)
}

type environmentJSON struct {
	Name      string `json:"name"`
	Type      string `json:"type"`
	Enabled   bool   `json:"enabled"`
	Protected bool   `json:"protected"`
	SortOrder int    `json:"sortOrder"`
}

func environmentResponse(e store.Environment) environmentJSON {
	return environmentJSON{Name: e.Name, Type: e.Type, Enabled: e.Enabled, Protected: e.Protected, SortOrder: e.SortOrder}
}

func (s *Server) handleListEnvironments(w http.ResponseWriter, r *http.Request) error {
	var list []store.Environment
	err := s.view(r.Context(), func(rd store.Reader) (err error) {
		list, err = rd.ListEnvironments(r.Context())
		return err
	})
	if err != nil {
		return err
	}
	out := make([]environmentJSON, len(list))
	for i, e := range list {
		out[i] = environmentResponse(e)
	}
	return writeJSON(w, http.StatusOK, map[string]any{"version": 1, "environments": out})
}

func (s *Server) handleGetEnvironment(w http.ResponseWriter, r *http.Request) error {
	var e store.Environment
	err := s.view(r.Context(), func(rd store.Reader) (err error) {
		e, err = rd.GetEnvironment(r.Context(), r.PathValue("name"))
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, environmentResponse(e))
}

// environmentBody is the body of POST and PUT; on PUT only the fields sent
// change.
type environmentBody struct {
	Name      bodyField[string] `json:"name"`
	Type      bodyField[string] `json:"type"`
	Enabled   bodyField[bool]   `json:"enabled"`
	SortOrder bodyField[int]    `json:"sortOrder"`
}

func (b environmentBody) apply(e *store.Environment) error {
	if b.Type.Sent {
		e.Type = strings.TrimSpace(b.Type.V)
	}
	if b.Enabled.Sent {
		e.Enabled = b.Enabled.V
	}
	if b.SortOrder.Sent {
		e.SortOrder = b.SortOrder.V
	}
	if e.Type == "" {
		return apierr.Invalid("type", "type is required, such as development, test, preproduction or production")
	}
	return checkText("type", e.Type, 100)
}

func (s *Server) handleCreateEnvironment(w http.ResponseWriter, r *http.Request) error {
	var body environmentBody
	if err := decode(w, r, &body); err != nil {
		return err
	}
	e := store.Environment{Name: strings.TrimSpace(body.Name.V), Enabled: true}
	if err := checkURLName("name", e.Name, 1, 100); err != nil {
		return err
	}
	if err := body.apply(&e); err != nil {
		return err
	}
	ctx := r.Context()
	var out environmentJSON
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		if !body.SortOrder.Sent { // after the last one
			all, err := tx.ListEnvironments(ctx)
			if err != nil {
				return nil, err
			}
			for _, x := range all {
				e.SortOrder = max(e.SortOrder, x.SortOrder+1)
			}
		}
		created, err := tx.CreateEnvironment(ctx, e)
		if err != nil {
			return nil, err
		}
		out = environmentResponse(created)
		return []store.Event{{Type: "environment-created", Environment: created.Name, Data: eventData(out)}}, nil
	})
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/admin/environments/"+out.Name)
	return writeJSON(w, http.StatusCreated, out)
}

// handleUpdateEnvironment changes type, sort order or enabled. Protected
// environments cannot be changed, as in Unleash.
func (s *Server) handleUpdateEnvironment(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("name")
	var body environmentBody
	if err := decode(w, r, &body); err != nil {
		return err
	}
	if body.Name.Sent && body.Name.V != "" && body.Name.V != name {
		return apierr.Invalid("name", "environments cannot be renamed (%q in the body, %q in the path)", body.Name.V, name)
	}
	var out environmentJSON
	err := s.updateEnvironment(r.Context(), name, func(e *store.Environment) error { return body.apply(e) }, &out)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

// updateEnvironment changes one environment with fn and records
// environment-updated; nothing is written when fn changes nothing.
func (s *Server) updateEnvironment(ctx context.Context, name string, fn func(*store.Environment) error, out *environmentJSON) error {
	return s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		before, err := tx.GetEnvironment(ctx, name)
		if err != nil {
			return nil, err
		}
		if before.Protected {
			return nil, apierr.New(apierr.BadData, "environment %q is protected and cannot be changed", name)
		}
		e := before
		if err := fn(&e); err != nil {
			return nil, err
		}
		*out = environmentResponse(e)
		if e == before {
			return nil, nil
		}
		updated, err := tx.UpdateEnvironment(ctx, e)
		if err != nil {
			return nil, err
		}
		*out = environmentResponse(updated)
		return []store.Event{{Type: "environment-updated", Environment: name,
			Data: eventData(*out), PreData: eventData(environmentResponse(before))}}, nil
	})
}

func (s *Server) handleToggleEnvironment(on bool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		var out environmentJSON
		err := s.updateEnvironment(r.Context(), r.PathValue("name"), func(e *store.Environment) error {
			e.Enabled = on
			return nil
		}, &out)
		if err != nil {
			return err
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
}

// handleSortEnvironments sets the sort order of the named environments
// ({"development": 1, "production": 2}); one event records the whole change.
func (s *Server) handleSortEnvironments(w http.ResponseWriter, r *http.Request) error {
	var order map[string]int
	if err := decode(w, r, &order); err != nil {
		return err
	}
	ctx := r.Context()
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		changed := map[string]int{}
		for name, pos := range order {
			e, err := tx.GetEnvironment(ctx, name)
			if err != nil {
				return nil, err
			}
			if e.SortOrder == pos {
				continue
			}
			e.SortOrder = pos
			if _, err := tx.UpdateEnvironment(ctx, e); err != nil {
				return nil, err
			}
			changed[name] = pos
		}
		if len(changed) == 0 {
			return nil, nil
		}
		return []store.Event{{Type: "environment-updated", Data: eventData(map[string]any{"sortOrder": changed})}}, nil
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

// handleDeleteEnvironment deletes an environment with every flag setting in
// it. Protected environments stay, and so do environments that API tokens
// are bound to: those SDKs would silently lose their flags.
func (s *Server) handleDeleteEnvironment(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("name")
	ctx := r.Context()
	return s.answerEmptyOK(w, s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		e, err := tx.GetEnvironment(ctx, name)
		if err != nil {
			return nil, err
		}
		if e.Protected {
			return nil, apierr.New(apierr.BadData, "environment %q is protected and cannot be deleted", name)
		}
		if err := checkRequirementKept(ctx, tx, principalFrom(ctx), "", name); err != nil {
			return nil, err
		}
		tokens, err := tx.ListAPITokens(ctx, store.APITokenFilter{})
		if err != nil {
			return nil, err
		}
		for _, t := range tokens {
			if t.Environment == name {
				return nil, apierr.New(apierr.BadData,
					"API token %q is bound to environment %q; delete it before deleting the environment", t.TokenName, name)
			}
		}
		if err := tx.DeleteEnvironment(ctx, name); err != nil {
			return nil, err
		}
		return []store.Event{{Type: "environment-deleted", Environment: name, PreData: eventData(environmentResponse(e))}}, nil
	}))
}

// projectEnvironmentJSON is an environment as a project uses it.
type projectEnvironmentJSON struct {
	Environment           string                  `json:"environment"`
	ChangeRequestsEnabled bool                    `json:"changeRequestsEnabled"`
	DefaultStrategy       *store.StrategyTemplate `json:"defaultStrategy,omitempty"`
}

func projectEnvironmentsOf(ctx context.Context, rd store.Reader, project string) ([]projectEnvironmentJSON, error) {
	list, err := rd.ListProjectEnvironments(ctx, project)
	if err != nil {
		return nil, err
	}
	configs, err := rd.ListChangeRequestConfigs(ctx, project)
	if err != nil {
		return nil, err
	}
	changeRequests := map[string]bool{}
	for _, c := range configs {
		changeRequests[c.Environment] = c.Enabled
	}
	out := make([]projectEnvironmentJSON, len(list))
	for i, pe := range list {
		out[i] = projectEnvironmentJSON{Environment: pe.Environment, ChangeRequestsEnabled: changeRequests[pe.Environment],
			DefaultStrategy: normalizedTemplate(pe.DefaultStrategy)}
	}
	return out, nil
}

// handleListProjectEnvironments lists every environment, marking those the
// project uses (Unleash's environmentsProjectSchema).
func (s *Server) handleListProjectEnvironments(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	project := r.PathValue("projectId")
	type item struct {
		environmentJSON
		Visible         bool                    `json:"visible"`
		DefaultStrategy *store.StrategyTemplate `json:"defaultStrategy,omitempty"`
	}
	var out []item
	err := s.view(ctx, func(rd store.Reader) error {
		used, err := rd.ListProjectEnvironments(ctx, project)
		if err != nil {
			return err
		}
		all, err := rd.ListEnvironments(ctx)
		if err != nil {
			return err
		}
		for _, e := range all {
			it := item{environmentJSON: environmentResponse(e), Visible: true}
			it.Enabled = false
			for _, pe := range used {
				if pe.Environment == e.Name {
					it.Enabled, it.DefaultStrategy = true, normalizedTemplate(pe.DefaultStrategy)
				}
			}
			out = append(out, it)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]any{"version": 1, "environments": out})
}

// handleAddProjectEnvironment enables an environment for a project.
func (s *Server) handleAddProjectEnvironment(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Environment     string                  `json:"environment"`
		DefaultStrategy *store.StrategyTemplate `json:"defaultStrategy"`
	}
	if err := decode(w, r, &body); err != nil {
		return err
	}
	if body.Environment == "" {
		return apierr.Invalid("environment", "environment is required")
	}
	project := r.PathValue("projectId")
	ctx := r.Context()
	return s.answerEmptyOK(w, s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		if _, err := tx.GetProject(ctx, project); err != nil {
			return nil, err
		}
		if _, err := tx.GetEnvironment(ctx, body.Environment); err != nil {
			return nil, err
		}
		if body.DefaultStrategy != nil {
			if err := checkStrategyTemplate(ctx, tx, "defaultStrategy", body.DefaultStrategy); err != nil {
				return nil, err
			}
		}
		pe := store.ProjectEnvironment{Project: project, Environment: body.Environment, DefaultStrategy: body.DefaultStrategy}
		if err := tx.CreateProjectEnvironment(ctx, pe); err != nil {
			return nil, err
		}
		data := projectEnvironmentJSON{Environment: pe.Environment, DefaultStrategy: normalizedTemplate(pe.DefaultStrategy)}
		return []store.Event{{Type: "project-environment-added", Project: project, Environment: pe.Environment, Data: eventData(data)}}, nil
	}))
}

// handleRemoveProjectEnvironment disables an environment for a project. The
// flags keep their settings there, for when it is enabled again. A project
// keeps at least one environment.
func (s *Server) handleRemoveProjectEnvironment(w http.ResponseWriter, r *http.Request) error {
	project, env := r.PathValue("projectId"), r.PathValue("environment")
	ctx := r.Context()
	return s.answerEmptyOK(w, s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		list, err := tx.ListProjectEnvironments(ctx, project)
		if err != nil {
			return nil, err
		}
		var found *store.ProjectEnvironment
		for i := range list {
			if list[i].Environment == env {
				found = &list[i]
			}
		}
		if found == nil {
			return nil, apierr.New(apierr.NotFound, "environment %q is not enabled for project %q", env, project)
		}
		if len(list) == 1 {
			return nil, apierr.New(apierr.BadData, "environment %q is the last one of project %q; a project needs at least one environment", env, project)
		}
		if err := checkRequirementKept(ctx, tx, principalFrom(ctx), project, env); err != nil {
			return nil, err
		}
		if err := tx.DeleteProjectEnvironment(ctx, project, env); err != nil {
			return nil, err
		}
		pre := projectEnvironmentJSON{Environment: env, DefaultStrategy: normalizedTemplate(found.DefaultStrategy)}
		return []store.Event{{Type: "project-environment-removed", Project: project, Environment: env, PreData: eventData(pre)}}, nil
	}))
}

// handleSetDefaultStrategy sets the strategy a flag of the project gets when
// it is switched on in the environment without any enabled strategy.
func (s *Server) handleSetDefaultStrategy(w http.ResponseWriter, r *http.Request) error {
	var body store.StrategyTemplate
	if err := decode(w, r, &body); err != nil {
		return err
	}
	project, env := r.PathValue("projectId"), r.PathValue("environment")
	ctx := r.Context()
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		if err := checkStrategyTemplate(ctx, tx, "", &body); err != nil {
			return nil, err
		}
		list, err := tx.ListProjectEnvironments(ctx, project)
		if err != nil {
			return nil, err
		}
		var before *store.StrategyTemplate
		found := false
		for _, pe := range list {
			if pe.Environment == env {
				found, before = true, pe.DefaultStrategy
			}
		}
		if !found {
			return nil, apierr.New(apierr.NotFound, "environment %q is not enabled for project %q", env, project)
		}
		if err := tx.UpdateProjectEnvironment(ctx, store.ProjectEnvironment{Project: project, Environment: env, DefaultStrategy: &body}); err != nil {
			return nil, err
		}
		return []store.Event{{Type: "default-strategy-updated", Project: project, Environment: env,
			Data: eventData(normalizedTemplate(&body)), PreData: eventData(normalizedTemplate(before))}}, nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, normalizedTemplate(&body))
}

// normalizedTemplate gives a stored strategy template empty lists instead of
// nulls, the form SDK-facing JSON uses; nil stays nil.
func normalizedTemplate(t *store.StrategyTemplate) *store.StrategyTemplate {
	if t == nil {
		return nil
	}
	c := *t
	if c.Constraints == nil {
		c.Constraints = []clientapi.Constraint{}
	}
	if c.Variants == nil {
		c.Variants = []clientapi.Variant{}
	}
	if c.Segments == nil {
		c.Segments = []int{}
	}
	if c.Parameters == nil {
		c.Parameters = clientapi.Parameters{}
	}
	return &c
}

// checkStrategyTemplate checks a default strategy: a known strategy type,
// valid constraints, existing segments and well-formed variants. path
// prefixes the property names in errors.
func checkStrategyTemplate(ctx context.Context, rd store.Reader, path string, t *store.StrategyTemplate) error {
	at := func(field string) string {
		if path == "" {
			return field
		}
		return path + "." + field
	}
	if t.Name == "" {
		return apierr.Invalid(at("name"), "the strategy name is required")
	}
	if _, err := rd.GetStrategyDefinition(ctx, t.Name); apierr.Is(err, apierr.NotFound) {
		return apierr.Invalid(at("name"), "there is no strategy type named %q", t.Name)
	} else if err != nil {
		return err
	}
	if err := checkText(at("title"), t.Title, 255); err != nil {
		return err
	}
	if err := checkParametersText(at("parameters"), t.Parameters); err != nil {
		return err
	}
	if err := checkConstraintsAt(at("constraints"), t.Constraints); err != nil {
		return err
	}
	for _, id := range t.Segments {
		if _, err := rd.GetSegment(ctx, id); apierr.Is(err, apierr.NotFound) {
			return apierr.Invalid(at("segments"), "segment %d does not exist", id)
		} else if err != nil {
			return err
		}
	}
	for i, v := range t.Variants {
		p := at(fmt.Sprintf("variants[%d]", i))
		switch {
		case v.Name == "":
			return apierr.Invalid(p+".name", "every variant needs a name")
		case v.Weight < 0 || v.Weight > 1000:
			return apierr.Invalid(p+".weight", "variant weights are 0 to 1000")
		case v.WeightType != "" && v.WeightType != "variable" && v.WeightType != "fix":
			return apierr.Invalid(p+".weightType", "weightType is variable or fix")
		}
	}
	return nil
}
