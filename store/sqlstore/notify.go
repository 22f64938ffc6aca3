package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/signalbox/signalbox/store"
)

var _ store.RevisionWatcher = (*Store)(nil)

// revisionChannel is the PostgreSQL notification channel on which every
// write that appends events announces the new revision.
const revisionChannel = "signalbox_revision"

// listenerName is the application_name of listening connections, so that
// they can be told apart in pg_stat_activity.
const listenerName = "signalbox-revision-listener"

// Timing of the listening connection: reconnects back off from
// watchMinDelay to watchMaxDelay; a connection that has been silent for
// watchIdle is pinged, so that a connection lost without a word (a dead
// peer, a dropped route) is noticed and replaced.
const (
	watchMinDelay = 250 * time.Millisecond
	watchMaxDelay = 30 * time.Second
	watchIdle     = 30 * time.Second
)

// notifier announces committed revisions through PostgreSQL's
// LISTEN/NOTIFY. Its zero value (SQLite) announces nothing.
type notifier struct {
	// config opens the listening connections; nil for SQLite.
	config *pgx.ConnConfig
	// off suppresses announcements (SetNotify).
	off atomic.Bool
}

// announce queues a notification of rev inside the write transaction.
// PostgreSQL delivers it when, and only if, the transaction commits, so a
// listener never hears of a revision it cannot read yet.
func (n *notifier) announce(ctx context.Context, tx *sql.Tx, rev int64) error {
	if n.config == nil || rev == 0 || n.off.Load() {
		return nil
	}
	if _, err := tx.ExecContext(ctx, "SELECT pg_notify($1, $2)", revisionChannel, strconv.FormatInt(rev, 10)); err != nil {
		return fmt.Errorf("sqlstore: announcing revision %d: %w", rev, err)
	}
	return nil
}

// SetNotify turns the announcement of this process's writes to other
// processes on (the default) or off. With it off, other servers on the same
// database see this one's writes only when they next poll the revision,
// which is what a lost notification looks like to them.
func (s *Store) SetNotify(on bool) { s.notify.off.Store(!on) }

// WatchRevisions implements store.RevisionWatcher. On PostgreSQL it
// listens on a connection of its own, outside the pool; SQLite, which
// serves a single process, returns a nil channel.
func (s *Store) WatchRevisions(ctx context.Context) (<-chan int64, error) {
	if s.notify.config == nil {
		return nil, nil
	}
	out := make(chan int64, 1)
	go s.watch(ctx, out)
	return out, nil
}

// watch keeps a listening connection open until ctx ends, reconnecting
// with a jittered exponential backoff that starts over once a connection
// has worked.
func (s *Store) watch(ctx context.Context, out chan<- int64) {
	defer close(out)
	delay := watchMinDelay
	for {
		if s.listen(ctx, out) {
			delay = watchMinDelay
		}
		// Equal jitter, so that many servers losing the database at once
		// do not come back at the same instant.
		wait := delay/2 + rand.N(delay/2+1)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		delay = min(2*delay, watchMaxDelay)
	}
}

// listen runs one listening connection until it fails or ctx ends. It
// reports whether the connection got as far as listening.
func (s *Store) listen(ctx context.Context, out chan<- int64) bool {
	cctx, cancel := context.WithTimeout(ctx, connectTimeout)
	cfg := s.notify.config.Copy()
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	cfg.RuntimeParams["application_name"] = listenerName
	conn, err := pgx.ConnectConfig(cctx, cfg)
	cancel()
	if err != nil {
		return false
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.Background(), time.Second)
		conn.Close(closeCtx)
		cancel()
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+revisionChannel); err != nil {
		return false
	}
	// Writes committed while no connection listened were announced to
	// nobody: reading the revision now covers them.
	var rev int64
	if err := conn.QueryRow(ctx, revisionQuery).Scan(&rev); err != nil {
		return true
	}
	if !deliver(ctx, out, rev) {
		return true
	}
	for {
		wctx, cancel := context.WithTimeout(ctx, watchIdle)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		if ctx.Err() != nil {
			return true
		}
		if err != nil {
			// A timeout leaves the connection usable; anything else
			// has closed it.
			if conn.IsClosed() {
				return true
			}
			pctx, cancel := context.WithTimeout(ctx, watchIdle)
			err = conn.Ping(pctx)
			cancel()
			if err != nil {
				return true
			}
			continue
		}
		if n.Channel != revisionChannel {
			continue
		}
		rev, err := strconv.ParseInt(n.Payload, 10, 64)
		if err != nil {
			continue
		}
		if !deliver(ctx, out, rev) {
			return true
		}
	}
}

// deliver hands rev to the receiver, waiting for it to take it; it
// reports false when ctx ended first.
func deliver(ctx context.Context, out chan<- int64, rev int64) bool {
	select {
	case out <- rev:
		return true
	case <-ctx.Done():
		return false
	}
}
