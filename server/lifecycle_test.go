package server

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/signalbox/signalbox/store"
)

func TestFeatureLifecycle(t *testing.T) {
	ts := newTestServer(t)
	ref := unleashReference(t)
	for _, n := range []string{"fresh", "tried", "shipped", "done", "gone"} {
		ts.admin("POST", "/api/admin/projects/default/features", map[string]any{"name": n}).must(t, http.StatusCreated)
	}
	ctx := context.Background()
	err := ts.srv.store.Update(ctx, func(tx store.Tx) error {
		if err := tx.MarkFeaturesSeen(ctx, "development", []string{"tried", "shipped", "done"}, time.Now()); err != nil {
			return err
		}
		return tx.MarkFeaturesSeen(ctx, "production", []string{"shipped", "done"}, time.Now())
	})
	if err != nil {
		t.Fatal(err)
	}
	ts.admin("DELETE", "/api/admin/projects/default/features/gone", nil).must(t, http.StatusAccepted)
	const base = "/api/admin/projects/default/features/"

	mark := auditMark(t, ts)
	ts.admin("POST", base+"done/lifecycle/complete", map[string]string{"status": "kept", "statusValue": "blue"}).must(t, http.StatusOK)
	ev := auditAfter(t, ts, mark)
	if len(ev) != 1 || ev[0].Type != "feature-completed" || ev[0].FeatureName != "done" || ev[0].Project != "default" {
		t.Fatalf("events %+v", ev)
	}

	stages := func(name string) []string {
		t.Helper()
		res := ts.admin("GET", base+name+"/lifecycle", nil).must(t, http.StatusOK)
		matchesUnleash(t, ref, "featureLifecycleSchema", res.Body)
		var list []struct{ Stage, Status string }
		res.Decode(t, &list)
		var out []string
		for _, s := range list {
			out = append(out, s.Stage+s.Status)
		}
		return out
	}
	for name, want := range map[string][]string{
		"fresh":   {"initial"},
		"tried":   {"initial", "pre-live"},
		"shipped": {"initial", "pre-live", "live"},
		"done":    {"initial", "pre-live", "live", "completedkept"},
		"gone":    {"initial", "archived"},
	} {
		if got := stages(name); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}

	res := ts.admin("GET", "/api/admin/lifecycle/count", nil).must(t, http.StatusOK)
	matchesUnleash(t, ref, "featureLifecycleCountSchema", res.Body)
	var counts map[string]int
	res.Decode(t, &counts)
	if want := map[string]int{"initial": 1, "preLive": 1, "live": 1, "completed": 1, "archived": 1}; !mapsEqual(counts, want) {
		t.Errorf("counts %v, want %v", counts, want)
	}
	var a searchAnswer
	ts.admin("GET", "/api/admin/search/features?lifecycle=IS:completed", nil).must(t, http.StatusOK).Decode(t, &a)
	if !slices.Equal(a.names(), []string{"done"}) {
		t.Errorf("search completed: %v", a.names())
	}

	mark = auditMark(t, ts)
	ts.admin("POST", base+"done/lifecycle/uncomplete", nil).must(t, http.StatusOK)
	ts.admin("POST", base+"fresh/lifecycle/uncomplete", nil).must(t, http.StatusOK)
	ev = auditAfter(t, ts, mark)
	if len(ev) != 1 || ev[0].Type != "feature-uncompleted" || ev[0].FeatureName != "done" {
		t.Fatalf("events %+v", ev)
	}
	if got := stages("done"); !slices.Equal(got, []string{"initial", "pre-live", "live"}) {
		t.Errorf("after uncomplete: %v", got)
	}
	// Event search knows the new types.
	ts.admin("GET", "/api/admin/search/events?type=IS:feature-uncompleted", nil).must(t, http.StatusOK)

	for _, tt := range []struct {
		name, method, path string
		body               any
		want               int
	}{
		{"bad status", "POST", base + "fresh/lifecycle/complete", map[string]string{"status": "done"}, 400},
		{"no status", "POST", base + "fresh/lifecycle/complete", map[string]string{}, 400},
		{"archived", "POST", base + "gone/lifecycle/complete", map[string]string{"status": "discarded"}, 404},
		{"unknown flag", "POST", base + "nope/lifecycle/complete", map[string]string{"status": "kept"}, 404},
		{"other project", "POST", "/api/admin/projects/web/features/fresh/lifecycle/complete", map[string]string{"status": "kept"}, 404},
		{"unknown flag read", "GET", base + "nope/lifecycle", nil, 404},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mark := auditMark(t, ts)
			ts.admin(tt.method, tt.path, tt.body).must(t, tt.want)
			if ev := auditAfter(t, ts, mark); len(ev) != 0 {
				t.Errorf("events %+v", ev)
			}
		})
	}
	ts.request("GET", "/api/admin/lifecycle/count", "", nil).must(t, http.StatusUnauthorized)
	ts.request("POST", base+"fresh/lifecycle/complete", testClientToken, map[string]string{"status": "kept"}).must(t, http.StatusForbidden)
	createTestUser(t, ts, "vic", "Viewer", strongPassword)
	cookie := signIn(t, ts, "vic", strongPassword)
	ts.asSession(cookie, "GET", base+"fresh/lifecycle", nil).must(t, http.StatusOK)
	ts.asSession(cookie, "POST", base+"fresh/lifecycle/complete", map[string]string{"status": "kept"}).must(t, http.StatusForbidden)
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
