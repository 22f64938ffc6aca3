package sqlstore_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/signalbox/signalbox/internal/pgtest"
	"github.com/signalbox/signalbox/store"
	"github.com/signalbox/signalbox/store/sqlstore"
)

// waitLimit bounds every wait for a notification, so that a broken
// listener fails the test instead of hanging it.
const waitLimit = 30 * time.Second

// appendEvent commits one audited write and returns its revision.
func appendEvent(t *testing.T, s store.Store) int64 {
	t.Helper()
	var rev int64
	err := s.Update(t.Context(), func(tx store.Tx) error {
		var err error
		rev, err = tx.AppendEvent(t.Context(), store.Event{Type: "tag-type-created", CreatedBy: "test"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return rev
}

// next returns the next revision on ch.
func next(t *testing.T, ch <-chan int64) int64 {
	t.Helper()
	select {
	case rev, ok := <-ch:
		if !ok {
			t.Fatal("revision channel closed")
		}
		return rev
	case <-time.After(waitLimit):
		t.Fatal("no revision arrived")
	}
	return 0
}

func TestWatchRevisionsPostgres(t *testing.T) {
	url := pgtest.NewDatabase(t)
	open := func() *sqlstore.Store {
		s, err := sqlstore.Open(t.Context(), url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	writer, watcher := open(), open()
	ctx, cancel := context.WithCancel(t.Context())
	ch, err := watcher.WatchRevisions(ctx)
	if err != nil || ch == nil {
		t.Fatalf("WatchRevisions = %v, %v", ch, err)
	}
	if got := next(t, ch); got != 0 {
		t.Errorf("revision on connecting = %d, want 0", got)
	}

	rev := appendEvent(t, writer)
	if got := next(t, ch); got != rev {
		t.Errorf("announced %d, want %d", got, rev)
	}

	// A transaction that rolls back announces nothing: the next revision
	// heard is the one of the following commit.
	_ = writer.Update(t.Context(), func(tx store.Tx) error {
		if _, err := tx.AppendEvent(t.Context(), store.Event{Type: "tag-type-created", CreatedBy: "test"}); err != nil {
			return err
		}
		return context.Canceled
	})
	// Silenced writes are not announced either; notifications arrive in
	// commit order, so hearing the later write first proves it.
	writer.SetNotify(false)
	appendEvent(t, writer)
	writer.SetNotify(true)
	rev = appendEvent(t, writer)
	if got := next(t, ch); got != rev {
		t.Errorf("announced %d, want %d (a rolled back or silenced write was announced)", got, rev)
	}

	// A lost connection is replaced, and the revision read on reconnecting
	// covers what was committed in between.
	writer.SetNotify(false)
	rev = appendEvent(t, writer)
	terminateListeners(t, url)
	for got := next(t, ch); got != rev; got = next(t, ch) {
		if got > rev {
			t.Fatalf("got revision %d beyond %d", got, rev)
		}
	}

	cancel()
	for range ch {
	}
}

// terminateListeners ends every listening connection from the server side.
func terminateListeners(t *testing.T, url string) {
	t.Helper()
	db, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())
	deadline := time.Now().Add(waitLimit)
	for {
		var n int
		err := db.QueryRow(t.Context(), `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
			WHERE application_name = 'signalbox-revision-listener' AND datname = current_database()`).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("no listening connection to terminate")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestWatchRevisionsSQLite(t *testing.T) {
	s, err := sqlstore.Open(t.Context(), filepath.Join(t.TempDir(), "signalbox.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ch, err := s.WatchRevisions(t.Context())
	if ch != nil || err != nil {
		t.Errorf("SQLite WatchRevisions = %v, %v; want nil, nil", ch, err)
	}
}
