package server

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/signalbox/signalbox/store"
)

func TestOutdatedSDKVersions(t *testing.T) {
	tests := []struct {
		sdk  string
		want bool
	}{
		{"unleash-client-node:5.3.1", true},
		{"unleash-client-node:5.3.2", false},
		{"unleash-client-node:6.0.0", false},
		{"unleash-client-java:8.9.0", true},
		{"unleash-client-go:v3.9.0", true},
		{"unleash-client-node:5.3", true},
		{"unleash-client-node:5.3.2-beta.1", true},
		{"unleash-client-node:5.3.2+build.7", false},
		{"unleash-client-node:v6", false},
		{"unleash-client-node:05.3.1", false},
		{"unleash-client-node:garbage", false},
		{"unleash-client-node", false},
		{"someone-elses-sdk:0.0.1", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := outdatedSDK(tt.sdk); got != tt.want {
			t.Errorf("outdatedSDK(%q) = %v, want %v", tt.sdk, got, tt.want)
		}
	}
}

func TestOutdatedSDKs(t *testing.T) {
	ts := newTestServer(t)
	c := newOAChecker(t, ts)
	plantFlag(t, ts, store.DefaultProject, "used")
	now := time.Now().UTC()
	register := func(app, instance, sdk string) {
		ts.request("POST", "/api/client/register", testClientToken, map[string]any{"appName": app, "instanceId": instance,
			"sdkVersion": sdk, "strategies": []string{"default"}, "started": now, "interval": 15000}).must(t, http.StatusAccepted)
	}
	register("old-shop", "a", "unleash-client-node:4.0.0")
	register("old-shop", "b", "unleash-client-node:4.0.0")
	register("idle", "c", "unleash-client-java:8.0.0")
	register("fresh", "d", "unleash-client-node:6.12.0")
	ts.request("POST", "/api/client/metrics", testClientToken, map[string]any{"appName": "old-shop", "instanceId": "a",
		"bucket": map[string]any{"start": now.Add(-time.Minute), "stop": now, "toggles": map[string]any{"used": map[string]int{"yes": 1}}}}).must(t, http.StatusAccepted)
	if err := ts.srv.FlushMetrics(t.Context()); err != nil {
		t.Fatal(err)
	}

	var got struct {
		SDKs []outdatedSDKJSON `json:"sdks"`
	}
	c.do("GET", "/api/admin/metrics/sdks/outdated", testAdminToken, nil, http.StatusOK).Decode(t, &got)
	want := []outdatedSDKJSON{
		{SDKVersion: "unleash-client-java:8.0.0", Applications: []string{"idle"}},
		{SDKVersion: "unleash-client-node:4.0.0", Applications: []string{"old-shop"}},
	}
	if diff := cmp.Diff(want, got.SDKs); diff != "" {
		t.Errorf("outdated SDKs (-want +got):\n%s", diff)
	}
	c.do("GET", "/api/admin/projects/default/sdks/outdated", testAdminToken, nil, http.StatusOK).Decode(t, &got)
	if diff := cmp.Diff(want[1:], got.SDKs); diff != "" {
		t.Errorf("outdated SDKs of the project (-want +got):\n%s", diff)
	}
	c.do("GET", "/api/admin/projects/nope/sdks/outdated", testAdminToken, nil, http.StatusNotFound)
}
