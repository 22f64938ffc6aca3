package server

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"strings"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// Strategy definitions: the strategy types flags can use. The built-in ones
// (store.BuiltinStrategies) are evaluated by every SDK and cannot be
// changed or deleted; custom ones describe strategies that SDKs implement
// themselves.

func registerStrategyDefinitions(s *Server, m mux) {
	m.admin("GET /api/admin/strategies", PermRead, s.handleListStrategyDefinitions)
	m.admin("POST /api/admin/strategies", PermCreateStrategy, s.handleCreateStrategyDefinition)
	m.admin("GET /api/admin/strategies/{name}", PermRead, s.handleGetStrategyDefinition)
	m.admin("PUT /api/admin/strategies/{name}", PermUpdateStrategy, s.handleUpdateStrategyDefinition)
	m.admin("DELETE /api/admin/strategies/{name}", PermDeleteStrategy, s.handleDeleteStrategyDefinition)
	m.admin("POST /api/admin/strategies/{name}/deprecate", PermUpdateStrategy, s.handleDeprecateStrategy(true))
	m.admin("POST /api/admin/strategies/{name}/reactivate", PermUpdateStrategy, s.handleDeprecateStrategy(false))
}

// strategyDefinitionJSON is Unleash's strategySchema.
type strategyDefinitionJSON struct {
	Name        string                    `json:"name"`
	DisplayName *string                   `json:"displayName"`
	Title       *string                   `json:"title"`
	Description string                    `json:"description"`
	Editable    bool                      `json:"editable"`
	Deprecated  bool                      `json:"deprecated"`
	Parameters  []store.StrategyParameter `json:"parameters"`
}

func strategyDefinitionResponse(d store.StrategyDefinition) strategyDefinitionJSON {
	params := d.Parameters
	if params == nil {
		params = []store.StrategyParameter{}
	}
	return strategyDefinitionJSON{
		Name: d.Name, DisplayName: nullable(d.Title), Title: nullable(d.Title), Description: d.Description,
		Editable: d.Editable, Deprecated: d.Deprecated, Parameters: params,
	}
}

func (s *Server) handleListStrategyDefinitions(w http.ResponseWriter, r *http.Request) error {
	var list []store.StrategyDefinition
	err := s.view(r.Context(), func(rd store.Reader) (err error) {
		list, err = rd.ListStrategyDefinitions(r.Context())
		return err
	})
	if err != nil {
		return err
	}
	out := make([]strategyDefinitionJSON, len(list))
	for i, d := range list {
		out[i] = strategyDefinitionResponse(d)
	}
	return writeJSON(w, http.StatusOK, map[string]any{"version": 1, "strategies": out})
}

func (s *Server) handleGetStrategyDefinition(w http.ResponseWriter, r *http.Request) error {
	var d store.StrategyDefinition
	err := s.view(r.Context(), func(rd store.Reader) (err error) {
		d, err = rd.GetStrategyDefinition(r.Context(), r.PathValue("name"))
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, strategyDefinitionResponse(d))
}

// strategyDefinitionBody is createStrategySchema; PUT (updateStrategySchema)
// changes title, description and parameters, only those sent.
type strategyDefinitionBody struct {
	Name        string                               `json:"name"`
	Title       bodyField[string]                    `json:"title"`
	Description bodyField[string]                    `json:"description"`
	Parameters  bodyField[[]store.StrategyParameter] `json:"parameters"`
	Deprecated  bool                                 `json:"deprecated"`
}

var strategyParameterTypes = map[string]bool{"string": true, "percentage": true, "list": true, "number": true, "boolean": true}

func (b strategyDefinitionBody) apply(d *store.StrategyDefinition) error {
	if b.Title.Sent {
		d.Title = b.Title.V
	}
	if b.Description.Sent {
		d.Description = b.Description.V
	}
	if b.Parameters.Sent {
		d.Parameters = b.Parameters.V
	}
	if err := checkText("title", d.Title, 255); err != nil {
		return err
	}
	if err := checkText("description", d.Description, 1000); err != nil {
		return err
	}
	seen := map[string]bool{}
	for i, p := range d.Parameters {
		at := fmt.Sprintf("parameters[%d]", i)
		switch {
		case strings.TrimSpace(p.Name) == "":
			return apierr.Invalid(at+".name", "every parameter needs a name")
		case seen[p.Name]:
			return apierr.Invalid(at+".name", "parameter %q is listed twice", p.Name)
		case !strategyParameterTypes[p.Type]:
			return apierr.Invalid(at+".type", "parameter type must be string, percentage, list, number or boolean, not %q", p.Type)
		}
		seen[p.Name] = true
		if err := checkText(at+".name", p.Name, 100); err != nil {
			return err
		}
		if err := checkText(at+".description", p.Description, 1000); err != nil {
			return err
		}
	}
	return nil
}

func (s *Server) handleCreateStrategyDefinition(w http.ResponseWriter, r *http.Request) error {
	var body strategyDefinitionBody
	if err := decode(w, r, &body); err != nil {
		return err
	}
	d := store.StrategyDefinition{Name: strings.TrimSpace(body.Name), Editable: true, Deprecated: body.Deprecated}
	if err := checkURLName("name", d.Name, 1, 100); err != nil {
		return err
	}
	if err := body.apply(&d); err != nil {
		return err
	}
	ctx := r.Context()
	var out strategyDefinitionJSON
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		created, err := tx.CreateStrategyDefinition(ctx, d)
		if err != nil {
			return nil, err
		}
		out = strategyDefinitionResponse(created)
		return []store.Event{{Type: "strategy-created", Data: eventData(out)}}, nil
	})
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/admin/strategies/"+out.Name)
	return writeJSON(w, http.StatusCreated, out)
}

// changeStrategyDefinition applies fn to a custom strategy type and records
// eventType; built-in types are refused unless builtinsToo. Nothing is
// written when fn changes nothing.
func (s *Server) changeStrategyDefinition(ctx context.Context, name, eventType string, builtinsToo bool,
	fn func(*store.StrategyDefinition) error) (strategyDefinitionJSON, error) {
	var out strategyDefinitionJSON
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		before, err := tx.GetStrategyDefinition(ctx, name)
		if err != nil {
			return nil, err
		}
		if !before.Editable && !builtinsToo {
			return nil, apierr.New(apierr.BadData, "%q is a built-in strategy type; it cannot be changed or deleted", name)
		}
		d := before
		if err := fn(&d); err != nil {
			return nil, err
		}
		out = strategyDefinitionResponse(d)
		if strategyDefinitionUnchanged(before, d) {
			return nil, nil
		}
		updated, err := tx.UpdateStrategyDefinition(ctx, d)
		if err != nil {
			return nil, err
		}
		out = strategyDefinitionResponse(updated)
		return []store.Event{{Type: eventType, Data: eventData(out), PreData: eventData(strategyDefinitionResponse(before))}}, nil
	})
	return out, err
}

func strategyDefinitionUnchanged(a, b store.StrategyDefinition) bool {
	return reflect.DeepEqual(strategyDefinitionResponse(a), strategyDefinitionResponse(b))
}

func (s *Server) handleUpdateStrategyDefinition(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("name")
	var body strategyDefinitionBody
	if err := decode(w, r, &body); err != nil {
		return err
	}
	if body.Name != "" && body.Name != name {
		return apierr.Invalid("name", "strategy types cannot be renamed (%q in the body, %q in the path)", body.Name, name)
	}
	out, err := s.changeStrategyDefinition(r.Context(), name, "strategy-updated", false, body.apply)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

// handleDeprecateStrategy deprecates or reactivates a strategy type;
// built-in ones too, as Unleash allows. Flags keep using a deprecated type.
func (s *Server) handleDeprecateStrategy(deprecate bool) handlerFunc {
	eventType := "strategy-reactivated"
	if deprecate {
		eventType = "strategy-deprecated"
	}
	return func(w http.ResponseWriter, r *http.Request) error {
		_, err := s.changeStrategyDefinition(r.Context(), r.PathValue("name"), eventType, true, func(d *store.StrategyDefinition) error {
			d.Deprecated = deprecate
			return nil
		})
		if err != nil {
			return err
		}
		w.WriteHeader(http.StatusOK)
		return nil
	}
}

// handleDeleteStrategyDefinition deletes a custom strategy type that no
// flag uses; built-ins stay.
func (s *Server) handleDeleteStrategyDefinition(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("name")
	ctx := r.Context()
	return s.answerEmptyOK(w, s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		d, err := tx.GetStrategyDefinition(ctx, name)
		if err != nil {
			return nil, err
		}
		if !d.Editable {
			return nil, apierr.New(apierr.BadData, "%q is a built-in strategy type; it cannot be changed or deleted", name)
		}
		strategies, err := tx.ListStrategies(ctx, store.StrategyFilter{})
		if err != nil {
			return nil, err
		}
		var users []store.Strategy
		for _, st := range strategies {
			if st.Name == name {
				users = append(users, st)
			}
		}
		if len(users) > 0 {
			return nil, apierr.New(apierr.BadData, "strategy type %q is used by flag(s) %s; remove those strategies first",
				name, strings.Join(strategyFeatures(users), ", "))
		}
		if err := tx.DeleteStrategyDefinition(ctx, name); err != nil {
			return nil, err
		}
		return []store.Event{{Type: "strategy-deleted", PreData: eventData(strategyDefinitionResponse(d))}}, nil
	}))
}
