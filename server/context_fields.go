package server

import (
	"context"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// Context fields: the fields of the evaluation context that constraints and
// stickiness refer to. The fields every SDK fills in are listed even when
// they are not stored, as Unleash lists them. A field may belong to one
// project; the handlers serve both the global routes and the project's
// (project_context_fields.go), where projectId in the path limits them to
// that project's own fields.

func registerContextFields(s *Server, m mux) {
	m.admin("GET /api/admin/context", PermRead, s.handleListContextFields)
	m.admin("POST /api/admin/context", PermCreateContextField, s.handleCreateContextField)
	m.admin("POST /api/admin/context/validate", PermCreateContextField, s.handleValidateContextField)
	m.admin("GET /api/admin/context/{contextField}", PermRead, s.handleGetContextField)
	m.admin("PUT /api/admin/context/{contextField}", PermUpdateContextField, s.handleUpdateContextField)
	m.admin("DELETE /api/admin/context/{contextField}", PermDeleteContextField, s.handleDeleteContextField)
}

// builtinContextFields are the standard context fields. They cannot be
// deleted (SDKs fill them in regardless); they can be described, given
// legal values or made sticky, which stores them.
var builtinContextFields = []store.ContextField{
	{Name: "environment", Description: "The environment the application runs in.", SortOrder: 0},
	{Name: "userId", Description: "An identifier of the signed-in user.", SortOrder: 1},
	{Name: "appName", Description: "The name of the application.", SortOrder: 2},
	{Name: "sessionId", Description: "An identifier of the user's session.", SortOrder: 3},
	{Name: "remoteAddress", Description: "The IP address of the client.", SortOrder: 4},
	{Name: "currentTime", Description: "The time of the evaluation; date constraints compare it.", SortOrder: 5},
}

func builtinContextField(name string) (store.ContextField, bool) {
	for _, f := range builtinContextFields {
		if f.Name == name {
			return f, true
		}
	}
	return store.ContextField{}, false
}

// contextFieldJSON is Unleash's contextFieldSchema.
type contextFieldJSON struct {
	Name           string             `json:"name"`
	Description    string             `json:"description"`
	Stickiness     bool               `json:"stickiness"`
	SortOrder      int                `json:"sortOrder"`
	CreatedAt      *time.Time         `json:"createdAt"`
	UsedInFeatures int                `json:"usedInFeatures"`
	UsedInProjects int                `json:"usedInProjects"`
	LegalValues    []store.LegalValue `json:"legalValues"`
	Project        string             `json:"project,omitempty"`
}

// contextFieldResponse shapes a field; stored built-ins have a creation
// time, listed-only ones none.
func contextFieldResponse(c store.ContextField, u contextUse) contextFieldJSON {
	lv := c.LegalValues
	if lv == nil {
		lv = []store.LegalValue{}
	}
	var created *time.Time
	if !c.CreatedAt.IsZero() {
		created = &c.CreatedAt
	}
	return contextFieldJSON{
		Name: c.Name, Description: c.Description, Stickiness: c.Stickiness, SortOrder: c.SortOrder, CreatedAt: created,
		UsedInFeatures: len(u.features), UsedInProjects: len(u.projects), LegalValues: lv, Project: c.Project,
	}
}

// contextUse is where constraints refer to a context field.
type contextUse struct{ features, projects map[string]bool }

// contextUses maps context field names to the flags and projects whose
// strategy constraints refer to them.
func contextUses(ctx context.Context, rd store.Reader) (map[string]contextUse, error) {
	uses, err := rd.ConstraintUses(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]contextUse{}
	for _, use := range uses {
		u, ok := out[use.ContextName]
		if !ok {
			u = contextUse{features: map[string]bool{}, projects: map[string]bool{}}
			out[use.ContextName] = u
		}
		u.features[use.Feature] = true
		u.projects[use.Project] = true
	}
	return out, nil
}

// allContextFields is the stored fields plus the built-ins not stored,
// ordered by sort order, then name.
func allContextFields(ctx context.Context, rd store.Reader) ([]store.ContextField, error) {
	stored, err := rd.ListContextFields(ctx)
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	for _, c := range stored {
		have[c.Name] = true
	}
	for _, b := range builtinContextFields {
		if !have[b.Name] {
			stored = append(stored, b)
		}
	}
	sort.SliceStable(stored, func(i, j int) bool {
		if stored[i].SortOrder != stored[j].SortOrder {
			return stored[i].SortOrder < stored[j].SortOrder
		}
		return stored[i].Name < stored[j].Name
	})
	return stored, nil
}

// handleListContextFields lists the global fields, or on a project's
// route that project's own, as Unleash does. include=project adds every
// project's fields to the global list; include=root adds the global
// fields to a project's.
func (s *Server) handleListContextFields(w http.ResponseWriter, r *http.Request) error {
	ctx, project := r.Context(), r.PathValue("projectId")
	include := strings.ToLower(r.URL.Query().Get("include"))
	out := []contextFieldJSON{}
	err := s.view(ctx, func(rd store.Reader) error {
		if project != "" {
			if _, err := rd.GetProject(ctx, project); err != nil {
				return err
			}
		}
		fields, err := allContextFields(ctx, rd)
		if err != nil {
			return err
		}
		uses, err := contextUses(ctx, rd)
		for _, f := range fields {
			listed := f.Project == project ||
				(project == "" && include == "project") || (f.Project == "" && include == "root")
			if listed {
				out = append(out, contextFieldResponse(f, uses[f.Name]))
			}
		}
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

// getContextField reads a stored field or a built-in one.
func getContextField(ctx context.Context, rd store.Reader, name string) (store.ContextField, error) {
	c, err := rd.GetContextField(ctx, name)
	if apierr.Is(err, apierr.NotFound) {
		if b, ok := builtinContextField(name); ok {
			return b, nil
		}
		return c, apierr.New(apierr.NotFound, "there is no context field named %q", name)
	}
	return c, err
}

// contextFieldIn is getContextField on the routes of a project: only the
// project's own fields are found there (NotFound for global fields and
// those of other projects, as for an unknown project). project "" (the
// global routes) finds every field.
func contextFieldIn(ctx context.Context, rd store.Reader, project, name string) (store.ContextField, error) {
	if project == "" {
		return getContextField(ctx, rd, name)
	}
	if _, err := rd.GetProject(ctx, project); err != nil {
		return store.ContextField{}, err
	}
	c, err := getContextField(ctx, rd, name)
	if err == nil && c.Project != project {
		return c, apierr.New(apierr.NotFound, "project %s has no context field named %q", project, name)
	}
	return c, err
}

// contextFieldEvent is an audit event of field c, in c's project when it
// has one, so that the project's event feed shows it.
func contextFieldEvent(typ string, c store.ContextField, data, pre any) store.Event {
	e := store.Event{Type: typ, Project: c.Project}
	if data != nil {
		e.Data = eventData(data)
	}
	if pre != nil {
		e.PreData = eventData(pre)
	}
	return e
}

func (s *Server) handleGetContextField(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	var out contextFieldJSON
	err := s.view(ctx, func(rd store.Reader) error {
		c, err := contextFieldIn(ctx, rd, r.PathValue("projectId"), r.PathValue("contextField"))
		if err != nil {
			return err
		}
		uses, err := contextUses(ctx, rd)
		out = contextFieldResponse(c, uses[c.Name])
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

// contextFieldBody is the body of POST and PUT; on PUT only the fields sent
// change. Project places a new field in a project (on the global route; a
// project's route places it there); a field never moves to another one.
type contextFieldBody struct {
	Name        string                        `json:"name"`
	Project     string                        `json:"project"`
	Description bodyField[string]             `json:"description"`
	Stickiness  bodyField[bool]               `json:"stickiness"`
	SortOrder   bodyField[int]                `json:"sortOrder"`
	LegalValues bodyField[[]store.LegalValue] `json:"legalValues"`
}

func (b contextFieldBody) apply(c *store.ContextField) error {
	if b.Description.Sent {
		c.Description = b.Description.V
	}
	if b.Stickiness.Sent {
		c.Stickiness = b.Stickiness.V
	}
	if b.SortOrder.Sent {
		c.SortOrder = b.SortOrder.V
	}
	if b.LegalValues.Sent {
		c.LegalValues = b.LegalValues.V
	}
	if err := checkText("description", c.Description, 1000); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, lv := range c.LegalValues {
		switch {
		case lv.Value == "":
			return apierr.Invalid("legalValues", "legal values must not be empty")
		case seen[lv.Value]:
			return apierr.Invalid("legalValues", "legal value %q is listed twice", lv.Value)
		}
		seen[lv.Value] = true
		if err := checkText("legalValues", lv.Value, 100); err != nil {
			return err
		}
		if err := checkText("legalValues", lv.Description, 1000); err != nil {
			return err
		}
	}
	return nil
}

// handleCreateContextField creates a global field, or one of the project
// named by the path (or, on the global route, by the body). Names are
// unique across global and project fields. Event context-field-created.
func (s *Server) handleCreateContextField(w http.ResponseWriter, r *http.Request) error {
	var body contextFieldBody
	if err := decode(w, r, &body); err != nil {
		return err
	}
	pathProject, bodyProject := r.PathValue("projectId"), strings.TrimSpace(body.Project)
	if pathProject != "" && bodyProject != "" && bodyProject != pathProject {
		return apierr.Invalid("project", "a field created here belongs to project %s, not %s", pathProject, bodyProject)
	}
	c := store.ContextField{Name: strings.TrimSpace(body.Name), Project: bodyProject}
	if pathProject != "" {
		c.Project = pathProject
	}
	if err := checkURLName("name", c.Name, 1, 100); err != nil {
		return err
	}
	if err := body.apply(&c); err != nil {
		return err
	}
	if _, ok := builtinContextField(c.Name); ok {
		return apierr.New(apierr.NameExists, "%q is a built-in context field; change it with PUT instead", c.Name)
	}
	ctx := r.Context()
	var out contextFieldJSON
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		if c.Project != "" {
			_, err := tx.GetProject(ctx, c.Project)
			if pathProject == "" && apierr.Is(err, apierr.NotFound) {
				return nil, apierr.Invalid("project", "project %q does not exist", c.Project)
			}
			if err != nil {
				return nil, err
			}
		}
		created, err := tx.CreateContextField(ctx, c)
		if err != nil {
			return nil, err
		}
		out = contextFieldResponse(created, contextUse{})
		return []store.Event{contextFieldEvent("context-field-created", created, out, nil)}, nil
	})
	if err != nil {
		return err
	}
	location := "/api/admin/context/" + url.PathEscape(out.Name)
	if pathProject != "" {
		location = "/api/admin/projects/" + url.PathEscape(pathProject) + "/context/" + url.PathEscape(out.Name)
	}
	w.Header().Set("Location", location)
	return writeJSON(w, http.StatusCreated, out)
}

// handleUpdateContextField changes the fields sent. A built-in field that
// is not stored yet is stored by its first change.
func (s *Server) handleUpdateContextField(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("contextField")
	var body contextFieldBody
	if err := decode(w, r, &body); err != nil {
		return err
	}
	ctx := r.Context()
	var out contextFieldJSON
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		before, err := contextFieldIn(ctx, tx, r.PathValue("projectId"), name)
		if err != nil {
			return nil, err
		}
		if p := strings.TrimSpace(body.Project); p != "" && p != before.Project {
			return nil, apierr.Invalid("project", "context field %q cannot move to another project", name)
		}
		c := before
		if err := body.apply(&c); err != nil {
			return nil, err
		}
		var saved store.ContextField
		if before.CreatedAt.IsZero() { // a built-in listed but not stored
			saved, err = tx.CreateContextField(ctx, c)
		} else {
			saved, err = tx.UpdateContextField(ctx, c)
		}
		if err != nil {
			return nil, err
		}
		uses, err := contextUses(ctx, tx)
		if err != nil {
			return nil, err
		}
		out = contextFieldResponse(saved, uses[name])
		return []store.Event{contextFieldEvent("context-field-updated", saved,
			contextFieldResponse(saved, contextUse{}), contextFieldResponse(before, contextUse{}))}, nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleDeleteContextField(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("contextField")
	ctx := r.Context()
	return s.answerEmptyOK(w, s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		c, err := contextFieldIn(ctx, tx, r.PathValue("projectId"), name)
		if err != nil {
			return nil, err
		}
		if _, ok := builtinContextField(name); ok {
			return nil, apierr.New(apierr.BadData, "%q is a built-in context field that SDKs always fill in; it cannot be deleted", name)
		}
		if err := tx.DeleteContextField(ctx, name); err != nil {
			return nil, err
		}
		return []store.Event{contextFieldEvent("context-field-deleted", c, nil, contextFieldResponse(c, contextUse{}))}, nil
	}))
}

// handleValidateContextField answers 200 when a name is usable for a new
// field, 409 when it is taken (built-ins and every project's fields
// included: names are unique across them); 404 on the route of an unknown
// project.
func (s *Server) handleValidateContextField(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Name string `json:"name"`
	}
	if err := decode(w, r, &body); err != nil {
		return err
	}
	name := strings.TrimSpace(body.Name)
	if err := checkURLName("name", name, 1, 100); err != nil {
		return err
	}
	ctx := r.Context()
	err := s.view(ctx, func(rd store.Reader) error {
		if project := r.PathValue("projectId"); project != "" {
			if _, err := rd.GetProject(ctx, project); err != nil {
				return err
			}
		}
		_, err := getContextField(ctx, rd, name)
		if err == nil {
			return apierr.New(apierr.NameExists, "there is already a context field named %q", name)
		}
		if apierr.Is(err, apierr.NotFound) {
			return nil
		}
		return err
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}
