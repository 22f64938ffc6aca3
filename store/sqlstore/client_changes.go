package sqlstore

import (
	"context"
	"slices"

	"github.com/signalbox/signalbox/store"
)

// maxClientChangeEvents bounds the events ClientChangesSince reads: beyond
// it a whole read costs about as much, and is simpler.
const maxClientChangeEvents = 500

// ClientChangesSince reads the events after since and then only the
// features they name. Events commit in id order (writes are serialized),
// so the events up to the revision read first describe every change the
// state at since lacks; a change committing meanwhile is read again next
// time, as with GetClientState.
func (t *tx) ClientChangesSince(ctx context.Context, environment string, since int64) (store.ClientChanges, error) {
	var ch store.ClientChanges
	rev, err := t.Revision(ctx)
	if err != nil {
		return ch, err
	}
	ch.Revision = rev
	if _, err := t.GetEnvironment(ctx, environment); err != nil {
		return ch, err
	}
	if since > rev {
		// A state from another database, or one reset: nothing to go by.
		ch.Full = true
		return ch, nil
	}
	type change struct{ typ, feature string }
	rows, err := t.query(ctx, `SELECT type, COALESCE(feature_name, '') FROM events
		WHERE id > ? AND id <= ? ORDER BY id LIMIT ?`, since, rev, maxClientChangeEvents+1)
	changes, err := collect(rows, err, func(r scanner) (change, error) {
		var c change
		return c, r.Scan(&c.typ, &c.feature)
	})
	if err != nil {
		return ch, err
	}
	if len(changes) > maxClientChangeEvents {
		ch.Full = true
		return ch, nil
	}
	for _, c := range changes {
		switch store.ClientEffectOf(c.typ) {
		case store.EffectNone:
		case store.EffectSegments:
			ch.SegmentsChanged = true
		case store.EffectFeature:
			if c.feature == "" {
				return store.ClientChanges{Revision: rev, Full: true}, nil
			}
			ch.Features = append(ch.Features, c.feature)
		default:
			return store.ClientChanges{Revision: rev, Full: true}, nil
		}
	}
	ch.Features = slices.Compact(slices.Sorted(slices.Values(ch.Features)))
	if ch.Features == nil {
		ch.Features = []string{}
	}
	if ch.Current, err = t.clientFeatures(ctx, environment, ch.Features); err != nil {
		return ch, err
	}
	if ch.SegmentsChanged {
		ch.Segments, err = t.clientSegments(ctx)
	}
	return ch, err
}
