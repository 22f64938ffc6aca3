package server

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/signalbox/signalbox/store"
)

// Registrations are buffered and written together: one write holds every
// instance, a later registration of the same instance replaces the
// earlier one, and nothing reaches the database before the flush.
func TestRegistrationsAreWrittenInBulk(t *testing.T) {
	ts := newTestServer(t)
	// The first registration of an application asks Run for a flush at
	// once; more instances of it wait for the next periodic flush.
	ts.request("POST", "/api/client/register", testClientToken, map[string]any{"appName": "app-0", "instanceId": "i-0"}).must(t, http.StatusAccepted)
	ts.request("POST", "/api/client/register", testClientToken, map[string]any{"appName": "app-0", "instanceId": "i-3"}).must(t, http.StatusAccepted)
	if n := len(ts.srv.metrics.regSoon); n != 1 {
		t.Fatalf("%d flush requests after a new application, want 1", n)
	}
	<-ts.srv.metrics.regSoon
	ts.request("POST", "/api/client/register", testClientToken, map[string]any{"appName": "app-0", "instanceId": "i-6"}).must(t, http.StatusAccepted)
	if n := len(ts.srv.metrics.regSoon); n != 0 {
		t.Fatalf("%d flush requests after another instance of a known application, want 0", n)
	}
	for i := range 30 {
		ts.request("POST", "/api/client/register", testClientToken, map[string]any{"appName": fmt.Sprint("app-", i%3),
			"instanceId": fmt.Sprint("i-", i), "sdkVersion": "unleash-client-go:4.0.0", "strategies": []string{"default"}}).must(t, http.StatusAccepted)
	}
	ts.request("POST", "/api/client/register", testClientToken, map[string]any{"appName": "app-0", "instanceId": "i-0",
		"sdkVersion": "unleash-client-go:4.5.0", "strategies": []string{"default"}}).must(t, http.StatusAccepted)
	instances := func() []store.ClientInstance {
		var list []store.ClientInstance
		err := ts.srv.store.View(t.Context(), func(r store.Reader) (err error) {
			list, err = r.ListClientInstances(t.Context(), "")
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return list
	}
	if got := instances(); len(got) != 0 {
		t.Fatalf("%d instances written before the flush", len(got))
	}
	if err := ts.srv.FlushRegistrations(t.Context()); err != nil {
		t.Fatal(err)
	}
	got := instances()
	if len(got) != 30 {
		t.Fatalf("%d instances, want 30", len(got))
	}
	for _, in := range got {
		if in.InstanceID == "i-0" && in.SDKVersion != "unleash-client-go:4.5.0" {
			t.Errorf("instance i-0 has %s, want the newer registration's version", in.SDKVersion)
		}
	}
	var apps struct {
		Total int `json:"total"`
	}
	ts.admin("GET", "/api/admin/metrics/applications", nil).must(t, http.StatusOK).Decode(t, &apps)
	if apps.Total != 3 {
		t.Errorf("%d applications, want 3", apps.Total)
	}
}

// The retention worker's pass rolls old hours up into days that the flag
// usage of long periods still shows, and forgets stale instances and the
// applications only SDKs created, never one an administrator created.
func TestClientDataRetention(t *testing.T) {
	ts := newTestServer(t)
	plantFlag(t, ts, "default", "checkout-v2")
	now := time.Now().UTC()
	ts.srv.now = func() time.Time { return now }
	old := now.Add(-72 * time.Hour).Truncate(time.Hour)
	err := ts.srv.store.Operate(t.Context(), func(op store.Op) error {
		return op.AddClientMetrics(t.Context(), []store.ClientMetric{
			{Feature: "checkout-v2", AppName: "shop", Environment: "development", Hour: old, Yes: 40, No: 2},
			{Feature: "checkout-v2", AppName: "shop", Environment: "development", Hour: old.Add(time.Hour), Yes: 2, No: 1},
			{Feature: "checkout-v2", AppName: "shop", Environment: "development", Hour: now, Yes: 5, No: 5},
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	ts.request("POST", "/api/client/register", testClientToken, map[string]any{"appName": "shop", "instanceId": "i-1"}).must(t, http.StatusAccepted)
	if err := ts.srv.FlushRegistrations(t.Context()); err != nil {
		t.Fatal(err)
	}
	ts.admin("POST", "/api/admin/metrics/applications/console", map[string]any{"description": "made by hand"}).must(t, http.StatusAccepted)

	rep, err := ts.srv.PruneClientData(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Hours != 2 || rep.Instances != 0 || rep.Applications != 0 {
		t.Errorf("first pass %+v", rep)
	}
	raw := func(hours int) []featureMetricJSON {
		var body struct {
			Data []featureMetricJSON `json:"data"`
		}
		ts.admin("GET", fmt.Sprintf("/api/admin/client-metrics/features/checkout-v2/raw?hoursBack=%d", hours), nil).must(t, http.StatusOK).Decode(t, &body)
		return body.Data
	}
	var yes, no int64
	days := 0
	for _, m := range raw(720) {
		yes, no = yes+m.Yes, no+m.No
		if m.Timestamp.Equal(m.Timestamp.Truncate(24*time.Hour)) && !m.Timestamp.Equal(now.Truncate(time.Hour)) {
			days++
		}
	}
	if yes != 47 || no != 8 || days == 0 {
		t.Errorf("30 days of usage: %d yes, %d no, %d daily entries; want 47, 8 and the roll-up", yes, no, days)
	}
	if got := raw(1); len(got) != 1 || got[0].Yes != 5 {
		t.Errorf("last hour %+v", got)
	}

	// Eight days later the SDK has not registered again.
	now = now.Add(8 * 24 * time.Hour)
	rep, err = ts.srv.PruneClientData(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Instances != 1 || rep.Applications != 1 {
		t.Errorf("second pass %+v", rep)
	}
	ts.admin("GET", "/api/admin/metrics/applications/shop", nil).must(t, http.StatusNotFound)
	ts.admin("GET", "/api/admin/metrics/applications/console", nil).must(t, http.StatusOK)
}
