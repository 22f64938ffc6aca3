package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

func testFeatures(t *testing.T, s store.Store) {
	ctx := t.Context()
	f := store.Feature{
		Name: "checkout.v2", Project: "default", Type: "experiment", Description: "new checkout",
		ImpressionData: true, CreatedAt: t0, CreatedBy: "alice@example.com",
	}
	update(t, s, func(tx store.Tx) error {
		if _, err := tx.CreateProject(ctx, store.Project{ID: "other", Name: "Other"}); err != nil {
			return err
		}
		got, err := tx.CreateFeature(ctx, f)
		if err != nil {
			return err
		}
		diff(t, "created feature", f, got)
		for _, g := range []store.Feature{
			{Name: "checkout.v3", Project: "other", Type: "release"},
			{Name: "search", Project: "default", Type: "release"},
			{Name: "old", Project: "default", Type: "release", ArchivedAt: ptr(t0)},
		} {
			if _, err := tx.CreateFeature(ctx, g); err != nil {
				return err
			}
		}
		_, err = tx.CreateFeatureTag(ctx, store.FeatureTag{Feature: "search", Tag: store.Tag{Type: "simple", Value: "team-a"}})
		return err
	})
	diff(t, "GetFeature", f, get(t, s, func(ctx context.Context, r store.Reader) (store.Feature, error) {
		return r.GetFeature(ctx, "checkout.v2")
	}))
	if got := get(t, s, func(ctx context.Context, r store.Reader) (store.Feature, error) {
		return r.GetFeature(ctx, "search")
	}); got.CreatedAt.IsZero() || got.Archived() {
		t.Errorf("zero CreatedAt not set or archived: %+v", got)
	}

	filters := []struct {
		name string
		f    store.FeatureFilter
		want []string
	}{
		{"all", store.FeatureFilter{}, []string{"checkout.v2", "checkout.v3", "old", "search"}},
		{"project", store.FeatureFilter{Project: "default"}, []string{"checkout.v2", "old", "search"}},
		{"active", store.FeatureFilter{Archived: ptr(false)}, []string{"checkout.v2", "checkout.v3", "search"}},
		{"archived", store.FeatureFilter{Archived: ptr(true)}, []string{"old"}},
		{"prefix", store.FeatureFilter{NamePrefix: "checkout."}, []string{"checkout.v2", "checkout.v3"}},
		{"prefix is case-sensitive", store.FeatureFilter{NamePrefix: "CHECKOUT"}, nil},
		{"prefix with wildcard characters", store.FeatureFilter{NamePrefix: "check%"}, nil},
		{"type", store.FeatureFilter{Type: "experiment"}, []string{"checkout.v2"}},
		{"names", store.FeatureFilter{Names: []string{"search", "old", "missing"}}, []string{"old", "search"}},
		{"no names", store.FeatureFilter{Names: []string{}}, nil},
		{"tag", store.FeatureFilter{Tag: &store.Tag{Type: "simple", Value: "team-a"}}, []string{"search"}},
		{"combined", store.FeatureFilter{Project: "default", Archived: ptr(false), NamePrefix: "s"}, []string{"search"}},
	}
	for _, tt := range filters {
		t.Run("List/"+tt.name, func(t *testing.T) {
			var names []string
			for _, f := range get(t, s, func(ctx context.Context, r store.Reader) ([]store.Feature, error) {
				return r.ListFeatures(ctx, tt.f)
			}) {
				names = append(names, f.Name)
			}
			diff(t, "names", tt.want, names)
		})
	}

	f.Project, f.Type, f.Stale, f.Description, f.ArchivedAt = "other", "release", true, "", ptr(t0.Add(time.Hour))
	update(t, s, func(tx store.Tx) error {
		got, err := tx.UpdateFeature(ctx, f)
		diff(t, "updated feature", f, got)
		return err
	})

	runErrCases(t, s, []errCase{
		{"create taken name", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateFeature(ctx, store.Feature{Name: "search", Project: "default", Type: "release"})
			return err
		}, apierr.NameExists},
		{"create name of archived", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateFeature(ctx, store.Feature{Name: "old", Project: "default", Type: "release"})
			return err
		}, apierr.NameExists},
		{"create in unknown project", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateFeature(ctx, store.Feature{Name: "x", Project: "nope", Type: "release"})
			return err
		}, apierr.NotFound},
		{"create with unknown type", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateFeature(ctx, store.Feature{Name: "x", Project: "default", Type: "nope"})
			return err
		}, apierr.NotFound},
		{"update missing", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.UpdateFeature(ctx, store.Feature{Name: "nope", Project: "default", Type: "release"})
			return err
		}, apierr.NotFound},
		{"move to unknown project", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.UpdateFeature(ctx, store.Feature{Name: "search", Project: "nope", Type: "release"})
			return err
		}, apierr.NotFound},
		{"get missing", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.GetFeature(ctx, "nope")
			return err
		}, apierr.NotFound},
		{"delete missing", func(ctx context.Context, tx store.Tx) error { return tx.DeleteFeature(ctx, "nope") }, apierr.NotFound},
	})

	// Delete takes everything hanging off the feature with it.
	update(t, s, func(tx store.Tx) error {
		if _, err := tx.UpdateFeatureEnvironment(ctx, store.FeatureEnvironment{Feature: "search", Environment: "development", Enabled: true}); err != nil {
			return err
		}
		if _, err := tx.CreateStrategy(ctx, store.Strategy{ID: "s-search", Feature: "search", Environment: "development", Name: "default"}); err != nil {
			return err
		}
		if err := tx.CreateDependency(ctx, store.Dependency{Child: "checkout.v3", Parent: "search", Enabled: true}); err != nil {
			return err
		}
		return tx.DeleteFeature(ctx, "search")
	})
	view(t, s, func(r store.Reader) error {
		if _, err := r.GetStrategy(ctx, "s-search"); !apierr.Is(err, apierr.NotFound) {
			t.Errorf("strategy of deleted feature: %v", err)
		}
		if deps, err := r.ListDependencies(ctx, "checkout.v3"); err != nil || len(deps) != 0 {
			t.Errorf("dependency on deleted feature: %v %v", deps, err)
		}
		if tags, err := r.ListFeatureTags(ctx, ""); err != nil || len(tags) != 0 {
			t.Errorf("tags of deleted feature: %v %v", tags, err)
		}
		return nil
	})
}

func testFeatureTypes(t *testing.T, s store.Store) {
	ft := store.FeatureType{ID: "operational", Name: "Ops", Description: "short-lived", LifetimeDays: ptr(14)}
	update(t, s, func(tx store.Tx) error {
		got, err := tx.UpdateFeatureType(t.Context(), ft)
		diff(t, "updated type", ft, got)
		return err
	})
	ft.LifetimeDays = nil
	update(t, s, func(tx store.Tx) error {
		got, err := tx.UpdateFeatureType(t.Context(), ft)
		diff(t, "type without lifetime", ft, got)
		return err
	})
	runErrCases(t, s, []errCase{
		{"get missing", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.GetFeatureType(ctx, "nope")
			return err
		}, apierr.NotFound},
		{"update missing", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.UpdateFeatureType(ctx, store.FeatureType{ID: "nope"})
			return err
		}, apierr.NotFound},
	})
}

// fullVariants uses every field a flag variant can have.
var fullVariants = []clientapi.Variant{
	{
		Name: "blue", Weight: 700, WeightType: "variable", Stickiness: "userId",
		Payload:   &clientapi.Payload{Type: "json", Value: `{"color":"blue"}`},
		Overrides: []clientapi.Override{{ContextName: "userId", Values: []string{"u1", "u2"}}},
	},
	{Name: "red", Weight: 300, WeightType: "fix", Stickiness: "default", Payload: &clientapi.Payload{Type: "number", Value: "3"}},
	{Name: "plain", Weight: 0},
}

func testFeatureEnvironments(t *testing.T, s store.Store) {
	ctx := t.Context()
	update(t, s, func(tx store.Tx) error {
		if _, err := tx.CreateEnvironment(ctx, store.Environment{Name: "qa", Type: "test", SortOrder: 1}); err != nil {
			return err
		}
		_, err := tx.CreateFeature(ctx, store.Feature{Name: "f", Project: "default", Type: "release"})
		return err
	})
	// Never configured: off, no variants; qa exists but is not enabled for
	// the project, so it is not listed.
	diff(t, "initial", []store.FeatureEnvironment{
		{Feature: "f", Environment: "development"},
		{Feature: "f", Environment: "production"},
	}, get(t, s, func(ctx context.Context, r store.Reader) ([]store.FeatureEnvironment, error) {
		return r.ListFeatureEnvironments(ctx, "f")
	}))

	fe := store.FeatureEnvironment{Feature: "f", Environment: "production", Enabled: true, Variants: fullVariants}
	update(t, s, func(tx store.Tx) error {
		got, err := tx.UpdateFeatureEnvironment(ctx, fe)
		if err != nil {
			return err
		}
		diff(t, "updated", fe, got)
		// qa is not enabled for the project, but can still be configured.
		_, err = tx.UpdateFeatureEnvironment(ctx, store.FeatureEnvironment{Feature: "f", Environment: "qa", Enabled: true})
		return err
	})
	diff(t, "GetFeatureEnvironment", fe, get(t, s, func(ctx context.Context, r store.Reader) (store.FeatureEnvironment, error) {
		return r.GetFeatureEnvironment(ctx, "f", "production")
	}))
	fe.Enabled, fe.Variants = false, nil
	update(t, s, func(tx store.Tx) error {
		got, err := tx.UpdateFeatureEnvironment(ctx, fe)
		diff(t, "switched off", fe, got)
		return err
	})

	// Metrics stamps are operational: no event needed.
	if err := s.Update(ctx, func(tx store.Tx) error {
		return tx.MarkFeaturesSeen(ctx, "development", []string{"f", "unknown"}, t0)
	}); err != nil {
		t.Fatalf("MarkFeaturesSeen: %v", err)
	}
	view(t, s, func(r store.Reader) error {
		f, err := r.GetFeature(ctx, "f")
		if err != nil {
			return err
		}
		fe, err := r.GetFeatureEnvironment(ctx, "f", "development")
		if err != nil {
			return err
		}
		diff(t, "feature last seen", ptr(t0), f.LastSeenAt)
		diff(t, "environment last seen", ptr(t0), fe.LastSeenAt)
		return nil
	})

	runErrCases(t, s, []errCase{
		{"get unknown feature", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.GetFeatureEnvironment(ctx, "nope", "production")
			return err
		}, apierr.NotFound},
		{"get unknown environment", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.GetFeatureEnvironment(ctx, "f", "nope")
			return err
		}, apierr.NotFound},
		{"list unknown feature", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.ListFeatureEnvironments(ctx, "nope")
			return err
		}, apierr.NotFound},
		{"update unknown feature", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.UpdateFeatureEnvironment(ctx, store.FeatureEnvironment{Feature: "nope", Environment: "production"})
			return err
		}, apierr.NotFound},
		{"update unknown environment", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.UpdateFeatureEnvironment(ctx, store.FeatureEnvironment{Feature: "f", Environment: "nope"})
			return err
		}, apierr.NotFound},
	})
}
