package storetest

import (
	"context"
	"testing"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// Tests of the small catalogues: context fields, tag types, feature tags,
// dependencies and strategy definitions.

func testContextFields(t *testing.T, s store.Store) {
	ctx := t.Context()
	cf := store.ContextField{
		Name: "region", Description: "where the user is",
		LegalValues: []store.LegalValue{{Value: "eu", Description: "Europe"}, {Value: "us"}},
		Stickiness:  true, SortOrder: 5, CreatedAt: t0,
	}
	update(t, s, func(tx store.Tx) error {
		got, err := tx.CreateContextField(ctx, cf)
		diff(t, "created field", cf, got)
		return err
	})
	cf.LegalValues, cf.Stickiness, cf.Description = nil, false, ""
	update(t, s, func(tx store.Tx) error {
		got, err := tx.UpdateContextField(ctx, cf)
		diff(t, "updated field", cf, got)
		return err
	})
	list := get(t, s, func(ctx context.Context, r store.Reader) ([]store.ContextField, error) {
		return r.ListContextFields(ctx)
	})
	found := false
	for i, f := range list {
		found = found || f.Name == "region"
		if i > 0 && list[i-1].SortOrder > f.SortOrder {
			t.Errorf("fields not in sort order: %+v", list)
		}
	}
	if !found {
		t.Errorf("region missing from %+v", list)
	}
	runErrCases(t, s, []errCase{
		{"create taken", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateContextField(ctx, store.ContextField{Name: "region"})
			return err
		}, apierr.NameExists},
		{"update missing", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.UpdateContextField(ctx, store.ContextField{Name: "nope"})
			return err
		}, apierr.NotFound},
		{"delete", func(ctx context.Context, tx store.Tx) error { return tx.DeleteContextField(ctx, "region") }, ""},
		{"get deleted", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.GetContextField(ctx, "region")
			return err
		}, apierr.NotFound},
		{"delete missing", func(ctx context.Context, tx store.Tx) error { return tx.DeleteContextField(ctx, "region") }, apierr.NotFound},
	})
}

func testTagTypes(t *testing.T, s store.Store) {
	ctx := t.Context()
	tt := store.TagType{Name: "team", Description: "owning team", Icon: "people"}
	update(t, s, func(tx store.Tx) error {
		got, err := tx.CreateTagType(ctx, tt)
		diff(t, "created", tt, got)
		return err
	})
	tt.Description, tt.Icon = "owner", ""
	update(t, s, func(tx store.Tx) error {
		got, err := tx.UpdateTagType(ctx, tt)
		diff(t, "updated", tt, got)
		return err
	})
	var names []string
	for _, x := range get(t, s, func(ctx context.Context, r store.Reader) ([]store.TagType, error) { return r.ListTagTypes(ctx) }) {
		names = append(names, x.Name)
	}
	diff(t, "tag types", []string{"simple", "team"}, names)
	runErrCases(t, s, []errCase{
		{"create taken", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateTagType(ctx, store.TagType{Name: "simple"})
			return err
		}, apierr.NameExists},
		{"update missing", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.UpdateTagType(ctx, store.TagType{Name: "nope"})
			return err
		}, apierr.NotFound},
		{"get missing", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.GetTagType(ctx, "nope")
			return err
		}, apierr.NotFound},
		{"delete missing", func(ctx context.Context, tx store.Tx) error { return tx.DeleteTagType(ctx, "nope") }, apierr.NotFound},
	})
}

func testFeatureTags(t *testing.T, s store.Store) {
	ctx := t.Context()
	a := store.FeatureTag{Feature: "f", Tag: store.Tag{Type: "simple", Value: "web"}}
	b := store.FeatureTag{Feature: "f", Tag: store.Tag{Type: "team", Value: "core"}}
	c := store.FeatureTag{Feature: "g", Tag: store.Tag{Type: "simple", Value: "web"}}
	update(t, s, func(tx store.Tx) error {
		if _, err := tx.CreateTagType(ctx, store.TagType{Name: "team"}); err != nil {
			return err
		}
		for _, name := range []string{"f", "g"} {
			if _, err := tx.CreateFeature(ctx, store.Feature{Name: name, Project: "default", Type: "release"}); err != nil {
				return err
			}
		}
		for _, ft := range []store.FeatureTag{b, a, c} {
			created, err := tx.CreateFeatureTag(ctx, ft)
			if err != nil {
				return err
			}
			if !created {
				t.Errorf("CreateFeatureTag(%+v) created = false", ft)
			}
		}
		// Tagging again is no error and changes nothing.
		created, err := tx.CreateFeatureTag(ctx, a)
		if created {
			t.Error("second CreateFeatureTag reported created")
		}
		return err
	})
	diff(t, "tags of f", []store.FeatureTag{a, b}, get(t, s, func(ctx context.Context, r store.Reader) ([]store.FeatureTag, error) {
		return r.ListFeatureTags(ctx, "f")
	}))
	diff(t, "all feature tags", []store.FeatureTag{a, b, c}, get(t, s, func(ctx context.Context, r store.Reader) ([]store.FeatureTag, error) {
		return r.ListFeatureTags(ctx, "")
	}))
	diff(t, "distinct tags", []store.Tag{a.Tag, b.Tag}, get(t, s, func(ctx context.Context, r store.Reader) ([]store.Tag, error) {
		return r.ListTags(ctx, "")
	}))
	diff(t, "team tags", []store.Tag{b.Tag}, get(t, s, func(ctx context.Context, r store.Reader) ([]store.Tag, error) {
		return r.ListTags(ctx, "team")
	}))

	// A redundant tag needs no event: nothing changed.
	if err := s.Update(ctx, func(tx store.Tx) error {
		_, err := tx.CreateFeatureTag(ctx, a)
		return err
	}); err != nil {
		t.Errorf("idempotent tag without an event: %v", err)
	}

	runErrCases(t, s, []errCase{
		{"unknown feature", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateFeatureTag(ctx, store.FeatureTag{Feature: "nope", Tag: a.Tag})
			return err
		}, apierr.NotFound},
		{"unknown type", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateFeatureTag(ctx, store.FeatureTag{Feature: "f", Tag: store.Tag{Type: "nope", Value: "x"}})
			return err
		}, apierr.NotFound},
		{"list of unknown feature", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.ListFeatureTags(ctx, "nope")
			return err
		}, apierr.NotFound},
		{"delete", func(ctx context.Context, tx store.Tx) error { return tx.DeleteFeatureTag(ctx, a) }, ""},
		{"delete missing", func(ctx context.Context, tx store.Tx) error { return tx.DeleteFeatureTag(ctx, a) }, apierr.NotFound},
		{"delete type with its tags", func(ctx context.Context, tx store.Tx) error { return tx.DeleteTagType(ctx, "team") }, ""},
	})
	diff(t, "tags after deletes", []store.FeatureTag{c}, get(t, s, func(ctx context.Context, r store.Reader) ([]store.FeatureTag, error) {
		return r.ListFeatureTags(ctx, "")
	}))
}

func testDependencies(t *testing.T, s store.Store) {
	ctx := t.Context()
	update(t, s, func(tx store.Tx) error {
		for _, name := range []string{"parent", "other", "child", "child2"} {
			if _, err := tx.CreateFeature(ctx, store.Feature{Name: name, Project: "default", Type: "release"}); err != nil {
				return err
			}
		}
		for _, d := range []store.Dependency{
			{Child: "child", Parent: "parent", Enabled: true, Variants: []string{"blue", "red"}},
			{Child: "child", Parent: "other", Enabled: false},
			{Child: "child2", Parent: "parent", Enabled: true},
		} {
			if err := tx.CreateDependency(ctx, d); err != nil {
				return err
			}
		}
		return nil
	})
	diff(t, "parents of child", []store.Dependency{
		{Child: "child", Parent: "other"},
		{Child: "child", Parent: "parent", Enabled: true, Variants: []string{"blue", "red"}},
	}, get(t, s, func(ctx context.Context, r store.Reader) ([]store.Dependency, error) {
		return r.ListDependencies(ctx, "child")
	}))
	diff(t, "children of parent", []string{"child", "child2"}, get(t, s, func(ctx context.Context, r store.Reader) ([]string, error) {
		return r.ListChildren(ctx, "parent")
	}))
	update(t, s, func(tx store.Tx) error {
		return tx.UpdateDependency(ctx, store.Dependency{Child: "child", Parent: "other", Enabled: true, Variants: []string{"v"}})
	})
	if all := get(t, s, func(ctx context.Context, r store.Reader) ([]store.Dependency, error) {
		return r.ListDependencies(ctx, "")
	}); len(all) != 3 ||
		all[0].Parent != "other" || !all[0].Enabled || len(all[0].Variants) != 1 {
		t.Errorf("after update: %+v", all)
	}

	runErrCases(t, s, []errCase{
		{"itself", func(ctx context.Context, tx store.Tx) error {
			return tx.CreateDependency(ctx, store.Dependency{Child: "child", Parent: "child"})
		}, apierr.BadData},
		{"twice", func(ctx context.Context, tx store.Tx) error {
			return tx.CreateDependency(ctx, store.Dependency{Child: "child", Parent: "parent"})
		}, apierr.NameExists},
		{"unknown parent", func(ctx context.Context, tx store.Tx) error {
			return tx.CreateDependency(ctx, store.Dependency{Child: "child", Parent: "nope"})
		}, apierr.NotFound},
		{"update missing", func(ctx context.Context, tx store.Tx) error {
			return tx.UpdateDependency(ctx, store.Dependency{Child: "child2", Parent: "other"})
		}, apierr.NotFound},
		{"delete one", func(ctx context.Context, tx store.Tx) error { return tx.DeleteDependency(ctx, "child", "other") }, ""},
		{"delete missing", func(ctx context.Context, tx store.Tx) error { return tx.DeleteDependency(ctx, "child", "other") }, apierr.NotFound},
		{"delete all", func(ctx context.Context, tx store.Tx) error { return tx.DeleteDependencies(ctx, "child") }, ""},
		{"delete all of none", func(ctx context.Context, tx store.Tx) error { return tx.DeleteDependencies(ctx, "child") }, ""},
	})
	diff(t, "left", []store.Dependency{{Child: "child2", Parent: "parent", Enabled: true}},
		get(t, s, func(ctx context.Context, r store.Reader) ([]store.Dependency, error) {
			return r.ListDependencies(ctx, "")
		}))
}

func testStrategyDefinitions(t *testing.T, s store.Store) {
	ctx := t.Context()
	d := store.StrategyDefinition{
		Name: "byTenant", Title: "Tenants", Description: "on for listed tenants",
		Parameters: []store.StrategyParameter{{Name: "tenants", Type: "list", Description: "ids", Required: true}},
		Editable:   true, CreatedAt: t0,
	}
	update(t, s, func(tx store.Tx) error {
		got, err := tx.CreateStrategyDefinition(ctx, d)
		diff(t, "created", d, got)
		return err
	})
	list := get(t, s, func(ctx context.Context, r store.Reader) ([]store.StrategyDefinition, error) {
		return r.ListStrategyDefinitions(ctx)
	})
	if n := len(list); n != len(store.BuiltinStrategies)+1 || list[n-1].Name != "byTenant" {
		t.Errorf("custom strategy not listed after the built-ins: %+v", list)
	}
	d.Deprecated, d.Parameters, d.Title = true, nil, "Tenant list"
	update(t, s, func(tx store.Tx) error {
		got, err := tx.UpdateStrategyDefinition(ctx, d)
		diff(t, "updated", d, got)
		return err
	})
	runErrCases(t, s, []errCase{
		{"create taken", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateStrategyDefinition(ctx, store.StrategyDefinition{Name: "default"})
			return err
		}, apierr.NameExists},
		{"update missing", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.UpdateStrategyDefinition(ctx, store.StrategyDefinition{Name: "nope"})
			return err
		}, apierr.NotFound},
		{"delete", func(ctx context.Context, tx store.Tx) error { return tx.DeleteStrategyDefinition(ctx, "byTenant") }, ""},
		{"get deleted", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.GetStrategyDefinition(ctx, "byTenant")
			return err
		}, apierr.NotFound},
		{"delete missing", func(ctx context.Context, tx store.Tx) error { return tx.DeleteStrategyDefinition(ctx, "byTenant") }, apierr.NotFound},
	})
}
