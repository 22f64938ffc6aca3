package storetest

import (
	"context"
	"testing"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// testSegmentIDs: a segment created with an id keeps it, a taken id is
// NameExists, and segments created afterwards without an id get fresh ids
// past it.
func testSegmentIDs(t *testing.T, s store.Store) {
	var kept store.Segment
	update(t, s, func(tx store.Tx) (err error) {
		kept, err = tx.CreateSegment(t.Context(), store.Segment{ID: 40, Name: "copied"})
		return err
	})
	if kept.ID != 40 || kept.Name != "copied" {
		t.Fatalf("created with id 40: %+v", kept)
	}
	if k := kindOf(t, s, func(ctx context.Context, tx store.Tx) error {
		_, err := tx.CreateSegment(ctx, store.Segment{ID: 40, Name: "other"})
		return err
	}); k != apierr.NameExists {
		t.Errorf("taken id: kind %q, want %q", k, apierr.NameExists)
	}
	if k := kindOf(t, s, func(ctx context.Context, tx store.Tx) error {
		_, err := tx.CreateSegment(ctx, store.Segment{ID: -1, Name: "negative"})
		return err
	}); k != apierr.BadData {
		t.Errorf("negative id: kind %q, want %q", k, apierr.BadData)
	}
	var next store.Segment
	update(t, s, func(tx store.Tx) (err error) {
		next, err = tx.CreateSegment(t.Context(), store.Segment{Name: "fresh"})
		return err
	})
	if next.ID <= 40 {
		t.Errorf("segment created after id 40 got id %d", next.ID)
	}
}
