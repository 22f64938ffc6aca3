package storetest

import (
	"context"
	"testing"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

func testClientState(t *testing.T, s store.Store) {
	ctx := t.Context()
	beta := []clientapi.Constraint{{ContextName: "userId", Operator: "IN", Values: []string{"1"}}}
	var seg store.Segment
	update(t, s, func(tx store.Tx) error {
		var err error
		if seg, err = tx.CreateSegment(ctx, store.Segment{Name: "beta", Constraints: beta}); err != nil {
			return err
		}
		// "side" has no production environment.
		if _, err := tx.CreateProject(ctx, store.Project{ID: "side", Name: "Side"}); err != nil {
			return err
		}
		if err := tx.CreateProjectEnvironment(ctx, store.ProjectEnvironment{Project: "side", Environment: "development"}); err != nil {
			return err
		}
		for _, f := range []store.Feature{
			{Name: "a", Project: "default", Type: "release", Description: "A", ImpressionData: true},
			{Name: "archived", Project: "default", Type: "release", ArchivedAt: ptr(t0)},
			{Name: "off", Project: "default", Type: "kill-switch", Stale: true},
			{Name: "side-flag", Project: "side", Type: "release"},
		} {
			if _, err := tx.CreateFeature(ctx, f); err != nil {
				return err
			}
		}
		for _, fe := range []store.FeatureEnvironment{
			{Feature: "a", Environment: "production", Enabled: true, Variants: fullVariants},
			{Feature: "archived", Environment: "production", Enabled: true},
			// Enabled, but its project does not have production.
			{Feature: "side-flag", Environment: "production", Enabled: true},
			{Feature: "a", Environment: "development", Enabled: false},
		} {
			if _, err := tx.UpdateFeatureEnvironment(ctx, fe); err != nil {
				return err
			}
		}
		for _, st := range []store.Strategy{
			{ID: "a-2", Feature: "a", Environment: "production", Name: "flexibleRollout", SortOrder: 2,
				Parameters: clientapi.Parameters{"rollout": "50"}, Segments: []int{seg.ID},
				Variants: []clientapi.Variant{{Name: "s", Weight: 1000, WeightType: "fix", Stickiness: "default"}}},
			{ID: "a-1", Feature: "a", Environment: "production", Name: "userWithId", SortOrder: 1,
				Parameters: clientapi.Parameters{"userIds": "7"}, Constraints: beta},
			{ID: "a-disabled", Feature: "a", Environment: "production", Name: "default", Disabled: true},
			{ID: "a-dev", Feature: "a", Environment: "development", Name: "default"},
			{ID: "archived-1", Feature: "archived", Environment: "production", Name: "default"},
		} {
			if _, err := tx.CreateStrategy(ctx, st); err != nil {
				return err
			}
		}
		if err := tx.CreateDependency(ctx, store.Dependency{Child: "off", Parent: "a", Enabled: true, Variants: []string{"blue"}}); err != nil {
			return err
		}
		if err := tx.CreateDependency(ctx, store.Dependency{Child: "side-flag", Parent: "off", Enabled: false}); err != nil {
			return err
		}
		_, err = tx.CreateFeatureTag(ctx, store.FeatureTag{Feature: "a", Tag: store.Tag{Type: "simple", Value: "web"}})
		return err
	})

	st := get(t, s, func(ctx context.Context, r store.Reader) (store.ClientState, error) {
		return r.GetClientState(ctx, "production")
	})
	rev := get(t, s, func(ctx context.Context, r store.Reader) (int64, error) { return r.Revision(ctx) })
	yes, no, one, two := true, false, 1, 2
	want := store.ClientState{
		Revision:    rev,
		Environment: "production",
		Features: []store.ClientFeature{
			{Feature: clientapi.Feature{
				Name: "a", Type: "release", Description: "A", Project: "default", Enabled: true, ImpressionData: true,
				Strategies: []clientapi.Strategy{
					{ID: "a-1", Name: "userWithId", SortOrder: &one, Constraints: beta, Parameters: clientapi.Parameters{"userIds": "7"}},
					{ID: "a-2", Name: "flexibleRollout", SortOrder: &two, Parameters: clientapi.Parameters{"rollout": "50"},
						Segments: []int{seg.ID}, Variants: []clientapi.Variant{{Name: "s", Weight: 1000, WeightType: "fix", Stickiness: "default"}}},
				},
				Variants: fullVariants,
			}, Tags: []store.Tag{{Type: "simple", Value: "web"}}},
			{Feature: clientapi.Feature{
				Name: "off", Type: "kill-switch", Project: "default", Stale: true,
				Dependencies: []clientapi.Dependency{{Feature: "a", Enabled: &yes, Variants: []string{"blue"}}},
			}},
			{Feature: clientapi.Feature{
				Name: "side-flag", Type: "release", Project: "side",
				Dependencies: []clientapi.Dependency{{Feature: "off", Enabled: &no}},
			}},
		},
		Segments: []clientapi.Segment{{ID: seg.ID, Name: "beta", Constraints: beta}},
	}
	diff(t, "production state", want, st)
	// SDKs expect [] rather than null.
	for _, f := range st.Features {
		if f.Strategies == nil || f.Variants == nil {
			t.Errorf("feature %q has nil lists", f.Name)
		}
		for _, x := range f.Strategies {
			if x.Constraints == nil || x.Parameters == nil {
				t.Errorf("strategy %q has nil constraints or parameters", x.ID)
			}
		}
	}

	dev := get(t, s, func(ctx context.Context, r store.Reader) (store.ClientState, error) {
		return r.GetClientState(ctx, "development")
	})
	if len(dev.Features) != 3 || dev.Features[0].Enabled || len(dev.Features[0].Strategies) != 1 {
		t.Errorf("development state: %+v", dev.Features)
	}

	if k := readKind(t, s, func(ctx context.Context, r store.Reader) error {
		_, err := r.GetClientState(ctx, "nope")
		return err
	}); k != apierr.NotFound {
		t.Errorf("unknown environment: kind %q, want NotFound", k)
	}

	// Archiving takes a feature out, and the revision moves.
	update(t, s, func(tx store.Tx) error {
		f, err := tx.GetFeature(ctx, "a")
		if err != nil {
			return err
		}
		f.ArchivedAt = ptr(t0)
		_, err = tx.UpdateFeature(ctx, f)
		return err
	})
	after := get(t, s, func(ctx context.Context, r store.Reader) (store.ClientState, error) {
		return r.GetClientState(ctx, "production")
	})
	if after.Revision <= st.Revision {
		t.Errorf("revision %d after a change, was %d", after.Revision, st.Revision)
	}
	if len(after.Features) != 2 || after.Features[0].Name != "off" {
		t.Errorf("archived feature still served: %+v", after.Features)
	}
}
