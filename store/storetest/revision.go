package storetest

import (
	"context"
	"testing"

	"github.com/signalbox/signalbox/store"
)

// testRevisionAfterEveryWrite checks, for each kind of audited change, that
// the revision moves to the id of the event recorded with it.
func testRevisionAfterEveryWrite(t *testing.T, s store.Store) {
	steps := []struct {
		name string
		fn   func(ctx context.Context, tx store.Tx) error
	}{
		{"create project", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateProject(ctx, store.Project{ID: "p", Name: "P"})
			return err
		}},
		{"enable environment", func(ctx context.Context, tx store.Tx) error {
			return tx.CreateProjectEnvironment(ctx, store.ProjectEnvironment{Project: "p", Environment: "production"})
		}},
		{"create feature", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateFeature(ctx, store.Feature{Name: "f", Project: "p", Type: "release"})
			return err
		}},
		{"enable feature", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.UpdateFeatureEnvironment(ctx, store.FeatureEnvironment{Feature: "f", Environment: "production", Enabled: true})
			return err
		}},
		{"add strategy", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateStrategy(ctx, store.Strategy{ID: "s", Feature: "f", Environment: "production", Name: "default"})
			return err
		}},
		{"disable strategy", func(ctx context.Context, tx store.Tx) error {
			st, err := tx.GetStrategy(ctx, "s")
			if err != nil {
				return err
			}
			st.Disabled = true
			_, err = tx.UpdateStrategy(ctx, st)
			return err
		}},
		{"create segment", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateSegment(ctx, store.Segment{Name: "seg"})
			return err
		}},
		{"tag feature", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateFeatureTag(ctx, store.FeatureTag{Feature: "f", Tag: store.Tag{Type: "simple", Value: "x"}})
			return err
		}},
		{"delete strategy", func(ctx context.Context, tx store.Tx) error { return tx.DeleteStrategy(ctx, "s") }},
		{"archive feature", func(ctx context.Context, tx store.Tx) error {
			f, err := tx.GetFeature(ctx, "f")
			if err != nil {
				return err
			}
			f.ArchivedAt = ptr(t0)
			_, err = tx.UpdateFeature(ctx, f)
			return err
		}},
		{"delete feature", func(ctx context.Context, tx store.Tx) error { return tx.DeleteFeature(ctx, "f") }},
	}
	prev := revision(t, s)
	for _, step := range steps {
		var id int64
		if err := s.Update(t.Context(), func(tx store.Tx) error {
			if err := step.fn(t.Context(), tx); err != nil {
				return err
			}
			var err error
			id, err = tx.AppendEvent(t.Context(), store.Event{Type: "test", CreatedBy: "t"})
			return err
		}); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		rev := revision(t, s)
		if rev <= prev || rev != id {
			t.Errorf("%s: revision %d (was %d), want the new event id %d", step.name, rev, prev, id)
		}
		prev = rev
	}
}
