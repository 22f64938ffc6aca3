package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/signalbox/signalbox/store"
)

// testUpdatesSerialized checks that an Update cannot commit while another
// is open. Otherwise a late commit could hide below a revision already
// served, and its change would never reach cached client payloads.
func testUpdatesSerialized(t *testing.T, s store.Store) {
	ctx := t.Context()
	aOpen := make(chan struct{})
	bDone := make(chan error, 1)
	go func() {
		<-aOpen
		bDone <- s.Update(ctx, func(tx store.Tx) error {
			_, err := tx.AppendEvent(ctx, store.Event{Type: "test", CreatedBy: "b"})
			return err
		})
	}()
	bEarly := false
	err := s.Update(ctx, func(tx store.Tx) error {
		if _, err := tx.AppendEvent(ctx, store.Event{Type: "test", CreatedBy: "a"}); err != nil {
			return err
		}
		close(aOpen)
		select {
		case err := <-bDone:
			bEarly = true
			bDone <- err
		case <-time.After(300 * time.Millisecond):
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-bDone:
		if err != nil {
			t.Fatalf("second Update: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("second Update never finished")
	}
	if bEarly {
		t.Error("an Update committed while another was still open")
	}
	events := get(t, s, func(ctx context.Context, r store.Reader) ([]store.Event, error) {
		return r.ListEvents(ctx, store.EventFilter{Ascending: true})
	})
	if len(events) != 2 || events[0].CreatedBy != "a" || events[1].CreatedBy != "b" {
		t.Errorf("events not in commit order: %+v", events)
	}
}

// testConcurrentUpdates runs 200 Updates from 8 goroutines while readers
// build the client state, and checks that nothing is lost and no writer
// sees a busy database.
func testConcurrentUpdates(t *testing.T, s store.Store) {
	const writers, perWriter = 8, 25
	ctx := t.Context()
	var wg sync.WaitGroup
	errs := make(chan error, writers*perWriter+writers)
	ids := make(chan int64, writers*perWriter)
	stop := make(chan struct{})
	var readers sync.WaitGroup
	for r := 0; r < 2; r++ {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if err := s.View(ctx, func(r store.Reader) error {
					_, err := r.GetClientState(ctx, "production")
					return err
				}); err != nil {
					errs <- fmt.Errorf("reader: %w", err)
					return
				}
			}
		}()
	}
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < perWriter; i++ {
				name := fmt.Sprintf("w%d-%d", w, i)
				err := s.Update(ctx, func(tx store.Tx) error {
					if _, err := tx.CreateFeature(ctx, store.Feature{Name: name, Project: "default", Type: "release"}); err != nil {
						return err
					}
					if _, err := tx.UpdateFeatureEnvironment(ctx, store.FeatureEnvironment{Feature: name, Environment: "production", Enabled: true}); err != nil {
						return err
					}
					id, err := tx.AppendEvent(ctx, store.Event{Type: "feature-created", CreatedBy: "t", FeatureName: name})
					ids <- id
					return err
				})
				if err != nil {
					errs <- fmt.Errorf("writer %s: %w", name, err)
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	readers.Wait()
	close(errs)
	close(ids)
	for err := range errs {
		t.Error(err)
	}
	seen := map[int64]bool{}
	var maxID int64
	for id := range ids {
		if seen[id] {
			t.Errorf("event id %d handed out twice", id)
		}
		seen[id] = true
		maxID = max(maxID, id)
	}
	st := get(t, s, func(ctx context.Context, r store.Reader) (store.ClientState, error) {
		return r.GetClientState(ctx, "production")
	})
	if len(st.Features) != writers*perWriter {
		t.Errorf("%d features after %d concurrent creates", len(st.Features), writers*perWriter)
	}
	for _, f := range st.Features {
		if !f.Enabled {
			t.Errorf("feature %s lost its environment update", f.Name)
		}
	}
	if st.Revision != maxID {
		t.Errorf("revision %d, newest event %d", st.Revision, maxID)
	}
	n := get(t, s, func(ctx context.Context, r store.Reader) (int64, error) {
		return r.CountEvents(ctx, store.EventFilter{Type: "feature-created"})
	})
	if n != writers*perWriter {
		t.Errorf("%d events after %d writes", n, writers*perWriter)
	}
	// The log holds exactly the events the writers were handed.
	events := get(t, s, func(ctx context.Context, r store.Reader) ([]store.Event, error) {
		return r.ListEvents(ctx, store.EventFilter{Type: "feature-created", Ascending: true})
	})
	for _, e := range events {
		if !seen[e.ID] {
			t.Errorf("event %d in the log was not handed out", e.ID)
		}
	}
}
