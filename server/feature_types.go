package server

// Flag types (release, experiment, operational, kill-switch, permission,
// and Unleash 8's sunset, for retiring a feature) and their expected
// lifetimes, after which a flag of the type counts as potentially stale.

import (
	"encoding/json"
	"math"
	"net/http"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

func registerFeatureTypes(s *Server, m mux) {
	m.admin("GET /api/admin/feature-types", PermRead, s.handleListFeatureTypes)
	// Unleash's path is …/lifetime; …/lifetimes is accepted as well.
	m.admin("PUT /api/admin/feature-types/{id}/lifetime", PermAdmin, s.handleUpdateFeatureTypeLifetime)
	m.admin("PUT /api/admin/feature-types/{id}/lifetimes", PermAdmin, s.handleUpdateFeatureTypeLifetime)
}

// adminFeatureType is featureTypeSchema; lifetimeDays null means never stale.
type adminFeatureType struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Description  string `json:"description"`
	LifetimeDays *int   `json:"lifetimeDays"`
}

func featureTypeView(t store.FeatureType) adminFeatureType {
	return adminFeatureType{ID: t.ID, Name: t.Name, Description: t.Description, LifetimeDays: t.LifetimeDays}
}

func (s *Server) handleListFeatureTypes(w http.ResponseWriter, r *http.Request) error {
	answer := struct {
		Version int                `json:"version"`
		Types   []adminFeatureType `json:"types"`
	}{Version: 1, Types: []adminFeatureType{}}
	err := s.view(r.Context(), func(rd store.Reader) error {
		types, err := rd.ListFeatureTypes(r.Context())
		for _, t := range types {
			answer.Types = append(answer.Types, featureTypeView(t))
		}
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, answer)
}

// handleUpdateFeatureTypeLifetime sets how many days flags of a type live
// before they are potentially stale; null (or 0, as Unleash reads it)
// means never.
func (s *Server) handleUpdateFeatureTypeLifetime(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		LifetimeDays json.RawMessage `json:"lifetimeDays"`
	}
	if err := decode(w, r, &in); err != nil {
		return err
	}
	days, err := lifetimeDays(in.LifetimeDays)
	if err != nil {
		return err
	}
	ctx := r.Context()
	var saved store.FeatureType
	err = s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		before, err := tx.GetFeatureType(ctx, r.PathValue("id"))
		if err != nil {
			return nil, err
		}
		t := before
		t.LifetimeDays = days
		if saved, err = tx.UpdateFeatureType(ctx, t); err != nil {
			return nil, err
		}
		return []store.Event{{Type: "feature-type-updated", Data: eventData(featureTypeView(saved)), PreData: eventData(featureTypeView(before))}}, nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, featureTypeView(saved))
}

// lifetimeDays reads the required lifetimeDays property: a whole number of
// days, or null; 0 is stored as null.
func lifetimeDays(raw json.RawMessage) (*int, error) {
	if raw == nil {
		return nil, apierr.Invalid("lifetimeDays", "lifetimeDays is required (a number of days, or null)")
	}
	var d *float64
	if err := json.Unmarshal(raw, &d); err != nil || (d != nil && (*d < 0 || *d > math.MaxInt32 || *d != math.Trunc(*d))) {
		return nil, apierr.Invalid("lifetimeDays", "lifetimeDays must be a whole number of days from 0 to %d, or null", math.MaxInt32)
	}
	if d == nil || *d == 0 {
		return nil, nil
	}
	n := int(*d)
	return &n, nil
}
