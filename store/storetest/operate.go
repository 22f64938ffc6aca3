package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// operate runs fn in an Operate and fails the test on error.
func operate(t *testing.T, s store.Store, fn func(ctx context.Context, op store.Op) error) {
	t.Helper()
	if err := s.Operate(t.Context(), func(op store.Op) error { return fn(t.Context(), op) }); err != nil {
		t.Fatalf("Operate: %v", err)
	}
}

func listApps(t *testing.T, s store.Store) []store.ClientApplication {
	t.Helper()
	return get(t, s, func(ctx context.Context, r store.Reader) ([]store.ClientApplication, error) {
		return r.ListClientApplications(ctx)
	})
}

func listInstances(t *testing.T, s store.Store) []store.ClientInstance {
	t.Helper()
	return get(t, s, func(ctx context.Context, r store.Reader) ([]store.ClientInstance, error) {
		return r.ListClientInstances(ctx, "")
	})
}

func testClientRegistrations(t *testing.T, s store.Store) {
	// An application an administrator created and described.
	update(t, s, func(tx store.Tx) error {
		_, err := tx.RegisterClientApplication(t.Context(), store.ClientApplication{AppName: "admin-app", Description: "typed in", CreatedAt: t0})
		return err
	})
	var instances []store.ClientInstance
	for i := range 1203 { // more than one multi-row statement holds
		instances = append(instances, store.ClientInstance{AppName: "shop", InstanceID: fmt.Sprintf("pod-%04d", i),
			Environment: "production", SDKVersion: "unleash-client-go:4.1.0", CreatedAt: t0, LastSeen: t0})
	}
	// Duplicates: the last wins.
	instances = append(instances, store.ClientInstance{AppName: "shop", InstanceID: "pod-0000", Environment: "production",
		SDKVersion: "unleash-client-go:4.2.0", CreatedAt: t0, LastSeen: t0.Add(time.Minute)})
	instances = append(instances, store.ClientInstance{AppName: "admin-app", InstanceID: "a1", CreatedAt: t0, LastSeen: t0})
	operate(t, s, func(ctx context.Context, op store.Op) error {
		return op.RecordClientRegistrations(ctx, []store.ClientApplication{
			{AppName: "shop", Description: "old", Strategies: []string{"default"}, CreatedAt: t0, SeenAt: ptr(t0)},
			{AppName: "shop", Description: "from the SDK", Strategies: []string{"default", "flexibleRollout"}, CreatedAt: t0, SeenAt: ptr(t0)},
			{AppName: "admin-app", Description: "sdk text", URL: "https://admin", CreatedAt: t0.Add(time.Hour), SeenAt: ptr(t0)},
		}, instances)
	})
	diff(t, "applications", []store.ClientApplication{
		{AppName: "admin-app", Description: "typed in", URL: "https://admin", Strategies: []string{}, CreatedAt: t0, SeenAt: ptr(t0)},
		{AppName: "shop", Description: "from the SDK", Strategies: []string{"default", "flexibleRollout"}, CreatedAt: t0, SeenAt: ptr(t0)},
	}, listApps(t, s))
	got := listInstances(t, s)
	if len(got) != 1204 {
		t.Fatalf("%d instances, want 1204", len(got))
	}
	diff(t, "the instance registered twice", store.ClientInstance{AppName: "shop", InstanceID: "pod-0000", Environment: "production",
		SDKVersion: "unleash-client-go:4.2.0", CreatedAt: t0, LastSeen: t0.Add(time.Minute)}, got[0])

	// An instance of an application nobody registered is refused, and the
	// whole call changes nothing.
	err := s.Operate(t.Context(), func(op store.Op) error {
		return op.RecordClientRegistrations(t.Context(), []store.ClientApplication{{AppName: "new", CreatedAt: t0}},
			[]store.ClientInstance{{AppName: "nobody", InstanceID: "x"}})
	})
	if kind(t, err) != apierr.NotFound {
		t.Errorf("instance of an unknown application: %v", err)
	}
	if n := len(listApps(t, s)); n != 2 {
		t.Errorf("%d applications after a refused call, want 2", n)
	}

	// Operate refuses admin changes made behind its back.
	err = s.Operate(t.Context(), func(op store.Op) error {
		_, err := op.(store.Tx).CreateProject(t.Context(), store.Project{ID: "sneaky", Name: "Sneaky"})
		return err
	})
	if err != store.ErrUnaudited {
		t.Errorf("admin change in Operate: %v, want ErrUnaudited", err)
	}
}

func testOperateMetrics(t *testing.T, s store.Store) {
	h := t0.Truncate(time.Hour)
	var ms []store.ClientMetric
	for i := range 1100 {
		ms = append(ms, store.ClientMetric{Feature: fmt.Sprintf("f%04d", i), AppName: "shop", Environment: "production", Hour: t0, Yes: 1, No: 2})
	}
	ms = append(ms, store.ClientMetric{Feature: "f0000", AppName: "shop", Environment: "production", Hour: h.Add(time.Minute), Yes: 10,
		Variants: map[string]int64{"blue": 3}})
	for range 2 {
		operate(t, s, func(ctx context.Context, op store.Op) error { return op.AddClientMetrics(ctx, ms) })
	}
	got := get(t, s, func(ctx context.Context, r store.Reader) ([]store.ClientMetric, error) {
		return r.ListClientMetrics(ctx, store.ClientMetricsFilter{})
	})
	if len(got) != 1100 {
		t.Fatalf("%d rows, want 1100", len(got))
	}
	diff(t, "merged row", store.ClientMetric{Feature: "f0000", AppName: "shop", Environment: "production", Hour: h, Yes: 22, No: 4,
		Variants: map[string]int64{"blue": 6}}, got[0])
	diff(t, "plain row", store.ClientMetric{Feature: "f1099", AppName: "shop", Environment: "production", Hour: h, Yes: 2, No: 4,
		Variants: map[string]int64{}}, got[1099])
}

func testClientRetention(t *testing.T, s store.Store) {
	now := time.Date(2026, 5, 20, 10, 30, 0, 0, time.UTC)
	day := func(d int) time.Time { return time.Date(2026, 5, 20+d, 0, 0, 0, 0, time.UTC) }
	metric := func(hour time.Time, feature string, yes, no int64, variants map[string]int64) store.ClientMetric {
		return store.ClientMetric{Feature: feature, AppName: "shop", Environment: "production", Hour: hour, Yes: yes, No: no, Variants: variants}
	}
	old1 := day(-3).Add(5 * time.Hour)  // rolled up into day -3
	old2 := day(-3).Add(20 * time.Hour) // same day
	old3 := day(-2).Add(9 * time.Hour)  // 49.5 h ago: day -2
	edge := now.Add(-48 * time.Hour).Truncate(time.Hour)
	kept := now.Truncate(time.Hour)
	ancient := day(-95).Add(time.Hour) // older than the daily retention too
	operate(t, s, func(ctx context.Context, op store.Op) error {
		return op.AddClientMetrics(ctx, []store.ClientMetric{
			metric(old1, "f", 1, 2, map[string]int64{"blue": 1}),
			metric(old2, "f", 10, 20, map[string]int64{"blue": 5, "red": 2}),
			metric(old2, "g", 7, 0, nil),
			metric(old3, "f", 100, 0, nil),
			metric(edge, "f", 1000, 0, nil),
			metric(kept, "f", 5, 5, map[string]int64{"red": 9}),
			metric(ancient, "f", 3, 3, nil),
		})
	})
	// Applications: one created by SDKs whose instances are all stale, one
	// created by SDKs with a live instance, one created by an
	// administrator without instances, and one created by SDKs that an
	// administrator since edited.
	stale, live := now.Add(-8*24*time.Hour), now.Add(-time.Hour)
	operate(t, s, func(ctx context.Context, op store.Op) error {
		return op.RecordClientRegistrations(ctx, []store.ClientApplication{
			{AppName: "gone", CreatedAt: stale, SeenAt: &stale},
			{AppName: "live", CreatedAt: stale, SeenAt: &live},
			{AppName: "edited", CreatedAt: stale, SeenAt: &stale},
		}, []store.ClientInstance{
			{AppName: "gone", InstanceID: "a", CreatedAt: stale, LastSeen: stale},
			{AppName: "live", InstanceID: "old", CreatedAt: stale, LastSeen: stale},
			{AppName: "live", InstanceID: "new", CreatedAt: stale, LastSeen: live},
		})
	})
	update(t, s, func(tx store.Tx) error {
		if _, err := tx.RegisterClientApplication(t.Context(), store.ClientApplication{AppName: "admin", CreatedAt: stale}); err != nil {
			return err
		}
		_, err := tx.UpdateClientApplication(t.Context(), store.ClientApplication{AppName: "edited", Description: "ours"})
		return err
	})

	before := totals(t, s)
	retention := store.ClientRetention{Now: now, Hourly: 48 * time.Hour, Daily: 90 * 24 * time.Hour, Instances: 7 * 24 * time.Hour}
	var rep store.PruneReport
	calls := 0
	for {
		var r store.PruneReport
		operate(t, s, func(ctx context.Context, op store.Op) error {
			var err error
			r, err = op.PruneClientData(ctx, retention)
			return err
		})
		calls++
		rep.Hours += r.Hours
		rep.Days += r.Days
		rep.Instances += r.Instances
		rep.Applications += r.Applications
		if !r.More {
			break
		}
		if calls > 10 {
			t.Fatal("PruneClientData keeps asking for more")
		}
	}
	if calls != 4 { // four expired hours, one per call
		t.Errorf("%d calls, want 4", calls)
	}
	// The ancient hour was rolled up, then its day deleted in a later call.
	diff(t, "report", store.PruneReport{Hours: 5, Days: 1, Instances: 2, Applications: 1}, rep)

	hourly := get(t, s, func(ctx context.Context, r store.Reader) ([]store.ClientMetric, error) {
		return r.ListClientMetrics(ctx, store.ClientMetricsFilter{})
	})
	diff(t, "hourly metrics kept", []store.ClientMetric{
		metric(edge, "f", 1000, 0, nil), metric(kept, "f", 5, 5, map[string]int64{"red": 9}),
	}, hourly)
	daily := get(t, s, func(ctx context.Context, r store.Reader) ([]store.ClientMetric, error) {
		return r.ListClientMetricsDaily(ctx, store.ClientMetricsFilter{})
	})
	diff(t, "daily roll-up", []store.ClientMetric{
		metric(day(-3), "f", 11, 22, map[string]int64{"blue": 6, "red": 2}),
		metric(day(-3), "g", 7, 0, nil),
		metric(day(-2), "f", 100, 0, nil),
	}, daily)
	after := totals(t, s)
	ancientTotal := [2]int64{3, 3}
	if after[0] != before[0]-ancientTotal[0] || after[1] != before[1]-ancientTotal[1] {
		t.Errorf("yes/no totals %v before, %v after: the roll-up lost or added counts", before, after)
	}
	since := get(t, s, func(ctx context.Context, r store.Reader) ([]store.ClientMetric, error) {
		return r.ListClientMetricsDaily(ctx, store.ClientMetricsFilter{Feature: "f", Since: day(-2).Add(12 * time.Hour)})
	})
	diff(t, "daily since the middle of a day", []store.ClientMetric{metric(day(-2), "f", 100, 0, nil)}, since)

	var apps []string
	for _, a := range listApps(t, s) {
		apps = append(apps, a.AppName)
	}
	diff(t, "applications kept", []string{"admin", "edited", "live"}, apps)
	var ins []string
	for _, in := range listInstances(t, s) {
		ins = append(ins, in.AppName+"/"+in.InstanceID)
	}
	diff(t, "instances kept", []string{"live/new"}, ins)

	// Running it again (as another server would) changes nothing.
	operate(t, s, func(ctx context.Context, op store.Op) error {
		r, err := op.PruneClientData(ctx, retention)
		diff(t, "second run", store.PruneReport{}, r)
		return err
	})
	diff(t, "totals after a second run", after, totals(t, s))
}

// totals sums yes and no over the hourly and daily metrics.
func totals(t *testing.T, s store.Store) [2]int64 {
	t.Helper()
	var sum [2]int64
	view(t, s, func(r store.Reader) error {
		hourly, err := r.ListClientMetrics(t.Context(), store.ClientMetricsFilter{})
		if err != nil {
			return err
		}
		daily, err := r.ListClientMetricsDaily(t.Context(), store.ClientMetricsFilter{})
		for _, m := range append(hourly, daily...) {
			sum[0] += m.Yes
			sum[1] += m.No
		}
		return err
	})
	return sum
}
