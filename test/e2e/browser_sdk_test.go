package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestBrowserSDKAgainstProxy runs the browser SDK unleash-proxy-client (in
// Node) against our proxy in front of our server.
func TestBrowserSDKAgainstProxy(t *testing.T) {
	dir := requireNode(t)
	server := startServer(t, "")
	createFixture(t, server)
	proxy := startProxy(t, server, nil)

	out := runNode(t, dir, "browser-sdk.cjs", "URL="+proxy+"/proxy", "KEY="+clientKey, "USER_ID=u1",
		"FLAGS=f.default,f.userids,v.flag,sv.flag,f.off,no.such.flag")
	type flagState struct {
		Enabled bool `json:"enabled"`
		Variant struct {
			Name    string `json:"name"`
			Enabled bool   `json:"enabled"`
			Payload *struct {
				Type  string `json:"type"`
				Value string `json:"value"`
			} `json:"payload"`
		} `json:"variant"`
	}
	var got struct {
		Before   map[string]flagState `json:"before"`
		After    map[string]flagState `json:"after"`
		Requests []struct {
			URL         string `json:"url"`
			Method      string `json:"method"`
			IfNoneMatch string `json:"ifNoneMatch"`
			Status      int    `json:"status"`
		} `json:"requests"`
		MetricsPosted int `json:"metricsPosted"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("SDK output %s: %v", out, err)
	}
	if !got.Before["f.default"].Enabled || got.Before["f.off"].Enabled || got.Before["no.such.flag"].Enabled {
		t.Errorf("start: %+v", got.Before)
	}
	if got.Before["f.userids"].Enabled || !got.After["f.userids"].Enabled {
		t.Errorf("updateContext(userId u1) should switch f.userids on: before %+v after %+v", got.Before["f.userids"], got.After["f.userids"])
	}
	v := got.After["v.flag"].Variant
	if v.Name != "blue" || !v.Enabled || v.Payload == nil || v.Payload.Type != "number" || v.Payload.Value != "7" {
		t.Errorf("override variant for u1: %+v", v)
	}
	sv := got.After["sv.flag"].Variant
	if (sv.Name != "A" && sv.Name != "B") || sv.Payload == nil {
		t.Errorf("strategy variant: %+v", sv)
	}
	if got.After["f.off"].Variant.Name != "disabled" || got.After["f.off"].Variant.Enabled {
		t.Errorf("disabled flag variant: %+v", got.After["f.off"].Variant)
	}
	reused := false
	for _, r := range got.Requests {
		if r.Method == "GET" && r.IfNoneMatch != "" && r.Status == http.StatusNotModified {
			reused = true
		}
	}
	if !reused {
		t.Errorf("the SDK never got a 304 for a re-poll with If-None-Match: %+v", got.Requests)
	}
	if got.MetricsPosted == 0 {
		t.Error("the SDK posted no metrics")
	}
	// The proxy forwards what the SDK reported to the server.
	deadline := time.Now().Add(15 * time.Second)
	for {
		status, body := call(t, "GET", server+"/api/admin/client-metrics/features/f.default", adminToken, nil)
		if status == http.StatusOK && strings.Contains(string(body), `"yes"`) && !strings.Contains(string(body), `"yes":0`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("metrics never reached the server: %d %s", status, body)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
