package storetest

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

func testStrategies(t *testing.T, s store.Store) {
	ctx := t.Context()
	var seg1, seg2 store.Segment
	update(t, s, func(tx store.Tx) error {
		var err error
		if seg1, err = tx.CreateSegment(ctx, store.Segment{Name: "beta"}); err != nil {
			return err
		}
		if seg2, err = tx.CreateSegment(ctx, store.Segment{Name: "staff"}); err != nil {
			return err
		}
		if _, err := tx.CreateProject(ctx, store.Project{ID: "strategy-side", Name: "Strategy side"}); err != nil {
			return err
		}
		for name, project := range map[string]string{"f": "default", "g": "strategy-side"} {
			if _, err := tx.CreateFeature(ctx, store.Feature{Name: name, Project: project, Type: "release"}); err != nil {
				return err
			}
		}
		return nil
	})

	full := store.Strategy{
		ID: "0b5c7c53-2f0e-4bd4-9c61-4a8a3a3c9e11", Feature: "f", Environment: "production",
		Name: "flexibleRollout", Title: "half of beta", SortOrder: 2,
		Parameters: clientapi.Parameters{"rollout": "50", "stickiness": "default", "groupId": "f"},
		Constraints: []clientapi.Constraint{
			{ContextName: "appName", Operator: "IN", Values: []string{"web", "ios"}},
			{ContextName: "version", Operator: "SEMVER_GT", Value: "1.2.3", Inverted: true, CaseInsensitive: true},
		},
		Segments:  []int{seg2.ID, seg1.ID},
		Variants:  []clientapi.Variant{{Name: "a", Weight: 1000, WeightType: "variable", Stickiness: "default", Payload: &clientapi.Payload{Type: "string", Value: "x"}}},
		CreatedAt: t0,
	}
	var generated store.Strategy
	update(t, s, func(tx store.Tx) error {
		got, err := tx.CreateStrategy(ctx, full)
		if err != nil {
			return err
		}
		want := full
		want.Segments = []int{seg1.ID, seg2.ID} // ascending
		diff(t, "created strategy", want, got)
		full = got
		// ID and CreatedAt generated; empty lists and parameters stored.
		if generated, err = tx.CreateStrategy(ctx, store.Strategy{Feature: "f", Environment: "production", Name: "default", SortOrder: 1}); err != nil {
			return err
		}
		if generated.ID == "" || generated.CreatedAt.IsZero() || generated.Parameters == nil {
			t.Errorf("generated fields missing: %+v", generated)
		}
		for _, st := range []store.Strategy{
			{ID: "g-dev", Feature: "g", Environment: "development", Name: "default"},
			{ID: "f-dev", Feature: "f", Environment: "development", Name: "userWithId", Parameters: clientapi.Parameters{"userIds": "1,2"}},
		} {
			if _, err := tx.CreateStrategy(ctx, st); err != nil {
				return err
			}
		}
		return nil
	})
	diff(t, "GetStrategy", full, get(t, s, func(ctx context.Context, r store.Reader) (store.Strategy, error) {
		return r.GetStrategy(ctx, full.ID)
	}))

	filters := []struct {
		name string
		f    store.StrategyFilter
		want []string
	}{
		{"all", store.StrategyFilter{}, []string{"f-dev", generated.ID, full.ID, "g-dev"}},
		{"feature and environment, by sort order", store.StrategyFilter{Feature: "f", Environment: "production"}, []string{generated.ID, full.ID}},
		{"environment", store.StrategyFilter{Environment: "development"}, []string{"f-dev", "g-dev"}},
		{"segment", store.StrategyFilter{SegmentID: seg2.ID}, []string{full.ID}},
		{"project", store.StrategyFilter{Project: "strategy-side"}, []string{"g-dev"}},
		{"project and environment", store.StrategyFilter{Project: "default", Environment: "development"}, []string{"f-dev"}},
		{"with segments", store.StrategyFilter{WithSegments: true}, []string{full.ID}},
		{"with constraints", store.StrategyFilter{WithConstraints: true}, []string{full.ID}},
	}
	for _, tt := range filters {
		t.Run("List/"+tt.name, func(t *testing.T) {
			var ids []string
			for _, st := range get(t, s, func(ctx context.Context, r store.Reader) ([]store.Strategy, error) {
				return r.ListStrategies(ctx, tt.f)
			}) {
				ids = append(ids, st.ID)
			}
			diff(t, "ids", tt.want, ids)
		})
	}

	// Constraint uses: full (flag f, project default) constrains appName and
	// version; no other strategy has constraints.
	uses := get(t, s, func(ctx context.Context, r store.Reader) ([]store.ConstraintUse, error) {
		return r.ConstraintUses(ctx)
	})
	diff(t, "ConstraintUses", []store.ConstraintUse{
		{ContextName: "appName", Feature: "f", Project: "default"},
		{ContextName: "version", Feature: "f", Project: "default"},
	}, uses, cmpopts.SortSlices(func(a, b store.ConstraintUse) bool { return a.ContextName < b.ContextName }))

	// Limits: f has two strategies in production; full has two constraints,
	// the first with two values.
	limits := get(t, s, func(ctx context.Context, r store.Reader) (store.StrategyLimits, error) {
		return r.StrategyLimits(ctx)
	})
	diff(t, "StrategyLimits", store.StrategyLimits{MaxEnvironmentStrategies: 2, MaxConstraints: 2, MaxConstraintValues: 2}, limits)

	changed := full
	changed.Name, changed.Title, changed.Disabled, changed.SortOrder = "default", "", true, 0
	changed.Parameters, changed.Constraints, changed.Variants, changed.Segments = nil, nil, nil, []int{seg1.ID}
	update(t, s, func(tx store.Tx) error {
		got, err := tx.UpdateStrategy(ctx, changed)
		diff(t, "updated strategy", changed, got, cmpopts.IgnoreFields(store.Strategy{}, "Parameters"))
		if len(got.Parameters) != 0 || got.Parameters == nil {
			t.Errorf("parameters = %#v, want empty non-nil", got.Parameters)
		}
		return err
	})
	// The limits follow the change: full now has no constraints.
	limits = get(t, s, func(ctx context.Context, r store.Reader) (store.StrategyLimits, error) {
		return r.StrategyLimits(ctx)
	})
	diff(t, "StrategyLimits after the update", store.StrategyLimits{MaxEnvironmentStrategies: 2}, limits)

	runErrCases(t, s, []errCase{
		{"unknown feature", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateStrategy(ctx, store.Strategy{Feature: "nope", Environment: "production", Name: "default"})
			return err
		}, apierr.NotFound},
		{"unknown environment", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateStrategy(ctx, store.Strategy{Feature: "f", Environment: "nope", Name: "default"})
			return err
		}, apierr.NotFound},
		{"unknown segment", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateStrategy(ctx, store.Strategy{ID: "half-made", Feature: "f", Environment: "production", Name: "default", Segments: []int{9999}})
			return err
		}, apierr.NotFound},
		{"nothing of the failed create was kept", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.GetStrategy(ctx, "half-made")
			return err
		}, apierr.NotFound},
		{"taken id", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateStrategy(ctx, store.Strategy{ID: "g-dev", Feature: "f", Environment: "production", Name: "default"})
			return err
		}, apierr.NameExists},
		{"update unknown segment", func(ctx context.Context, tx store.Tx) error {
			st := changed
			st.Segments = []int{9999}
			_, err := tx.UpdateStrategy(ctx, st)
			return err
		}, apierr.NotFound},
		{"update missing", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.UpdateStrategy(ctx, store.Strategy{ID: "nope", Name: "default"})
			return err
		}, apierr.NotFound},
		{"get missing", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.GetStrategy(ctx, "nope")
			return err
		}, apierr.NotFound},
		{"delete", func(ctx context.Context, tx store.Tx) error { return tx.DeleteStrategy(ctx, full.ID) }, ""},
		{"delete missing", func(ctx context.Context, tx store.Tx) error { return tx.DeleteStrategy(ctx, full.ID) }, apierr.NotFound},
	})
	// A deleted strategy no longer holds on to its segments.
	if got := get(t, s, func(ctx context.Context, r store.Reader) ([]store.Strategy, error) {
		return r.ListStrategies(ctx, store.StrategyFilter{SegmentID: seg1.ID})
	}); len(got) != 0 {
		t.Errorf("deleted strategy still uses segment: %+v", got)
	}
}

func testSegments(t *testing.T, s store.Store) {
	ctx := t.Context()
	seg := store.Segment{
		Name: "beta users", Description: "opted in",
		Constraints: []clientapi.Constraint{{ContextName: "userId", Operator: "STR_STARTS_WITH", Values: []string{"beta-"}}},
		CreatedAt:   t0, CreatedBy: "bob",
	}
	update(t, s, func(tx store.Tx) error {
		if _, err := tx.CreateProject(ctx, store.Project{ID: "p", Name: "P"}); err != nil {
			return err
		}
		got, err := tx.CreateSegment(ctx, seg)
		if err != nil {
			return err
		}
		if got.ID <= 0 {
			t.Errorf("no ID assigned: %+v", got)
		}
		seg.ID = got.ID
		diff(t, "created segment", seg, got)
		_, err = tx.CreateSegment(ctx, store.Segment{Name: "p only", Project: "p"})
		return err
	})
	names := func(project string) []string {
		var out []string
		for _, s := range get(t, s, func(ctx context.Context, r store.Reader) ([]store.Segment, error) {
			return r.ListSegments(ctx, store.SegmentFilter{Project: project})
		}) {
			out = append(out, s.Name)
		}
		return out
	}
	diff(t, "all segments", []string{"beta users", "p only"}, names(""))
	diff(t, "segments usable in default", []string{"beta users"}, names("default"))
	diff(t, "segments usable in p", []string{"beta users", "p only"}, names("p"))

	seg.Name, seg.Project, seg.Constraints = "beta", "p", nil
	update(t, s, func(tx store.Tx) error {
		got, err := tx.UpdateSegment(ctx, seg)
		diff(t, "updated segment", seg, got)
		if err != nil {
			return err
		}
		if _, err := tx.CreateFeature(ctx, store.Feature{Name: "f", Project: "p", Type: "release"}); err != nil {
			return err
		}
		_, err = tx.CreateStrategy(ctx, store.Strategy{ID: "uses-seg", Feature: "f", Environment: "development", Name: "default", Segments: []int{seg.ID}})
		return err
	})

	runErrCases(t, s, []errCase{
		{"create taken name", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateSegment(ctx, store.Segment{Name: "beta"})
			return err
		}, apierr.NameExists},
		{"create in unknown project", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateSegment(ctx, store.Segment{Name: "x", Project: "nope"})
			return err
		}, apierr.NotFound},
		{"rename to taken name", func(ctx context.Context, tx store.Tx) error {
			s := seg
			s.Name = "p only"
			_, err := tx.UpdateSegment(ctx, s)
			return err
		}, apierr.NameExists},
		{"update missing", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.UpdateSegment(ctx, store.Segment{ID: 9999, Name: "z"})
			return err
		}, apierr.NotFound},
		{"get missing", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.GetSegment(ctx, 9999)
			return err
		}, apierr.NotFound},
		{"delete in use", func(ctx context.Context, tx store.Tx) error { return tx.DeleteSegment(ctx, seg.ID) }, apierr.BadData},
		{"delete after the strategy is gone", func(ctx context.Context, tx store.Tx) error {
			if err := tx.DeleteStrategy(ctx, "uses-seg"); err != nil {
				return err
			}
			return tx.DeleteSegment(ctx, seg.ID)
		}, ""},
		{"delete missing", func(ctx context.Context, tx store.Tx) error { return tx.DeleteSegment(ctx, seg.ID) }, apierr.NotFound},
	})
}
