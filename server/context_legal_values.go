package server

// One context field's legal values, one at a time
// (/api/admin/context/{contextField}/legal-values), and the flag
// strategies whose constraints use the field
// (/api/admin/context/{contextField}/strategies).

import (
	"context"
	"net/http"
	"slices"

	"github.com/signalbox/signalbox/store"
)

func registerContextLegalValues(s *Server, m mux) {
	m.admin("GET /api/admin/context/{contextField}/strategies", PermRead, s.handleContextFieldStrategies)
	m.admin("POST /api/admin/context/{contextField}/legal-values", PermUpdateContextField, s.handlePutLegalValue)
	m.admin("DELETE /api/admin/context/{contextField}/legal-values/{legalValue}", PermUpdateContextField, s.handleDeleteLegalValue)
}

// handleContextFieldStrategies is Unleash's getStrategiesByContextField:
// every flag strategy (of active and archived flags) with a constraint on
// the field; an empty list for a field nothing uses or that does not
// exist, as in Unleash.
func (s *Server) handleContextFieldStrategies(w http.ResponseWriter, r *http.Request) error {
	ctx, field := r.Context(), r.PathValue("contextField")
	type use struct {
		ID           string `json:"id"`
		FeatureName  string `json:"featureName"`
		ProjectID    string `json:"projectId"`
		Environment  string `json:"environment"`
		StrategyName string `json:"strategyName"`
	}
	out := []use{}
	sight, err := s.sightOf(ctx)
	if err != nil {
		return err
	}
	err = s.view(ctx, func(rd store.Reader) error {
		if project := r.PathValue("projectId"); project != "" {
			if _, err := rd.GetProject(ctx, project); err != nil {
				return err
			}
		}
		strategies, err := rd.ListStrategies(ctx, store.StrategyFilter{})
		if err != nil {
			return err
		}
		flags, err := rd.ListFeatures(ctx, store.FeatureFilter{})
		if err != nil {
			return err
		}
		projectOf := make(map[string]string, len(flags))
		for _, f := range flags {
			projectOf[f.Name] = f.Project
		}
		for _, st := range strategies {
			for _, c := range st.Constraints {
				if c.ContextName == field && sight.canSee(projectOf[st.Feature]) {
					out = append(out, use{ID: st.ID, FeatureName: st.Feature, ProjectID: projectOf[st.Feature], Environment: st.Environment, StrategyName: st.Name})
					break
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]any{"strategies": out})
}

// changeLegalValues applies edit to the legal values of field name (of
// project, on a project's routes) and saves the field, with the same checks
// and event as a whole update (context-field-updated). A built-in field not
// stored yet is stored.
func (s *Server) changeLegalValues(ctx context.Context, project, name string, edit func([]store.LegalValue) ([]store.LegalValue, bool)) error {
	return s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		before, err := contextFieldIn(ctx, tx, project, name)
		if err != nil {
			return nil, err
		}
		values, changed := edit(slices.Clone(before.LegalValues))
		if !changed {
			return nil, nil
		}
		c := before
		body := contextFieldBody{}
		body.LegalValues.Sent, body.LegalValues.V = true, values
		if err := body.apply(&c); err != nil {
			return nil, err
		}
		if before.CreatedAt.IsZero() {
			_, err = tx.CreateContextField(ctx, c)
		} else {
			_, err = tx.UpdateContextField(ctx, c)
		}
		if err != nil {
			return nil, err
		}
		return []store.Event{contextFieldEvent("context-field-updated", c,
			contextFieldResponse(c, contextUse{}), contextFieldResponse(before, contextUse{}))}, nil
	})
}

// handlePutLegalValue is Unleash's updateContextFieldLegalValue: the value
// is added, or its description replaced when the field has it already. 200
// without a body; 404 for an unknown field.
func (s *Server) handlePutLegalValue(w http.ResponseWriter, r *http.Request) error {
	var lv store.LegalValue
	if err := decode(w, r, &lv); err != nil {
		return err
	}
	err := s.changeLegalValues(r.Context(), r.PathValue("projectId"), r.PathValue("contextField"), func(values []store.LegalValue) ([]store.LegalValue, bool) {
		i := slices.IndexFunc(values, func(v store.LegalValue) bool { return v.Value == lv.Value })
		switch {
		case i < 0:
			return append(values, lv), true
		case values[i].Description == lv.Description:
			return values, false
		}
		values[i] = lv
		return values, true
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

// handleDeleteLegalValue is Unleash's deleteContextFieldLegalValue: the
// value is no longer legal (constraints using it are left as they are).
// 200 also when the field did not have it; 404 for an unknown field.
func (s *Server) handleDeleteLegalValue(w http.ResponseWriter, r *http.Request) error {
	value := r.PathValue("legalValue")
	err := s.changeLegalValues(r.Context(), r.PathValue("projectId"), r.PathValue("contextField"), func(values []store.LegalValue) ([]store.LegalValue, bool) {
		out := slices.DeleteFunc(values, func(v store.LegalValue) bool { return v.Value == value })
		return out, len(out) != len(values)
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}
