package server

import (
	"context"
	"net/http"
	"testing"
	"time"
)

func TestApplicationsAndFlagUsage(t *testing.T) {
	ts := newTestServer(t)
	plantFlag(t, ts, "default", "checkout-v2")
	now := time.Now().UTC()
	// The bucket starts in the current hour: one that began in the last
	// hour would fall out of the hour the raw metrics cover a minute past it.
	start := now.Add(-time.Minute)
	if hour := now.Truncate(time.Hour); start.Before(hour) {
		start = hour
	}
	ts.request("POST", "/api/client/register", testClientToken, map[string]any{
		"appName": "shop", "instanceId": "shop-1", "sdkVersion": "unleash-client-node:6.1.0",
		"strategies": []string{"default", "flexibleRollout"}, "started": now, "interval": 15000,
	}).must(t, http.StatusAccepted)
	ts.request("POST", "/api/client/metrics", testClientToken, map[string]any{
		"appName": "shop", "instanceId": "shop-1",
		"bucket": map[string]any{"start": start, "stop": now, "toggles": map[string]any{
			"checkout-v2": map[string]any{"yes": 7, "no": 3, "variants": map[string]int{"blue": 4}},
		}},
	}).must(t, http.StatusAccepted)
	if err := ts.srv.FlushMetrics(context.Background()); err != nil {
		t.Fatal(err)
	}

	var apps struct {
		Total        int               `json:"total"`
		Applications []applicationJSON `json:"applications"`
	}
	ts.admin("GET", "/api/admin/metrics/applications", nil).must(t, http.StatusOK).Decode(t, &apps)
	if apps.Total != 1 || apps.Applications[0].AppName != "shop" || apps.Applications[0].SDKVersion != "unleash-client-node:6.1.0" ||
		len(apps.Applications[0].Strategies) != 2 {
		t.Errorf("applications %+v", apps)
	}

	var app struct {
		AppName string `json:"appName"`
		Usage   []struct {
			Project      string   `json:"project"`
			Environments []string `json:"environments"`
		} `json:"usage"`
	}
	ts.admin("GET", "/api/admin/metrics/applications/shop", nil).must(t, http.StatusOK).Decode(t, &app)
	if app.AppName != "shop" || len(app.Usage) != 1 || app.Usage[0].Project != "default" ||
		len(app.Usage[0].Environments) != 1 || app.Usage[0].Environments[0] != "development" {
		t.Errorf("application %+v", app)
	}
	mustErrorRecord(t, ts.admin("GET", "/api/admin/metrics/applications/nope", nil), 404, "NotFoundError", "")

	var raw struct {
		Version  int                 `json:"version"`
		Maturity string              `json:"maturity"`
		Data     []featureMetricJSON `json:"data"`
	}
	ts.admin("GET", "/api/admin/client-metrics/features/checkout-v2/raw", nil).must(t, http.StatusOK).Decode(t, &raw)
	if raw.Version != 1 || raw.Maturity == "" || len(raw.Data) != 1 {
		t.Fatalf("raw %+v", raw)
	}
	m := raw.Data[0]
	if m.FeatureName != "checkout-v2" || m.AppName != "shop" || m.Environment != "development" || m.Yes != 7 || m.No != 3 ||
		m.Variants["blue"] != 4 || !m.Timestamp.Equal(start.Truncate(time.Hour)) {
		t.Errorf("metric %+v", m)
	}

	var usage struct {
		FeatureName      string              `json:"featureName"`
		LastHourUsage    []featureMetricJSON `json:"lastHourUsage"`
		SeenApplications []string            `json:"seenApplications"`
		TotalUsage       []envTotalJSON      `json:"totalUsage"`
	}
	ts.admin("GET", "/api/admin/client-metrics/features/checkout-v2", nil).must(t, http.StatusOK).Decode(t, &usage)
	if usage.FeatureName != "checkout-v2" || len(usage.LastHourUsage) != 1 || len(usage.SeenApplications) != 1 ||
		len(usage.TotalUsage) != 1 || usage.TotalUsage[0] != (envTotalJSON{Environment: "development", Yes: 7, No: 3}) {
		t.Errorf("usage %+v", usage)
	}
	mustErrorRecord(t, ts.admin("GET", "/api/admin/client-metrics/features/nope", nil), 404, "NotFoundError", "")
	mustErrorRecord(t, ts.admin("GET", "/api/admin/client-metrics/features/nope/raw", nil), 404, "NotFoundError", "")
	for _, q := range []string{"0", "721", "x"} {
		mustErrorRecord(t, ts.admin("GET", "/api/admin/client-metrics/features/checkout-v2/raw?hoursBack="+q, nil), 400, "ValidationError", "hoursBack")
	}
	ts.admin("GET", "/api/admin/client-metrics/features/checkout-v2/raw?hoursBack=48", nil).must(t, http.StatusOK)
	ts.request("GET", "/api/admin/metrics/applications", "", nil).must(t, http.StatusUnauthorized)
}
