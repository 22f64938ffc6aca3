package server

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func TestMaintenanceMode(t *testing.T) {
	ts := newTestServer(t)
	const path = "/api/admin/maintenance"
	get := func() bool {
		t.Helper()
		var m struct{ Enabled bool }
		ts.admin("GET", path, nil).must(t, http.StatusOK).Decode(t, &m)
		return m.Enabled
	}
	if get() {
		t.Fatal("maintenance mode on from the start")
	}

	mark := auditMark(t, ts)
	ts.admin("POST", path, map[string]bool{"enabled": true}).must(t, http.StatusNoContent)
	if !get() {
		t.Fatal("maintenance mode did not switch on")
	}
	ev := auditAfter(t, ts, mark)
	if len(ev) != 1 || ev[0].Type != "setting-created" || !json.Valid(ev[0].Data) {
		t.Fatalf("events %+v", ev)
	}
	var data map[string]any
	_ = json.Unmarshal(ev[0].Data, &data)
	if data["id"] != maintenanceSettingName || data["enabled"] != true {
		t.Errorf("event data %s", ev[0].Data)
	}

	// Changes are refused; reads, SDKs and switching it off are not.
	for _, w := range []struct{ method, path string }{
		{"POST", "/api/admin/projects"},
		{"POST", "/api/admin/projects/default/features"},
		{"DELETE", "/api/admin/projects/default"},
		{"PUT", "/api/admin/context/appName"},
	} {
		res := ts.admin(w.method, w.path, map[string]any{"id": "p2", "name": "p2"}).must(t, http.StatusServiceUnavailable)
		if o := res.Object(); o["name"] != "NotReadyError" || o["message"] == "" {
			t.Errorf("%s %s: %s", w.method, w.path, res.Body)
		}
	}
	ts.admin("GET", "/api/admin/projects", nil).must(t, http.StatusOK)
	ts.request("GET", "/api/client/features", testClientToken, nil).must(t, http.StatusOK)
	ts.request("POST", "/api/client/register", testClientToken, map[string]any{"appName": "shop", "instanceId": "i1", "interval": 1000, "started": "2024-01-01T00:00:00Z", "strategies": []string{}}).must(t, http.StatusAccepted)

	mark = auditMark(t, ts)
	ts.admin("POST", path, map[string]bool{"enabled": false}).must(t, http.StatusNoContent)
	if get() {
		t.Fatal("maintenance mode did not switch off")
	}
	ev = auditAfter(t, ts, mark)
	if len(ev) != 1 || ev[0].Type != "setting-updated" || string(ev[0].PreData) == "" {
		t.Fatalf("events %+v", ev)
	}
	ts.admin("POST", "/api/admin/projects", map[string]any{"id": "p2", "name": "p2"}).must(t, http.StatusCreated)
}

func TestMaintenanceModeErrors(t *testing.T) {
	ts := newTestServer(t)
	const path = "/api/admin/maintenance"
	for _, tt := range []struct {
		name string
		body any
		want int
	}{
		{"no enabled", map[string]any{}, 400},
		{"not a boolean", map[string]any{"enabled": "yes"}, 400},
		{"not JSON", "{", 400},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mark := auditMark(t, ts)
			ts.admin("POST", path, tt.body).must(t, tt.want)
			if ev := auditAfter(t, ts, mark); len(ev) != 0 {
				t.Errorf("events %+v", ev)
			}
		})
	}
	ts.request("POST", path, "", map[string]bool{"enabled": true}).must(t, http.StatusUnauthorized)
	ts.request("GET", path, "", nil).must(t, http.StatusUnauthorized)
	ts.request("POST", path, testClientToken, map[string]bool{"enabled": true}).must(t, http.StatusForbidden)
	// An Editor may read the mode but not switch it.
	createTestUser(t, ts, "ed", "Editor", strongPassword)
	cookie := signIn(t, ts, "ed", strongPassword)
	ts.asSession(cookie, "GET", path, nil).must(t, http.StatusOK)
	if res := ts.asSession(cookie, "POST", path, map[string]bool{"enabled": true}).must(t, http.StatusForbidden); !strings.Contains(string(res.Body), "ADMIN") {
		t.Errorf("Editor refused for another reason: %s", res.Body)
	}
	ts.request("POST", path, testAdminToken, "<x/>", "Content-Type", "application/xml").must(t, http.StatusUnsupportedMediaType)
}
