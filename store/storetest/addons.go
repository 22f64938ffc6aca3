package storetest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// testAddons: addons are created, read, updated and deleted whole, need an
// event, and their parameters must be a JSON object.
func testAddons(t *testing.T, s store.Store) {
	ctx := t.Context()
	a := store.Addon{Provider: "webhook", Description: "ci", Enabled: true,
		Parameters: json.RawMessage(`{"url":"http://example.test/hook","authorization":"Bearer x"}`),
		Events:     []string{"feature-created"}, Projects: []string{"default"}, SinceEventID: 7, CreatedAt: t0}
	var created store.Addon
	update(t, s, func(tx store.Tx) (err error) {
		created, err = tx.CreateAddon(ctx, a)
		return err
	})
	if created.ID == 0 {
		t.Fatal("CreateAddon assigned no id")
	}
	got := get(t, s, func(ctx context.Context, r store.Reader) (store.Addon, error) { return r.GetAddon(ctx, created.ID) })
	var params map[string]any
	if err := json.Unmarshal(got.Parameters, &params); err != nil || params["authorization"] != "Bearer x" {
		t.Errorf("parameters read back as %s", got.Parameters)
	}
	got.Parameters, a.Parameters, a.ID = nil, nil, created.ID
	a.Environments = []string{}
	if diff := cmp.Diff(a, got); diff != "" {
		t.Errorf("GetAddon (-want +got):\n%s", diff)
	}

	if k := kindOf(t, s, func(ctx context.Context, tx store.Tx) error {
		_, err := tx.CreateAddon(ctx, store.Addon{Provider: "webhook", Parameters: json.RawMessage(`[]`)})
		return err
	}); k != apierr.BadData {
		t.Errorf("parameters that are not an object: kind %q, want BadData", k)
	}
	if err := s.Update(ctx, func(tx store.Tx) error {
		_, err := tx.CreateAddon(ctx, store.Addon{Provider: "webhook", Parameters: json.RawMessage(`{}`)})
		return err
	}); err != store.ErrUnaudited {
		t.Errorf("CreateAddon without an event: %v, want ErrUnaudited", err)
	}

	upd := got
	upd.Enabled, upd.Events, upd.Environments = false, []string{"feature-updated", "feature-archived"}, []string{"production"}
	upd.Parameters, upd.SinceEventID = json.RawMessage(`{"url":"http://example.test/other"}`), 99
	update(t, s, func(tx store.Tx) error {
		_, err := tx.UpdateAddon(ctx, upd)
		return err
	})
	got = get(t, s, func(ctx context.Context, r store.Reader) (store.Addon, error) { return r.GetAddon(ctx, created.ID) })
	if got.Enabled || len(got.Events) != 2 || got.Environments[0] != "production" || got.SinceEventID != 7 {
		t.Errorf("after UpdateAddon: %+v (SinceEventID must stay 7)", got)
	}
	if k := kindOf(t, s, func(ctx context.Context, tx store.Tx) error {
		_, err := tx.UpdateAddon(ctx, store.Addon{ID: 9999, Parameters: json.RawMessage(`{}`)})
		return err
	}); k != apierr.NotFound {
		t.Errorf("UpdateAddon of a missing addon: kind %q", k)
	}
	list := get(t, s, func(ctx context.Context, r store.Reader) ([]store.Addon, error) { return r.ListAddons(ctx) })
	if len(list) != 1 || list[0].ID != created.ID {
		t.Errorf("ListAddons = %+v", list)
	}
	update(t, s, func(tx store.Tx) error { return tx.DeleteAddon(ctx, created.ID) })
	if k := readKind(t, s, func(ctx context.Context, r store.Reader) error { _, err := r.GetAddon(ctx, created.ID); return err }); k != apierr.NotFound {
		t.Errorf("GetAddon after delete: kind %q", k)
	}
	if k := kindOf(t, s, func(ctx context.Context, tx store.Tx) error { return tx.DeleteAddon(ctx, created.ID) }); k != apierr.NotFound {
		t.Errorf("DeleteAddon twice: kind %q", k)
	}
}

// testAddonDeliveries: the queue needs no event, stores one delivery per
// addon and event, moves its cursor only forward, hands a due delivery to
// one claimer at a time, takes back a claim that expired, and accepts the
// outcome only from the current claim.
func testAddonDeliveries(t *testing.T, s store.Store) {
	ctx := t.Context()
	var addon store.Addon
	update(t, s, func(tx store.Tx) (err error) {
		addon, err = tx.CreateAddon(ctx, store.Addon{Provider: "webhook", Enabled: true, Parameters: json.RawMessage(`{}`)})
		return err
	})
	start := get(t, s, func(ctx context.Context, r store.Reader) (int64, error) { return r.AddonCursor(ctx) })
	op := func(fn func(tx store.Tx) error) {
		t.Helper()
		if err := s.Update(ctx, fn); err != nil {
			t.Fatalf("queue operation without an event: %v", err)
		}
	}
	queue := func(cursor int64, ds ...store.AddonDelivery) {
		t.Helper()
		op(func(tx store.Tx) error { return tx.QueueAddonDeliveries(ctx, cursor, ds) })
	}
	queue(start+5,
		store.AddonDelivery{AddonID: addon.ID, EventID: 1, NextAttemptAt: t0},
		store.AddonDelivery{AddonID: addon.ID, EventID: 2, NextAttemptAt: t0.Add(time.Hour)},
		store.AddonDelivery{AddonID: 9999, EventID: 1, NextAttemptAt: t0})
	queue(start+3, store.AddonDelivery{AddonID: addon.ID, EventID: 1, NextAttemptAt: t0})
	if c := get(t, s, func(ctx context.Context, r store.Reader) (int64, error) { return r.AddonCursor(ctx) }); c != start+5 {
		t.Errorf("cursor %d, want %d: it never moves back", c, start+5)
	}

	claim := func(now time.Time) (store.AddonDelivery, bool) {
		t.Helper()
		var d store.AddonDelivery
		var ok bool
		op(func(tx store.Tx) (err error) {
			d, ok, err = tx.ClaimAddonDelivery(ctx, now, now.Add(time.Minute))
			return err
		})
		return d, ok
	}
	d, ok := claim(t0)
	if !ok || d.EventID != 1 || d.State != store.DeliveryRunning || d.Attempts != 1 || d.ClaimedUntil == nil {
		t.Fatalf("first claim: %+v, %v", d, ok)
	}
	if d2, ok := claim(t0.Add(time.Second)); ok {
		t.Fatalf("a running delivery or one not yet due was claimed: %+v", d2)
	}
	// The claim expires: the delivery is due again, as the next attempt.
	again, ok := claim(t0.Add(2 * time.Minute))
	if !ok || again.ID != d.ID || again.Attempts != 2 {
		t.Fatalf("claim after expiry: %+v, %v", again, ok)
	}
	// The first claimer's outcome comes too late.
	d.State = store.DeliverySuccess
	if k := kind(t, s.Update(ctx, func(tx store.Tx) error { return tx.FinishAddonDelivery(ctx, d) })); k != apierr.NotFound {
		t.Errorf("finishing a stale claim: kind %q, want NotFound", k)
	}
	again.State, again.StatusCode, again.LastError, again.NextAttemptAt = store.DeliveryPending, 503, "status 503", t0.Add(10*time.Minute)
	op(func(tx store.Tx) error { return tx.FinishAddonDelivery(ctx, again) })
	if d, ok := claim(t0.Add(5 * time.Minute)); ok {
		t.Fatalf("claimed before its next attempt: %+v", d)
	}
	third, ok := claim(t0.Add(2 * time.Hour))
	if !ok || third.ID != again.ID || third.Attempts != 3 {
		t.Fatalf("third attempt: %+v, %v", third, ok)
	}
	third.State, third.StatusCode, third.LastError = store.DeliverySuccess, 200, ""
	op(func(tx store.Tx) error { return tx.FinishAddonDelivery(ctx, third) })

	list := get(t, s, func(ctx context.Context, r store.Reader) ([]store.AddonDelivery, error) {
		return r.ListAddonDeliveries(ctx, addon.ID, 0, 0)
	})
	if len(list) != 1 || list[0].State != store.DeliverySuccess || list[0].Attempts != 3 || list[0].StatusCode != 200 || list[0].ClaimedUntil != nil {
		t.Errorf("deliveries (attempted only): %+v", list)
	}
	// Event 2 is due now; then the queue is empty.
	if d, ok := claim(t0.Add(2 * time.Hour)); !ok || d.EventID != 2 {
		t.Errorf("second delivery: %+v, %v", d, ok)
	}
	if d, ok := claim(t0.Add(2 * time.Hour)); ok {
		t.Errorf("claimed from an empty queue: %+v", d)
	}
	if l := get(t, s, func(ctx context.Context, r store.Reader) ([]store.AddonDelivery, error) {
		return r.ListAddonDeliveries(ctx, addon.ID, 1, 1)
	}); len(l) != 1 || l[0].EventID != 1 {
		t.Errorf("second page of one: %+v", l)
	}
	// Deleting the addon deletes its deliveries.
	update(t, s, func(tx store.Tx) error { return tx.DeleteAddon(ctx, addon.ID) })
	if l := get(t, s, func(ctx context.Context, r store.Reader) ([]store.AddonDelivery, error) {
		return r.ListAddonDeliveries(ctx, addon.ID, 0, 0)
	}); len(l) != 0 {
		t.Errorf("deliveries of a deleted addon: %+v", l)
	}
}
