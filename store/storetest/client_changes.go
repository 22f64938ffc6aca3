package storetest

import (
	"context"
	"testing"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// testClientChanges checks that a state brought forward with
// ClientChangesSince equals a whole read after every kind of change, and
// that changes the events do not describe ask for a whole read.
func testClientChanges(t *testing.T, s store.Store) {
	ctx := t.Context()
	// audited runs fn in an Update that appends the events given.
	audited := func(events []store.Event, fn func(tx store.Tx) error) {
		t.Helper()
		err := s.Update(ctx, func(tx store.Tx) error {
			if err := fn(tx); err != nil {
				return err
			}
			for _, e := range events {
				if _, err := tx.AppendEvent(ctx, e); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("Update: %v", err)
		}
	}
	featureEvent := func(typ, name string) []store.Event {
		return []store.Event{{Type: typ, CreatedBy: "storetest", Project: "default", FeatureName: name}}
	}
	state := func() store.ClientState {
		return get(t, s, func(ctx context.Context, r store.Reader) (store.ClientState, error) {
			return r.GetClientState(ctx, "production")
		})
	}
	changes := func(since int64) store.ClientChanges {
		return get(t, s, func(ctx context.Context, r store.Reader) (store.ClientChanges, error) {
			return r.ClientChangesSince(ctx, "production", since)
		})
	}

	var seg store.Segment
	update(t, s, func(tx store.Tx) error {
		var err error
		if seg, err = tx.CreateSegment(ctx, store.Segment{Name: "beta"}); err != nil {
			return err
		}
		for _, name := range []string{"a", "b", "c"} {
			if _, err := tx.CreateFeature(ctx, store.Feature{Name: name, Project: "default", Type: "release"}); err != nil {
				return err
			}
		}
		return tx.CreateDependency(ctx, store.Dependency{Child: "c", Parent: "a", Enabled: true})
	})

	steps := []struct {
		name     string
		events   []store.Event
		fn       func(tx store.Tx) error
		features []string // the names the changes must report
		segments bool
		full     bool
	}{
		{name: "nothing", fn: func(store.Tx) error { return nil }, events: []store.Event{{Type: "user-created", CreatedBy: "storetest"}},
			features: []string{}},
		{name: "strategy with a segment", events: featureEvent("feature-strategy-add", "b"), features: []string{"b"},
			fn: func(tx store.Tx) error {
				_, err := tx.CreateStrategy(ctx, store.Strategy{ID: "b-1", Feature: "b", Environment: "production",
					Name: "default", Segments: []int{seg.ID},
					Constraints: []clientapi.Constraint{{ContextName: "userId", Operator: "IN", Values: []string{"1"}}}})
				return err
			}},
		{name: "enabled and tagged", features: []string{"a", "b"},
			events: append(featureEvent("feature-environment-enabled", "b"), featureEvent("feature-tagged", "a")...),
			fn: func(tx store.Tx) error {
				if _, err := tx.UpdateFeatureEnvironment(ctx, store.FeatureEnvironment{Feature: "b", Environment: "production", Enabled: true}); err != nil {
					return err
				}
				_, err := tx.CreateFeatureTag(ctx, store.FeatureTag{Feature: "a", Tag: store.Tag{Type: "simple", Value: "web"}})
				return err
			}},
		{name: "created", events: featureEvent("feature-created", "0-first"), features: []string{"0-first"},
			fn: func(tx store.Tx) error {
				_, err := tx.CreateFeature(ctx, store.Feature{Name: "0-first", Project: "default", Type: "release"})
				return err
			}},
		{name: "dependencies removed and archived", features: []string{"c"},
			events: append(featureEvent("feature-dependencies-removed", "c"), featureEvent("feature-archived", "c")...),
			fn: func(tx store.Tx) error {
				if err := tx.DeleteDependencies(ctx, "c"); err != nil {
					return err
				}
				f, err := tx.GetFeature(ctx, "c")
				if err != nil {
					return err
				}
				f.ArchivedAt = ptr(t0)
				_, err = tx.UpdateFeature(ctx, f)
				return err
			}},
		{name: "segment", events: []store.Event{{Type: "segment-updated", CreatedBy: "storetest"}}, features: []string{}, segments: true,
			fn: func(tx store.Tx) error {
				seg.Constraints = []clientapi.Constraint{{ContextName: "appName", Operator: "IN", Values: []string{"x"}}}
				_, err := tx.UpdateSegment(ctx, seg)
				return err
			}},
		{name: "unknown type", events: []store.Event{{Type: "test", CreatedBy: "storetest"}}, full: true,
			fn: func(tx store.Tx) error {
				_, err := tx.CreateFeature(ctx, store.Feature{Name: "d", Project: "default", Type: "release"})
				return err
			}},
		{name: "feature type without a feature", events: featureEvent("feature-strategy-remove", ""), full: true,
			fn: func(tx store.Tx) error { return tx.DeleteStrategy(ctx, "b-1") }},
		{name: "deleted", events: featureEvent("feature-deleted", "c"), full: true,
			fn: func(tx store.Tx) error { return tx.DeleteFeature(ctx, "c") }},
		{name: "too many events", events: manyEvents(maxEventsForChanges + 1), full: true,
			fn: func(store.Tx) error { return nil }},
	}
	prev := state()
	for _, step := range steps {
		audited(step.events, step.fn)
		ch := changes(prev.Revision)
		want := state()
		if ch.Revision != want.Revision || ch.Full != step.full {
			t.Fatalf("%s: revision %d full %v, want %d %v", step.name, ch.Revision, ch.Full, want.Revision, step.full)
		}
		if !step.full {
			diff(t, step.name+": touched features", step.features, ch.Features)
			if ch.SegmentsChanged != step.segments {
				t.Errorf("%s: segments changed %v, want %v", step.name, ch.SegmentsChanged, step.segments)
			}
			diff(t, step.name+": state brought forward", want, prev.With(ch))
		}
		prev = want
	}

	if k := readKind(t, s, func(ctx context.Context, r store.Reader) error {
		_, err := r.ClientChangesSince(ctx, "nope", 0)
		return err
	}); k != apierr.NotFound {
		t.Errorf("unknown environment: kind %q, want NotFound", k)
	}
	if ch := changes(prev.Revision + 1); !ch.Full {
		t.Errorf("changes since a future revision: %+v, want a whole read", ch)
	}
}

// maxEventsForChanges is the number of events ClientChangesSince must
// describe; beyond it a whole read may be asked for.
const maxEventsForChanges = 500

func manyEvents(n int) []store.Event {
	out := make([]store.Event, n)
	for i := range out {
		out[i] = store.Event{Type: "feature-favorited", CreatedBy: "storetest", FeatureName: "a"}
	}
	return out
}
