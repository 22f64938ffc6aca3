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
	// Flags the reference evaluates at random would change every answer;
	// archive them so that re-polls can be answered 304.
	for _, name := range []string{"f.gradual.random", "v.custom"} {
		admin(t, server, "DELETE", "/api/admin/projects/default/features/"+name, nil)
	}
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
			ETag        string `json:"etag"`
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
	// Every re-poll sends the ETag it last got, and an unchanged answer is a 304.
	lastETag, notModified := "", 0
	for _, r := range got.Requests {
		if r.Method != "GET" {
			continue
		}
		if lastETag != "" && r.IfNoneMatch != lastETag {
			t.Errorf("re-poll sent If-None-Match %q, the last ETag was %q", r.IfNoneMatch, lastETag)
		}
		if r.Status == http.StatusNotModified {
			notModified++
		}
		if r.ETag != "" {
			lastETag = r.ETag
		}
	}
	if notModified == 0 {
		t.Errorf("no re-poll was answered 304: %+v", got.Requests)
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
