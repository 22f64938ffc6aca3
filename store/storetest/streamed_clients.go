package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/signalbox/signalbox/store"
)

// testStreamedClients: streamed clients are operational rows, upserted
// with their newest SeenAt, expired, and bounded per token and per
// application.
func testStreamedClients(t *testing.T, s store.Store) {
	ctx := t.Context()
	op := func(fn func(tx store.Tx) error) {
		t.Helper()
		if err := s.Update(ctx, fn); err != nil { // no event: operational
			t.Fatal(err)
		}
	}
	keys := func(since time.Time, limit int) []string {
		t.Helper()
		cs := get(t, s, func(ctx context.Context, r store.Reader) ([]store.StreamedClient, error) {
			return r.ListStreamedClients(ctx, since, limit)
		})
		out := []string{}
		for _, c := range cs {
			out = append(out, c.Key)
		}
		return out
	}
	long := t0.Add(-48 * time.Hour)
	op(func(tx store.Tx) error {
		return tx.RecordStreamedClients(ctx, []store.StreamedClient{
			{Key: "a", TokenID: 1, AppName: "app", SeenAt: t0},
			{Key: "b", TokenID: 1, AppName: "app", SeenAt: t0.Add(time.Minute)},
			{Key: "old", TokenID: 2, AppName: "other", SeenAt: t0.Add(-time.Hour)},
		}, long, 10, 10)
	})
	diff(t, "newest first", []string{"b", "a", "old"}, keys(long, 10))
	diff(t, "since", []string{"b", "a"}, keys(t0, 10))
	diff(t, "limit", []string{"b"}, keys(long, 1))
	diff(t, "one whole", []store.StreamedClient{{Key: "b", TokenID: 1, AppName: "app", SeenAt: t0.Add(time.Minute)}},
		get(t, s, func(ctx context.Context, r store.Reader) ([]store.StreamedClient, error) {
			return r.ListStreamedClients(ctx, t0.Add(time.Minute), 10)
		}))

	// An older sighting never moves SeenAt back; a newer one moves it on.
	op(func(tx store.Tx) error {
		return tx.RecordStreamedClients(ctx, []store.StreamedClient{
			{Key: "b", TokenID: 1, AppName: "app", SeenAt: t0.Add(-2 * time.Hour)},
			{Key: "old", TokenID: 2, AppName: "other", SeenAt: t0.Add(2 * time.Minute)},
		}, long, 10, 10)
	})
	diff(t, "after the second batch", []string{"old", "b", "a"}, keys(long, 10))

	// Expiry deletes what was seen before the cut.
	op(func(tx store.Tx) error {
		return tx.RecordStreamedClients(ctx, nil, t0.Add(30*time.Second), 10, 10)
	})
	diff(t, "after expiry", []string{"old", "b"}, keys(long, 10))

	// Per token and per application, only the newest are kept.
	var batch []store.StreamedClient
	for i := range 5 {
		batch = append(batch, store.StreamedClient{Key: fmt.Sprintf("t%d", i), TokenID: 3, AppName: fmt.Sprintf("app%d", i), SeenAt: t0.Add(time.Duration(10+i) * time.Minute)})
		batch = append(batch, store.StreamedClient{Key: fmt.Sprintf("p%d", i), TokenID: int64(10 + i), AppName: "many", SeenAt: t0.Add(time.Duration(10+i) * time.Minute)})
	}
	op(func(tx store.Tx) error { return tx.RecordStreamedClients(ctx, batch, long, 2, 3) })
	diff(t, "bounded", []string{"p4", "t4", "p3", "t3", "p2", "old", "b"}, keys(long, 100))
}
