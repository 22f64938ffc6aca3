package server

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"testing"
	"time"
)

// seedApplications registers shop (a browser SDK, then node, which
// announces the strategies) and tool, and records that shop used checkout-v2 of project default.
func seedApplications(t *testing.T, ts *testServer) {
	t.Helper()
	plantFlag(t, ts, "default", "checkout-v2")
	now := time.Now().UTC()
	for _, reg := range []map[string]any{
		{"appName": "shop", "instanceId": "shop-web", "sdkVersion": "unleash-client-js:3.7.5", "strategies": []string{}},
		{"appName": "shop", "instanceId": "shop-1", "sdkVersion": "unleash-client-node:6.1.0", "strategies": []string{"default", "byPlanet"}},
		{"appName": "tool", "instanceId": "tool-1", "sdkVersion": "unleash-client-go:4.0.0", "strategies": []string{}},
	} {
		reg["started"], reg["interval"] = now, 15000
		ts.request("POST", "/api/client/register", testClientToken, reg).must(t, http.StatusAccepted)
	}
	ts.request("POST", "/api/client/metrics", testClientToken, map[string]any{
		"appName": "shop", "instanceId": "shop-1",
		"bucket": map[string]any{"start": now.Add(-time.Minute), "stop": now, "toggles": map[string]any{"checkout-v2": map[string]any{"yes": 7, "no": 3}}},
	}).must(t, http.StatusAccepted)
	if err := ts.srv.FlushMetrics(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestApplicationOverviewAndInstances(t *testing.T) {
	ts := newTestServer(t)
	ref := unleashReference(t)
	seedApplications(t, ts)

	res := ts.admin("GET", "/api/admin/metrics/applications/shop/overview", nil).must(t, http.StatusOK)
	matchesUnleash(t, ref, "applicationOverviewSchema", res.Body)
	var o struct {
		Projects     []string
		FeatureCount int
		Environments []struct {
			Name          string
			InstanceCount int
			FrontendSdks  []string
			BackendSdks   []string
		}
		Issues struct{ MissingStrategies []string }
	}
	res.Decode(t, &o)
	if !slices.Equal(o.Projects, []string{"default"}) || o.FeatureCount != 1 || !slices.Equal(o.Issues.MissingStrategies, []string{"byPlanet"}) {
		t.Errorf("overview %+v", o)
	}
	if len(o.Environments) != 1 || o.Environments[0].Name != "development" || o.Environments[0].InstanceCount != 2 ||
		!slices.Equal(o.Environments[0].FrontendSdks, []string{"unleash-client-js:3.7.5"}) || !slices.Equal(o.Environments[0].BackendSdks, []string{"unleash-client-node:6.1.0"}) {
		t.Errorf("environments %+v", o.Environments)
	}
	ts.admin("GET", "/api/admin/metrics/applications/nope/overview", nil).must(t, http.StatusNotFound)

	res = ts.admin("GET", "/api/admin/metrics/instances/shop/environment/development", nil).must(t, http.StatusOK)
	matchesUnleash(t, ref, "applicationEnvironmentInstancesSchema", res.Body)
	var in struct{ Instances []struct{ InstanceID string } }
	res.Decode(t, &in)
	if len(in.Instances) != 2 {
		t.Errorf("instances %+v", in)
	}
	ts.admin("GET", "/api/admin/metrics/instances/shop/environment/production", nil).must(t, http.StatusOK).Decode(t, &in)
	if len(in.Instances) != 0 {
		t.Errorf("production instances %+v", in)
	}

	res = ts.admin("GET", "/api/admin/projects/default/applications", nil).must(t, http.StatusOK)
	matchesUnleash(t, ref, "projectApplicationsSchema", res.Body)
	var pa struct {
		Total        int
		Applications []struct {
			Name      string
			Instances []string
			SDKs      []struct {
				Name     string
				Versions []string
			}
		}
	}
	res.Decode(t, &pa)
	if pa.Total != 1 || pa.Applications[0].Name != "shop" || !slices.Equal(pa.Applications[0].Instances, []string{"shop-1", "shop-web"}) || len(pa.Applications[0].SDKs) != 2 {
		t.Errorf("project applications %+v", pa)
	}
	ts.admin("GET", "/api/admin/projects/default/applications?query=TOOL", nil).must(t, http.StatusOK).Decode(t, &pa)
	if pa.Total != 0 || len(pa.Applications) != 0 {
		t.Errorf("query: %+v", pa)
	}
	for _, q := range []string{"limit=0", "offset=x", "sortBy=color", "sortOrder=up"} {
		ts.admin("GET", "/api/admin/projects/default/applications?"+q, nil).must(t, http.StatusBadRequest)
	}
	ts.admin("GET", "/api/admin/projects/nope/applications", nil).must(t, http.StatusNotFound)
	ts.request("GET", "/api/admin/metrics/applications/shop/overview", "", nil).must(t, http.StatusUnauthorized)
	ts.request("GET", "/api/admin/projects/default/applications", testClientToken, nil).must(t, http.StatusForbidden)
}

func TestSaveAndDeleteApplication(t *testing.T) {
	ts := newTestServer(t)
	seedApplications(t, ts)
	const path = "/api/admin/metrics/applications/"
	type app struct {
		AppName, Description, URL, Color, Icon string
		Strategies                             []string
	}
	get := func(name string) app {
		t.Helper()
		var a app
		ts.admin("GET", path+name, nil).must(t, http.StatusOK).Decode(t, &a)
		return a
	}

	mark := auditMark(t, ts)
	ts.admin("POST", path+"billing", map[string]any{"description": "Invoices", "url": "https://example.com", "color": "red"}).must(t, http.StatusAccepted)
	if a := get("billing"); a.Description != "Invoices" || a.URL != "https://example.com" || a.Color != "red" {
		t.Errorf("created %+v", a)
	}
	ev := auditAfter(t, ts, mark)
	if len(ev) != 1 || ev[0].Type != "application-created" {
		t.Fatalf("events %+v", ev)
	}

	mark = auditMark(t, ts)
	ts.admin("POST", path+"shop", map[string]any{"description": "The shop", "icon": "cart"}).must(t, http.StatusAccepted)
	if a := get("shop"); a.Description != "The shop" || a.Icon != "cart" || len(a.Strategies) != 2 {
		t.Errorf("updated %+v", a)
	}
	ev = auditAfter(t, ts, mark)
	if len(ev) != 1 || ev[0].Type != "application-updated" {
		t.Fatalf("events %+v", ev)
	}
	var pre map[string]any
	_ = json.Unmarshal(ev[0].PreData, &pre)
	if pre["description"] != "" || pre["appName"] != "shop" {
		t.Errorf("preData %s", ev[0].PreData)
	}

	mark = auditMark(t, ts)
	ts.admin("DELETE", path+"shop", nil).must(t, http.StatusOK)
	ts.admin("GET", path+"shop", nil).must(t, http.StatusNotFound)
	ts.admin("DELETE", path+"shop", nil).must(t, http.StatusOK)
	ev = auditAfter(t, ts, mark)
	if len(ev) != 1 || ev[0].Type != "application-deleted" {
		t.Fatalf("events %+v", ev)
	}

	for _, tt := range []struct {
		name string
		body any
		want int
	}{
		{"too many strategies", map[string]any{"strategies": make([]string, 101)}, 400},
		{"NUL", map[string]any{"description": "a\x00"}, 400},
		{"not JSON", "{", 400},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mark := auditMark(t, ts)
			ts.admin("POST", path+"tool", tt.body).must(t, tt.want)
			if ev := auditAfter(t, ts, mark); len(ev) != 0 {
				t.Errorf("events %+v", ev)
			}
		})
	}
	ts.request("POST", path+"tool", "", map[string]any{}).must(t, http.StatusUnauthorized)
	ts.request("DELETE", path+"tool", testClientToken, nil).must(t, http.StatusForbidden)
	createTestUser(t, ts, "ed", "Editor", strongPassword)
	cookie := signIn(t, ts, "ed", strongPassword)
	ts.asSession(cookie, "DELETE", path+"tool", nil).must(t, http.StatusForbidden)
}
