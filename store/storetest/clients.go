package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// operational runs fn in an Update without an event, as the client API
// does for registrations and metrics.
func operational(t *testing.T, s store.Store, fn func(ctx context.Context, tx store.Tx) error) {
	t.Helper()
	if err := s.Update(t.Context(), func(tx store.Tx) error { return fn(t.Context(), tx) }); err != nil {
		t.Fatal(err)
	}
}

func testClientApplications(t *testing.T, s store.Store) {
	app := store.ClientApplication{AppName: "shop", Description: "from the SDK", Strategies: []string{"default"}, CreatedAt: t0, SeenAt: ptr(t0)}
	operational(t, s, func(ctx context.Context, tx store.Tx) error {
		created, err := tx.RegisterClientApplication(ctx, app)
		if !created {
			t.Error("first registration: created = false")
		}
		return err
	})
	diff(t, "registered", app, get(t, s, func(ctx context.Context, r store.Reader) (store.ClientApplication, error) {
		return r.GetClientApplication(ctx, "shop")
	}))

	// An administrator's description survives later registrations; empty
	// fields are filled in; strategies and SeenAt follow the SDK.
	app.Description, app.URL = "the web shop", ""
	update(t, s, func(tx store.Tx) error {
		_, err := tx.UpdateClientApplication(t.Context(), app)
		return err
	})
	operational(t, s, func(ctx context.Context, tx store.Tx) error {
		created, err := tx.RegisterClientApplication(ctx, store.ClientApplication{
			AppName: "shop", Description: "sdk text", URL: "https://shop", Strategies: []string{"default", "flexibleRollout"},
			SeenAt: ptr(t0.Add(time.Minute)),
		})
		if created {
			t.Error("second registration: created = true")
		}
		return err
	})
	app.URL, app.Strategies, app.SeenAt = "https://shop", []string{"default", "flexibleRollout"}, ptr(t0.Add(time.Minute))
	diff(t, "re-registered", app, get(t, s, func(ctx context.Context, r store.Reader) (store.ClientApplication, error) {
		return r.GetClientApplication(ctx, "shop")
	}))

	in := store.ClientInstance{
		AppName: "shop", InstanceID: "pod-1", Environment: "production", SDKVersion: "unleash-client-go:4.1.0",
		ClientIP: "10.0.0.1", Started: ptr(t0), IntervalMillis: 15000, CreatedAt: t0, LastSeen: t0,
	}
	operational(t, s, func(ctx context.Context, tx store.Tx) error {
		if err := tx.UpsertClientInstance(ctx, in); err != nil {
			return err
		}
		later := in
		later.SDKVersion, later.LastSeen, later.CreatedAt = "unleash-client-go:4.2.0", t0.Add(time.Hour), t0.Add(time.Hour)
		if err := tx.UpsertClientInstance(ctx, later); err != nil {
			return err
		}
		return tx.UpsertClientInstance(ctx, store.ClientInstance{AppName: "shop", InstanceID: "pod-2", LastSeen: t0.Add(time.Minute), CreatedAt: t0})
	})
	in.SDKVersion, in.LastSeen = "unleash-client-go:4.2.0", t0.Add(time.Hour) // CreatedAt kept
	got := get(t, s, func(ctx context.Context, r store.Reader) ([]store.ClientInstance, error) {
		return r.ListClientInstances(ctx, "shop")
	})
	if len(got) != 2 {
		t.Fatalf("instances: %+v", got)
	}
	diff(t, "most recent instance", in, got[0])

	runErrCases(t, s, []errCase{
		{"instance of unknown app", func(ctx context.Context, tx store.Tx) error {
			return tx.UpsertClientInstance(ctx, store.ClientInstance{AppName: "nope", InstanceID: "i"})
		}, apierr.NotFound},
		{"update unknown app", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.UpdateClientApplication(ctx, store.ClientApplication{AppName: "nope"})
			return err
		}, apierr.NotFound},
		{"get unknown app", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.GetClientApplication(ctx, "nope")
			return err
		}, apierr.NotFound},
		{"delete", func(ctx context.Context, tx store.Tx) error { return tx.DeleteClientApplication(ctx, "shop") }, ""},
		{"delete missing", func(ctx context.Context, tx store.Tx) error { return tx.DeleteClientApplication(ctx, "shop") }, apierr.NotFound},
	})
	if got := get(t, s, func(ctx context.Context, r store.Reader) ([]store.ClientInstance, error) {
		return r.ListClientInstances(ctx, "")
	}); len(got) != 0 {
		t.Errorf("instances outlived their application: %+v", got)
	}
	if got := get(t, s, func(ctx context.Context, r store.Reader) ([]store.ClientApplication, error) {
		return r.ListClientApplications(ctx)
	}); len(got) != 0 {
		t.Errorf("applications after delete: %+v", got)
	}
}

func testClientMetrics(t *testing.T, s store.Store) {
	h := t0.Truncate(time.Hour)
	operational(t, s, func(ctx context.Context, tx store.Tx) error {
		return tx.AddClientMetrics(ctx, []store.ClientMetric{
			// Times inside one hour land in the same bucket.
			{Feature: "f", AppName: "shop", Environment: "production", Hour: t0, Yes: 3, No: 1, Variants: map[string]int64{"blue": 2}},
			{Feature: "f", AppName: "shop", Environment: "production", Hour: h.Add(59 * time.Minute), Yes: 1, Variants: map[string]int64{"blue": 1, "red": 4}},
			{Feature: "unknown-flag", AppName: "shop", Environment: "production", Hour: h, No: 5},
			{Feature: "f", AppName: "shop", Environment: "production", Hour: h.Add(-time.Hour), Yes: 10},
		})
	})
	operational(t, s, func(ctx context.Context, tx store.Tx) error {
		return tx.AddClientMetrics(ctx, []store.ClientMetric{
			{Feature: "f", AppName: "shop", Environment: "production", Hour: h, Yes: 1, No: 1, Variants: map[string]int64{"red": 1}},
		})
	})
	list := func(f store.ClientMetricsFilter) []store.ClientMetric {
		return get(t, s, func(ctx context.Context, r store.Reader) ([]store.ClientMetric, error) {
			return r.ListClientMetrics(ctx, f)
		})
	}
	diff(t, "metrics of f since this hour", []store.ClientMetric{
		{Feature: "f", AppName: "shop", Environment: "production", Hour: h, Yes: 5, No: 2, Variants: map[string]int64{"blue": 3, "red": 5}},
	}, list(store.ClientMetricsFilter{Feature: "f", Since: h}))
	all := list(store.ClientMetricsFilter{AppName: "shop", Environment: "production"})
	if len(all) != 3 || !all[0].Hour.Equal(h.Add(-time.Hour)) || all[1].Feature != "f" || all[2].Feature != "unknown-flag" {
		t.Errorf("all metrics, by hour then feature: %+v", all)
	}
	operational(t, s, func(ctx context.Context, tx store.Tx) error {
		n, err := tx.DeleteClientMetrics(ctx, h)
		if n != 1 {
			t.Errorf("DeleteClientMetrics = %d, want 1", n)
		}
		return err
	})
	if got := list(store.ClientMetricsFilter{}); len(got) != 2 {
		t.Errorf("after retention: %+v", got)
	}
}
