package server

// The segments of one flag strategy, read and replaced by strategy id
// (/api/admin/segments/strategies), as Unleash's strategy editor does
// when segments are picked apart from the strategy.

import (
	"net/http"
	"slices"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

func registerSegmentStrategies(s *Server, m mux) {
	m.admin("POST /api/admin/segments/strategies", PermUpdateFeatureStrategy, s.handleSetStrategySegments)
	// "GET /api/admin/segments/strategies/{strategyId}" would overlap
	// "GET /api/admin/segments/{id}/strategies" (segments.go) without either
	// being more specific, which ServeMux refuses. So the handler takes
	// every two-segment path below a segment that no other route does, and
	// answers only under "strategies"; the route table records the path it
	// serves, for the OpenAPI document.
	m.admin("GET /api/admin/segments/{segment}/{strategyId}", PermRead, s.handleStrategySegments)
	m.s.routeTable[len(m.s.routeTable)-1].Pattern = "GET /api/admin/segments/strategies/{strategyId}"
}

// handleStrategySegments is Unleash's getSegmentsByStrategyId: the
// segments the strategy uses; an empty list for an unknown strategy, as in
// Unleash.
func (s *Server) handleStrategySegments(w http.ResponseWriter, r *http.Request) error {
	if r.PathValue("segment") != "strategies" {
		return notFoundPath(r)
	}
	ctx := r.Context()
	out := []segmentJSON{}
	err := s.view(ctx, func(rd store.Reader) error {
		st, err := rd.GetStrategy(ctx, r.PathValue("strategyId"))
		if apierr.Is(err, apierr.NotFound) {
			return nil
		} else if err != nil {
			return err
		}
		for _, id := range st.Segments {
			sg, err := rd.GetSegment(ctx, id)
			if err != nil {
				return err
			}
			out = append(out, segmentResponse(sg))
		}
		return nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]any{"segments": out})
}

// handleSetStrategySegments is Unleash's updateFeatureStrategySegments:
// the strategy's segments become exactly segmentIds. The strategy must be
// in the environment and project named; segments must exist and be global
// or of that project; environments under change requests refuse direct
// edits (403). Event feature-strategy-update. 201 with the request as
// stored.
func (s *Server) handleSetStrategySegments(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		ProjectID     string `json:"projectId"`
		StrategyID    string `json:"strategyId"`
		EnvironmentID string `json:"environmentId"`
		SegmentIDs    *[]int `json:"segmentIds"`
	}
	if err := decode(w, r, &body); err != nil {
		return err
	}
	for field, v := range map[string]string{"projectId": body.ProjectID, "strategyId": body.StrategyID, "environmentId": body.EnvironmentID} {
		if v == "" {
			return apierr.Invalid(field, "%s is required", field)
		}
		if err := checkText(field, v, 100); err != nil {
			return err
		}
	}
	if body.SegmentIDs == nil {
		return apierr.Invalid("segmentIds", "segmentIds is required (it may be an empty list)")
	}
	ctx := r.Context()
	var ids []int
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		before, err := tx.GetStrategy(ctx, body.StrategyID)
		if err != nil {
			return nil, err
		}
		f, err := tx.GetFeature(ctx, before.Feature)
		if err != nil {
			return nil, err
		}
		if f.Project != body.ProjectID || before.Environment != body.EnvironmentID {
			return nil, apierr.New(apierr.NotFound, "project %s has no strategy %s in environment %s", body.ProjectID, body.StrategyID, body.EnvironmentID)
		}
		if f.Archived() {
			return nil, apierr.New(apierr.NotFound, "feature flag %s is archived; revive it to change it", f.Name)
		}
		if err := checkDirectEdit(ctx, tx, f.Project, before.Environment); err != nil {
			return nil, err
		}
		if ids, err = checkSegmentRefs(ctx, tx, f.Project, *body.SegmentIDs); err != nil {
			return nil, err
		}
		if slices.Equal(ids, before.Segments) || (len(ids) == 0 && len(before.Segments) == 0) {
			return nil, nil
		}
		after := before
		after.Segments = ids
		saved, err := tx.UpdateStrategy(ctx, after)
		if err != nil {
			return nil, err
		}
		return []store.Event{strategyEvent("feature-strategy-update", f, before.Environment, strategyView(saved), strategyView(before))}, nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, map[string]any{
		"projectId": body.ProjectID, "strategyId": body.StrategyID, "environmentId": body.EnvironmentID, "segmentIds": ids,
	})
}
