package storetest

import (
	"context"
	"testing"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

func testProjects(t *testing.T, s store.Store) {
	p := store.Project{
		ID: "web", Name: "Web", Description: "the web shop", Mode: "protected",
		DefaultStickiness: "userId", FeatureLimit: ptr(10), CreatedAt: t0,
	}
	update(t, s, func(tx store.Tx) error {
		got, err := tx.CreateProject(t.Context(), p)
		diff(t, "created project", p, got)
		return err
	})
	diff(t, "GetProject", p, get(t, s, func(ctx context.Context, r store.Reader) (store.Project, error) {
		return r.GetProject(ctx, "web")
	}))

	// Defaults for mode and stickiness, CreatedAt set by the store.
	update(t, s, func(tx store.Tx) error {
		got, err := tx.CreateProject(t.Context(), store.Project{ID: "bare", Name: "Bare"})
		if got.Mode != "open" || got.DefaultStickiness != "default" || got.CreatedAt.IsZero() {
			t.Errorf("defaults not applied: %+v", got)
		}
		return err
	})

	list := get(t, s, func(ctx context.Context, r store.Reader) ([]store.Project, error) { return r.ListProjects(ctx) })
	var ids []string
	for _, p := range list {
		ids = append(ids, p.ID)
	}
	diff(t, "project ids", []string{"bare", "default", "web"}, ids)

	p.Name, p.Description, p.FeatureLimit, p.UpdatedAt = "Web shop", "", nil, ptr(t0.Add(1e9))
	update(t, s, func(tx store.Tx) error {
		got, err := tx.UpdateProject(t.Context(), p)
		diff(t, "updated project", p, got)
		return err
	})

	update(t, s, func(tx store.Tx) error {
		_, err := tx.CreateFeature(t.Context(), store.Feature{Name: "in-web", Project: "web", Type: "release"})
		return err
	})
	runErrCases(t, s, []errCase{
		{"create taken id", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateProject(ctx, store.Project{ID: "default", Name: "again"})
			return err
		}, apierr.NameExists},
		{"update missing", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.UpdateProject(ctx, store.Project{ID: "nope"})
			return err
		}, apierr.NotFound},
		{"delete missing", func(ctx context.Context, tx store.Tx) error { return tx.DeleteProject(ctx, "nope") }, apierr.NotFound},
		{"delete with features", func(ctx context.Context, tx store.Tx) error { return tx.DeleteProject(ctx, "web") }, apierr.BadData},
		{"delete empty", func(ctx context.Context, tx store.Tx) error { return tx.DeleteProject(ctx, "bare") }, ""},
	})
	if k := readKind(t, s, func(ctx context.Context, r store.Reader) error {
		_, err := r.GetProject(ctx, "bare")
		return err
	}); k != apierr.NotFound {
		t.Errorf("GetProject after delete: kind %q, want NotFound", k)
	}
}

func testProjectEnvironments(t *testing.T, s store.Store) {
	update(t, s, func(tx store.Tx) error {
		if _, err := tx.CreateProject(t.Context(), store.Project{ID: "app", Name: "App"}); err != nil {
			return err
		}
		return tx.CreateProjectEnvironment(t.Context(), store.ProjectEnvironment{Project: "app", Environment: "production"})
	})
	list := func() []store.ProjectEnvironment {
		return get(t, s, func(ctx context.Context, r store.Reader) ([]store.ProjectEnvironment, error) {
			return r.ListProjectEnvironments(ctx, "app")
		})
	}
	diff(t, "project environments", []store.ProjectEnvironment{{Project: "app", Environment: "production"}}, list())

	def := &store.StrategyTemplate{
		Name:       "flexibleRollout",
		Title:      "half",
		Parameters: clientapi.Parameters{"rollout": "50", "stickiness": "default", "groupId": "g"},
		Constraints: []clientapi.Constraint{
			{ContextName: "userId", Operator: "IN", Values: []string{"a", "b"}, CaseInsensitive: true},
		},
		Variants: []clientapi.Variant{{Name: "v", Weight: 1000, WeightType: "variable", Stickiness: "default"}},
		Segments: []int{},
	}
	update(t, s, func(tx store.Tx) error {
		if err := tx.CreateProjectEnvironment(t.Context(), store.ProjectEnvironment{Project: "app", Environment: "development"}); err != nil {
			return err
		}
		return tx.UpdateProjectEnvironment(t.Context(), store.ProjectEnvironment{Project: "app", Environment: "development", DefaultStrategy: def})
	})
	diff(t, "project environments", []store.ProjectEnvironment{
		{Project: "app", Environment: "development", DefaultStrategy: def},
		{Project: "app", Environment: "production"},
	}, list())

	runErrCases(t, s, []errCase{
		{"enable twice", func(ctx context.Context, tx store.Tx) error {
			return tx.CreateProjectEnvironment(ctx, store.ProjectEnvironment{Project: "app", Environment: "production"})
		}, apierr.NameExists},
		{"unknown environment", func(ctx context.Context, tx store.Tx) error {
			return tx.CreateProjectEnvironment(ctx, store.ProjectEnvironment{Project: "app", Environment: "staging"})
		}, apierr.NotFound},
		{"unknown project", func(ctx context.Context, tx store.Tx) error {
			return tx.CreateProjectEnvironment(ctx, store.ProjectEnvironment{Project: "nope", Environment: "production"})
		}, apierr.NotFound},
		{"update not enabled", func(ctx context.Context, tx store.Tx) error {
			return tx.UpdateProjectEnvironment(ctx, store.ProjectEnvironment{Project: "default", Environment: "staging"})
		}, apierr.NotFound},
		{"disable", func(ctx context.Context, tx store.Tx) error {
			return tx.DeleteProjectEnvironment(ctx, "app", "production")
		}, ""},
		{"disable again", func(ctx context.Context, tx store.Tx) error {
			return tx.DeleteProjectEnvironment(ctx, "app", "production")
		}, apierr.NotFound},
	})
	if got := list(); len(got) != 1 || got[0].Environment != "development" {
		t.Errorf("after disabling production: %+v", got)
	}
	if k := readKind(t, s, func(ctx context.Context, r store.Reader) error {
		_, err := r.ListProjectEnvironments(ctx, "nope")
		return err
	}); k != apierr.NotFound {
		t.Errorf("ListProjectEnvironments of unknown project: kind %q, want NotFound", k)
	}
}

func testEnvironments(t *testing.T, s store.Store) {
	staging := store.Environment{Name: "staging", Type: "test", Enabled: true, SortOrder: 150, CreatedAt: t0}
	update(t, s, func(tx store.Tx) error {
		got, err := tx.CreateEnvironment(t.Context(), staging)
		diff(t, "created environment", staging, got)
		return err
	})
	diff(t, "GetEnvironment", staging, get(t, s, func(ctx context.Context, r store.Reader) (store.Environment, error) {
		return r.GetEnvironment(ctx, "staging")
	}))
	names := func() []string {
		var out []string
		for _, e := range get(t, s, func(ctx context.Context, r store.Reader) ([]store.Environment, error) {
			return r.ListEnvironments(ctx)
		}) {
			out = append(out, e.Name)
		}
		return out
	}
	diff(t, "environments by sort order", []string{"development", "staging", "production"}, names())

	staging.SortOrder, staging.Protected, staging.Enabled, staging.Type = 300, true, false, "preproduction"
	update(t, s, func(tx store.Tx) error {
		got, err := tx.UpdateEnvironment(t.Context(), staging)
		diff(t, "updated environment", staging, got)
		return err
	})
	diff(t, "environments after reorder", []string{"development", "production", "staging"}, names())

	// Deleting an environment deletes what was configured in it.
	update(t, s, func(tx store.Tx) error {
		ctx := t.Context()
		if _, err := tx.CreateFeature(ctx, store.Feature{Name: "f", Project: "default", Type: "release"}); err != nil {
			return err
		}
		if _, err := tx.UpdateFeatureEnvironment(ctx, store.FeatureEnvironment{Feature: "f", Environment: "staging", Enabled: true}); err != nil {
			return err
		}
		_, err := tx.CreateStrategy(ctx, store.Strategy{ID: "s1", Feature: "f", Environment: "staging", Name: "default"})
		return err
	})
	runErrCases(t, s, []errCase{
		{"create taken name", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateEnvironment(ctx, store.Environment{Name: "production", Type: "production"})
			return err
		}, apierr.NameExists},
		{"update missing", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.UpdateEnvironment(ctx, store.Environment{Name: "nope"})
			return err
		}, apierr.NotFound},
		{"get missing", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.GetEnvironment(ctx, "nope")
			return err
		}, apierr.NotFound},
		{"delete", func(ctx context.Context, tx store.Tx) error { return tx.DeleteEnvironment(ctx, "staging") }, ""},
		{"delete missing", func(ctx context.Context, tx store.Tx) error { return tx.DeleteEnvironment(ctx, "staging") }, apierr.NotFound},
		{"strategy went with it", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.GetStrategy(ctx, "s1")
			return err
		}, apierr.NotFound},
	})
}
