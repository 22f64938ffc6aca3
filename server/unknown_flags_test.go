package server

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/signalbox/signalbox/store"
)

func TestUnknownFlags(t *testing.T) {
	ts := newTestServer(t)
	c := newOAChecker(t, ts)
	plantFlag(t, ts, store.DefaultProject, "real")
	ts.admin("POST", "/api/admin/projects", map[string]any{"id": "other", "name": "Other"}).must(t, http.StatusCreated)
	plantFlag(t, ts, "other", "elsewhere") // not in the client token's scope, but a flag
	now := time.Now().UTC()
	report := func(app string, names ...string) {
		toggles := map[string]any{}
		for _, n := range names {
			toggles[n] = map[string]int{"yes": 1}
		}
		ts.request("POST", "/api/client/metrics", testClientToken, map[string]any{"appName": app, "instanceId": "i",
			"bucket": map[string]any{"start": now.Add(-time.Minute), "stop": now, "toggles": toggles}}).must(t, http.StatusAccepted)
	}
	report("shop", "real", "typo-flag", "elsewhere")
	report("cart", "typo-flag")

	var got struct {
		UnknownFlags []unknownFlagJSON `json:"unknownFlags"`
	}
	c.do("GET", "/api/admin/metrics/unknown-flags", testAdminToken, nil, http.StatusOK).Decode(t, &got)
	if len(got.UnknownFlags) != 1 || got.UnknownFlags[0].Name != "typo-flag" || len(got.UnknownFlags[0].Reports) != 2 ||
		got.UnknownFlags[0].Reports[0].AppName != "cart" || got.UnknownFlags[0].Reports[1].Environments[0].Environment != "development" {
		t.Fatalf("unknown flags %+v", got)
	}

	// A flood of made-up names keeps the table bounded.
	for i := range 30 {
		names := make([]string, 0, 100)
		for j := range 100 {
			names = append(names, fmt.Sprintf("made-up-%d-%d", i, j))
		}
		report(fmt.Sprint("app-", i), names...)
	}
	c.do("GET", "/api/admin/metrics/unknown-flags", testAdminToken, nil, http.StatusOK).Decode(t, &got)
	// The table holds at most the bound, "elsewhere" among them, which is
	// not listed.
	if len(got.UnknownFlags) != maxUnknownFlags-1 {
		t.Errorf("%d unknown names listed, want %d", len(got.UnknownFlags), maxUnknownFlags-1)
	}
	c.do("GET", "/api/admin/metrics/unknown-flags", testClientToken, nil, http.StatusForbidden)
}
