package server

import (
	"context"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// Context fields: the fields of the evaluation context that constraints and
// stickiness refer to. The fields every SDK fills in are listed even when
// they are not stored, as Unleash lists them.
func init() { adminAreas = append(adminAreas, registerContextFields) }

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
		UsedInFeatures: len(u.features), UsedInProjects: len(u.projects), LegalValues: lv,
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

func (s *Server) handleListContextFields(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	var out []contextFieldJSON
	err := s.view(ctx, func(rd store.Reader) error {
		fields, err := allContextFields(ctx, rd)
		if err != nil {
			return err
		}
		uses, err := contextUses(ctx, rd)
		for _, f := range fields {
			out = append(out, contextFieldResponse(f, uses[f.Name]))
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

func (s *Server) handleGetContextField(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	var out contextFieldJSON
	err := s.view(ctx, func(rd store.Reader) error {
		c, err := getContextField(ctx, rd, r.PathValue("contextField"))
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
// change.
type contextFieldBody struct {
	Name        string                        `json:"name"`
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

func (s *Server) handleCreateContextField(w http.ResponseWriter, r *http.Request) error {
	var body contextFieldBody
	if err := decode(w, r, &body); err != nil {
		return err
	}
	c := store.ContextField{Name: strings.TrimSpace(body.Name)}
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
		created, err := tx.CreateContextField(ctx, c)
		if err != nil {
			return nil, err
		}
		out = contextFieldResponse(created, contextUse{})
		return []store.Event{{Type: "context-field-created", Data: eventData(out)}}, nil
	})
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/admin/context/"+out.Name)
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
		before, err := getContextField(ctx, tx, name)
		if err != nil {
			return nil, err
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
		return []store.Event{{Type: "context-field-updated",
			Data: eventData(contextFieldResponse(saved, contextUse{})), PreData: eventData(contextFieldResponse(before, contextUse{}))}}, nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleDeleteContextField(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("contextField")
	if _, ok := builtinContextField(name); ok {
		return apierr.New(apierr.BadData, "%q is a built-in context field that SDKs always fill in; it cannot be deleted", name)
	}
	ctx := r.Context()
	return s.answerEmptyOK(w, s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		c, err := tx.GetContextField(ctx, name)
		if err != nil {
			return nil, err
		}
		if err := tx.DeleteContextField(ctx, name); err != nil {
			return nil, err
		}
		return []store.Event{{Type: "context-field-deleted", PreData: eventData(contextFieldResponse(c, contextUse{}))}}, nil
	}))
}

// handleValidateContextField answers 200 when a name is usable for a new
// field, 409 when it is taken (built-ins included).
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
