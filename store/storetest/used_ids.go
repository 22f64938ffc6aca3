package storetest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// testUsedIDs: UseID accepts each id once until its record expires, needs
// no event, keeps nothing from a rolled-back Update and lets exactly one of
// several concurrent callers have an id.
func testUsedIDs(t *testing.T, s store.Store) {
	ctx := t.Context()
	use := func(id string, expires, now time.Time) bool {
		t.Helper()
		var unused bool
		if err := s.Update(ctx, func(tx store.Tx) (err error) {
			unused, err = tx.UseID(ctx, id, expires, now)
			return err
		}); err != nil {
			t.Fatalf("UseID(%q) without an event: %v", id, err)
		}
		return unused
	}
	later := t0.Add(10 * time.Minute)
	if !use("a", later, t0) {
		t.Error("a fresh id was reported used")
	}
	if use("a", later, t0.Add(time.Minute)) {
		t.Error("an id was accepted twice")
	}
	if use("a", later, later) {
		t.Error("an id was accepted again at the instant its record expires")
	}
	if !use("b", later, t0) {
		t.Error("another id was reported used")
	}
	// Once its record expired, the id is forgotten (and the record goes).
	if !use("a", later.Add(time.Hour), later.Add(time.Second)) {
		t.Error("an expired id is still reported used")
	}
	if use("a", later.Add(time.Hour), later.Add(time.Minute)) {
		t.Error("the id recorded anew was accepted twice")
	}

	// A rolled-back Update keeps no record.
	boom := errors.New("boom")
	err := s.Update(ctx, func(tx store.Tx) error {
		if _, err := tx.UseID(ctx, "rolled-back", later, t0); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update = %v, want boom", err)
	}
	if !use("rolled-back", later, t0) {
		t.Error("the id of a rolled-back Update is reported used")
	}

	// Concurrent callers, as several instances sharing the database: one
	// has the id.
	const n = 8
	var wg sync.WaitGroup
	got := make([]bool, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.Update(ctx, func(tx store.Tx) (err error) {
				got[i], err = tx.UseID(ctx, "race", later, t0)
				return err
			})
		}()
	}
	wg.Wait()
	winners := 0
	for i := range n {
		if errs[i] != nil {
			t.Errorf("caller %d: %v", i, errs[i])
		}
		if got[i] {
			winners++
		}
	}
	if winners != 1 {
		t.Errorf("%d concurrent callers had the id, want 1", winners)
	}

	runErrCases(t, s, []errCase{
		{"EmptyID", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.UseID(ctx, "", later, t0)
			return err
		}, apierr.BadData},
	})
}
