package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

func revision(t *testing.T, s store.Store) int64 {
	t.Helper()
	rev, err := s.Revision(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return rev
}

func featureExists(t *testing.T, s store.Store, name string) bool {
	t.Helper()
	err := s.View(t.Context(), func(r store.Reader) error {
		_, err := r.GetFeature(t.Context(), name)
		return err
	})
	if err != nil && !apierr.Is(err, apierr.NotFound) {
		t.Fatal(err)
	}
	return err == nil
}

func testTxRollback(t *testing.T, s store.Store) {
	ctx := t.Context()
	before := revision(t, s)
	boom := errors.New("boom")
	err := s.Update(ctx, func(tx store.Tx) error {
		if _, err := tx.CreateFeature(ctx, store.Feature{Name: "doomed", Project: "default", Type: "release"}); err != nil {
			return err
		}
		if _, err := tx.AppendEvent(ctx, store.Event{Type: "feature-created", CreatedBy: "t", FeatureName: "doomed"}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update returned %v, want fn's error", err)
	}
	if featureExists(t, s, "doomed") {
		t.Error("change of a failed Update was kept")
	}
	if after := revision(t, s); after != before {
		t.Errorf("event of a failed Update was kept: revision %d -> %d", before, after)
	}

	// A panic rolls back too, and the store stays usable.
	func() {
		defer func() {
			if recover() == nil {
				t.Error("panic in fn did not propagate")
			}
		}()
		s.Update(ctx, func(tx store.Tx) error {
			tx.CreateFeature(ctx, store.Feature{Name: "panicked", Project: "default", Type: "release"})
			tx.AppendEvent(ctx, store.Event{Type: "feature-created", CreatedBy: "t"})
			panic("boom")
		})
	}()
	if featureExists(t, s, "panicked") {
		t.Error("change of a panicking Update was kept")
	}
	update(t, s, func(tx store.Tx) error {
		_, err := tx.CreateFeature(ctx, store.Feature{Name: "fine", Project: "default", Type: "release"})
		return err
	})
}

func testTxUnaudited(t *testing.T, s store.Store) {
	ctx := t.Context()
	before := revision(t, s)
	err := s.Update(ctx, func(tx store.Tx) error {
		_, err := tx.CreateFeature(ctx, store.Feature{Name: "sneaky", Project: "default", Type: "release"})
		return err
	})
	if !errors.Is(err, store.ErrUnaudited) {
		t.Fatalf("Update without event = %v, want ErrUnaudited", err)
	}
	if featureExists(t, s, "sneaky") || revision(t, s) != before {
		t.Error("unaudited change was committed")
	}
	// Operational writes need no event and do not move the revision.
	if err := s.Update(ctx, func(tx store.Tx) error {
		return tx.AddClientMetrics(ctx, []store.ClientMetric{{Feature: "f", AppName: "a", Environment: "e", Hour: t0, Yes: 1}})
	}); err != nil {
		t.Errorf("operational write: %v", err)
	}
	if revision(t, s) != before {
		t.Error("operational write moved the revision")
	}
	// An Update that only reads needs no event either.
	if err := s.Update(ctx, func(tx store.Tx) error {
		_, err := tx.ListFeatures(ctx, store.FeatureFilter{})
		return err
	}); err != nil {
		t.Errorf("read-only Update: %v", err)
	}
}

// testTxUsableAfterError checks that a failing method leaves the
// transaction usable and changes nothing, on every database; PostgreSQL
// on its own would refuse every later statement.
func testTxUsableAfterError(t *testing.T, s store.Store) {
	ctx := t.Context()
	update(t, s, func(tx store.Tx) error {
		if _, err := tx.CreateFeature(ctx, store.Feature{Name: "taken", Project: "default", Type: "release"}); err != nil {
			return err
		}
		if _, err := tx.CreateFeature(ctx, store.Feature{Name: "taken", Project: "default", Type: "release"}); !apierr.Is(err, apierr.NameExists) {
			return fmt.Errorf("duplicate create: %v, want NameExists", err)
		}
		if _, err := tx.GetFeature(ctx, "missing"); !apierr.Is(err, apierr.NotFound) {
			return fmt.Errorf("get missing: %v, want NotFound", err)
		}
		if _, err := tx.CreateStrategy(ctx, store.Strategy{ID: "s", Feature: "taken", Environment: "production", Name: "default", Segments: []int{12345}}); !apierr.Is(err, apierr.NotFound) {
			return fmt.Errorf("strategy with unknown segment: %v, want NotFound", err)
		}
		_, err := tx.CreateFeature(ctx, store.Feature{Name: "after", Project: "default", Type: "release"})
		return err
	})
	if !featureExists(t, s, "taken") || !featureExists(t, s, "after") {
		t.Error("writes around a failed one were lost")
	}
	if got := get(t, s, func(ctx context.Context, r store.Reader) ([]store.Strategy, error) {
		return r.ListStrategies(ctx, store.StrategyFilter{})
	}); len(got) != 0 {
		t.Errorf("half of a failed CreateStrategy was kept: %+v", got)
	}
}

func testViewIsReadOnly(t *testing.T, s store.Store) {
	ctx := t.Context()
	err := s.View(ctx, func(r store.Reader) error {
		tx, ok := r.(store.Tx)
		if !ok {
			return nil // cannot even try
		}
		_, err := tx.CreateTagType(ctx, store.TagType{Name: "sneaky"})
		if err == nil {
			return errors.New("write inside View succeeded")
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
	if k := readKind(t, s, func(ctx context.Context, r store.Reader) error {
		_, err := r.GetTagType(ctx, "sneaky")
		return err
	}); k != apierr.NotFound {
		t.Errorf("tag type written in a View: kind %q", k)
	}
}
