package storetest

import (
	"context"
	"testing"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// Context fields that belong to one project: stored and read with their
// project, names shared with global fields, the project fixed for life,
// and gone with their project.

func testProjectContextFields(t *testing.T, s store.Store) {
	ctx := t.Context()
	field := store.ContextField{Name: "tier", Description: "plan", Project: "shop", SortOrder: 3, CreatedAt: t0,
		LegalValues: []store.LegalValue{{Value: "gold"}}}
	update(t, s, func(tx store.Tx) error {
		if _, err := tx.CreateProject(ctx, store.Project{ID: "shop", Name: "Shop"}); err != nil {
			return err
		}
		got, err := tx.CreateContextField(ctx, field)
		diff(t, "created project field", field, got)
		return err
	})
	// An update that names no project leaves the field in its project.
	changed := field
	changed.Project, changed.Description, changed.Stickiness = "", "subscription plan", true
	update(t, s, func(tx store.Tx) error {
		got, err := tx.UpdateContextField(ctx, changed)
		changed.Project = "shop"
		diff(t, "updated project field", changed, got)
		return err
	})
	listed := get(t, s, func(ctx context.Context, r store.Reader) ([]store.ContextField, error) {
		return r.ListContextFields(ctx)
	})
	projectOf := map[string]string{}
	for _, f := range listed {
		projectOf[f.Name] = f.Project
	}
	if p, ok := projectOf["tier"]; !ok || p != "shop" {
		t.Errorf("listed tier in project %q (listed: %v), want shop", p, ok)
	}
	if p := projectOf["userId"]; p != "" {
		t.Errorf("the global field userId is listed in project %q", p)
	}

	runErrCases(t, s, []errCase{
		{"global name taken by a project field", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateContextField(ctx, store.ContextField{Name: "tier"})
			return err
		}, apierr.NameExists},
		{"project field with a global field's name", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateContextField(ctx, store.ContextField{Name: "userId", Project: "shop"})
			return err
		}, apierr.NameExists},
		{"unknown project", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateContextField(ctx, store.ContextField{Name: "region", Project: "nope"})
			return err
		}, apierr.NotFound},
		{"project deleted with its field", func(ctx context.Context, tx store.Tx) error {
			return tx.DeleteProject(ctx, "shop")
		}, ""},
		{"field gone with its project", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.GetContextField(ctx, "tier")
			return err
		}, apierr.NotFound},
	})
}
