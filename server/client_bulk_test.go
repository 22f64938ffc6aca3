package server

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/signalbox/signalbox/store"
)

func TestClientBulkMetrics(t *testing.T) {
	ts := newTestServer(t)
	c := newOAChecker(t, ts)
	plantFlag(t, ts, store.DefaultProject, "bulk-a")
	plantFlag(t, ts, store.DefaultProject, "bulk-b")
	hour := time.Now().UTC().Add(-30 * time.Minute)
	body := map[string]any{
		"applications": []map[string]any{{"appName": "shop", "instanceId": "shop-1", "environment": "development",
			"interval": 15000, "started": hour.Format(time.RFC3339), "strategies": []string{"default"}}},
		"metrics": []map[string]any{
			{"featureName": "bulk-a", "appName": "shop", "environment": "development", "timestamp": hour.Format(time.RFC3339), "yes": 3, "no": 1, "variants": map[string]int{"blue": 2}},
			{"featureName": "bulk-a", "appName": "shop", "environment": "development", "yes": 2},
			{"featureName": "bulk-b", "appName": "cart", "environment": "development", "no": 4},
			{"featureName": "made-up", "appName": "cart", "environment": "development", "yes": 9},
		},
	}
	c.do("POST", "/api/client/metrics/bulk", testClientToken, body, http.StatusAccepted)

	got := map[string][3]int64{}
	for _, m := range flushedRows(t, ts, store.ClientMetricsFilter{}) {
		v := got[m.Feature+"/"+m.AppName]
		got[m.Feature+"/"+m.AppName] = [3]int64{v[0] + m.Yes, v[1] + m.No, v[2] + m.Variants["blue"]}
	}
	want := map[string][3]int64{"bulk-a/shop": {5, 1, 2}, "bulk-b/cart": {0, 4, 0}}
	if len(got) != len(want) || got["bulk-a/shop"] != want["bulk-a/shop"] || got["bulk-b/cart"] != want["bulk-b/cart"] {
		t.Errorf("stored %v, want %v", got, want)
	}
	if n := droppedCount(t, ts, dropUnknownFlag); n != 1 {
		t.Errorf("%d unknown flags dropped, want 1", n)
	}
	apps := ts.admin("GET", "/api/admin/metrics/applications", nil).must(t, http.StatusOK)
	if !strings.Contains(string(apps.Body), `"shop"`) {
		t.Errorf("the registration is not kept: %s", apps.Body)
	}

	for _, tt := range []struct {
		name   string
		token  string
		body   any
		status int
	}{
		{"no lists", testClientToken, map[string]any{}, http.StatusBadRequest},
		{"a metric without a flag", testClientToken, map[string]any{"applications": []any{}, "metrics": []any{map[string]any{"appName": "x", "environment": "development"}}}, http.StatusBadRequest},
		{"a frontend token", testFrontendToken, body, http.StatusForbidden},
		{"no token", "", body, http.StatusUnauthorized},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c.do("POST", "/api/client/metrics/bulk", tt.token, tt.body, tt.status)
		})
	}
}
