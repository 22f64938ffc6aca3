package server

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/signalbox/signalbox/store"
)

// auditMark is the id of the newest audit event, to compare against later.
func auditMark(t *testing.T, ts *testServer) int64 {
	t.Helper()
	rev, err := ts.srv.store.Revision(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return rev
}

// auditAfter lists the events newer than mark, oldest first.
func auditAfter(t *testing.T, ts *testServer, mark int64) []store.Event {
	t.Helper()
	var list []store.Event
	err := ts.srv.store.View(context.Background(), func(r store.Reader) (err error) {
		list, err = r.ListEvents(context.Background(), store.EventFilter{AfterID: mark, Ascending: true})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// mustOneAudit checks that exactly one event of type typ was recorded
// after mark, and returns it.
func mustOneAudit(t *testing.T, ts *testServer, mark int64, typ string) store.Event {
	t.Helper()
	list := auditAfter(t, ts, mark)
	if len(list) != 1 || list[0].Type != typ {
		var types []string
		for _, e := range list {
			types = append(types, e.Type)
		}
		t.Fatalf("events after %d: %v, want exactly one %s", mark, types, typ)
	}
	return list[0]
}

// mustNoAudit checks that nothing was recorded after mark.
func mustNoAudit(t *testing.T, ts *testServer, mark int64) {
	t.Helper()
	if list := auditAfter(t, ts, mark); len(list) != 0 {
		t.Fatalf("%d unexpected event(s) after %d, first %s", len(list), mark, list[0].Type)
	}
}

// mustErrorRecord checks an Error record: status, name, a message and, for
// a validation error, details naming path (when path is not empty).
func mustErrorRecord(t *testing.T, res response, status int, name, path string) {
	t.Helper()
	res.must(t, status)
	body := res.Object()
	if body["name"] != name || body["message"] == "" || body["message"] == nil {
		t.Fatalf("want a %s Error record, got %s", name, res.Body)
	}
	if path != "" && !strings.Contains(string(res.Body), `"path":"`+path+`"`) {
		t.Fatalf("want details naming %s, got %s", path, res.Body)
	}
}

// plantInStore makes a change directly in the store with an audit event,
// for fixtures that belong to other areas (flags, strategies).
func plantInStore(t *testing.T, ts *testServer, fn func(ctx context.Context, tx store.Tx) error) {
	t.Helper()
	ctx := context.Background()
	err := ts.srv.store.Update(ctx, func(tx store.Tx) error {
		if err := fn(ctx, tx); err != nil {
			return err
		}
		_, err := tx.AppendEvent(ctx, store.Event{Type: "feature-updated", CreatedBy: "test fixture"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	ts.srv.refreshRevision(ctx)
}

// plantFlag creates a flag in a project.
func plantFlag(t *testing.T, ts *testServer, project, name string) {
	t.Helper()
	plantInStore(t, ts, func(ctx context.Context, tx store.Tx) error {
		_, err := tx.CreateFeature(ctx, store.Feature{Name: name, Project: project, Type: "release"})
		return err
	})
}

// plantStrategy adds a strategy to a flag in development.
func plantStrategy(t *testing.T, ts *testServer, st store.Strategy) {
	t.Helper()
	if st.Environment == "" {
		st.Environment = store.EnvDevelopment
	}
	plantInStore(t, ts, func(ctx context.Context, tx store.Tx) error {
		_, err := tx.CreateStrategy(ctx, st)
		return err
	})
}

func TestEventShapeAndListing(t *testing.T) {
	ts := newTestServer(t)
	ts.admin("POST", "/api/admin/projects", map[string]any{"id": "ev-one", "name": "One"}).must(t, http.StatusCreated)
	ts.admin("POST", "/api/admin/projects", map[string]any{"id": "ev-two", "name": "Two"}).must(t, http.StatusCreated)
	plantFlag(t, ts, "ev-one", "ev-flag")

	res := ts.admin("GET", "/api/admin/events", nil).must(t, http.StatusOK)
	var list struct {
		Version     int              `json:"version"`
		Events      []map[string]any `json:"events"`
		TotalEvents int              `json:"totalEvents"`
	}
	res.Decode(t, &list)
	if list.Version != 1 || len(list.Events) == 0 || list.TotalEvents < len(list.Events) {
		t.Fatalf("events answer %s", res.Body)
	}
	for i := 1; i < len(list.Events); i++ {
		if list.Events[i-1]["id"].(float64) <= list.Events[i]["id"].(float64) {
			t.Fatalf("events not newest first: %s", res.Body)
		}
	}
	var created map[string]any
	for _, e := range list.Events {
		if e["type"] == "project-created" && e["project"] == "ev-two" {
			created = e
		}
	}
	if created == nil {
		t.Fatalf("no project-created event for ev-two in %s", res.Body)
	}
	for _, field := range []string{"id", "createdAt", "type", "createdBy", "createdByUserId", "environment", "project", "featureName", "data", "preData", "tags"} {
		if _, ok := created[field]; !ok {
			t.Errorf("event lacks %s: %v", field, created)
		}
	}
	if created["createdBy"] != "init-admin" || created["createdByUserId"] != nil || created["featureName"] != nil ||
		created["preData"] != nil || fmt.Sprint(created["tags"]) != "[]" {
		t.Errorf("event fields %v", created)
	}
	if data, _ := created["data"].(map[string]any); data["id"] != "ev-two" {
		t.Errorf("data %v", created["data"])
	}

	var byProject struct{ Events []map[string]any }
	ts.admin("GET", "/api/admin/events?project=ev-one", nil).must(t, http.StatusOK).Decode(t, &byProject)
	if len(byProject.Events) == 0 {
		t.Fatal("no events for project ev-one")
	}
	for _, e := range byProject.Events {
		if e["project"] != "ev-one" {
			t.Errorf("event of project %v in ?project=ev-one", e["project"])
		}
	}

	plantInStore(t, ts, func(ctx context.Context, tx store.Tx) error {
		_, err := tx.AppendEvent(ctx, store.Event{Type: "feature-stale-on", FeatureName: "ev-flag", Project: "ev-one", CreatedBy: "x"})
		return err
	})
	var flag struct {
		ToggleName string           `json:"toggleName"`
		Events     []map[string]any `json:"events"`
	}
	ts.admin("GET", "/api/admin/events/ev-flag", nil).must(t, http.StatusOK).Decode(t, &flag)
	if flag.ToggleName != "ev-flag" || len(flag.Events) != 1 || flag.Events[0]["type"] != "feature-stale-on" {
		t.Errorf("flag events %+v", flag)
	}
}

func TestEventSearch(t *testing.T) {
	ts := newTestServer(t)
	for _, id := range []string{"search-a", "search-b", "search-c"} {
		ts.admin("POST", "/api/admin/projects", map[string]any{"id": id, "name": "Needle " + id}).must(t, http.StatusCreated)
	}
	ts.admin("PUT", "/api/admin/projects/search-b", map[string]any{"description": "changed"}).must(t, http.StatusOK)
	newest := auditMark(t, ts)

	type answer struct {
		Version     int `json:"version"`
		TotalEvents int `json:"totalEvents"`
		Events      []struct {
			ID      int64  `json:"id"`
			Type    string `json:"type"`
			Project string `json:"project"`
		} `json:"events"`
	}
	search := func(body any) answer {
		t.Helper()
		var a answer
		ts.admin("POST", "/api/admin/events/search", body).must(t, http.StatusOK).Decode(t, &a)
		if a.Version != 1 {
			t.Fatalf("version %d", a.Version)
		}
		return a
	}
	if a := search(map[string]any{"type": "project-updated"}); len(a.Events) != 1 || a.Events[0].Project != "search-b" || a.TotalEvents != 1 {
		t.Errorf("type filter: %+v", a)
	}
	if a := search(map[string]any{"type": "project-created", "project": "search-c"}); len(a.Events) != 1 {
		t.Errorf("type+project filter: %+v", a)
	}
	if a := search(map[string]any{"project": "SEARCH-C"}); len(a.Events) != 0 {
		t.Errorf("project filter must be case-sensitive: %+v", a)
	}
	if a := search(map[string]any{"query": "needle SEARCH-a"}); len(a.Events) != 1 || a.Events[0].Project != "search-a" {
		t.Errorf("free text query: %+v", a)
	}
	if a := search(map[string]any{"limit": 2}); len(a.Events) != 2 || a.Events[0].ID != newest || a.TotalEvents < 4 {
		t.Errorf("limit 2: %+v", a)
	}
	if a := search(map[string]any{"limit": 2, "offset": newest - 1}); len(a.Events) != 2 || a.Events[0].ID != newest-1 || a.Events[1].ID != newest-2 {
		t.Errorf("offset is the id to start from: %+v", a)
	}
	if a := search(map[string]any{}); len(a.Events) != a.TotalEvents || a.TotalEvents < 4 {
		t.Errorf("empty search: %+v", a)
	}
	// No body at all searches everything too.
	ts.request("POST", "/api/admin/events/search", testAdminToken, nil).must(t, http.StatusOK)
	for i := 0; i < 101; i++ {
		plantInStore(t, ts, func(ctx context.Context, tx store.Tx) error { return nil })
	}
	if a := search(map[string]any{}); len(a.Events) != 100 || a.TotalEvents < 105 {
		t.Errorf("default limit 100: %d events, total %d", len(a.Events), a.TotalEvents)
	}

	bad := []struct {
		name string
		body any
		path string
	}{
		{"limit 0", map[string]any{"limit": 0}, "limit"},
		{"limit 101", map[string]any{"limit": 101}, "limit"},
		{"negative offset", map[string]any{"offset": -1}, "offset"},
		{"unknown type", map[string]any{"type": "project-exploded"}, "type"},
		{"limit not a number", map[string]any{"limit": "ten"}, "limit"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			mustErrorRecord(t, ts.admin("POST", "/api/admin/events/search", tt.body), http.StatusBadRequest, "ValidationError", tt.path)
		})
	}
	mustErrorRecord(t, ts.request("POST", "/api/admin/events/search", testAdminToken, `{}`, "Content-Type", "text/plain"),
		http.StatusUnsupportedMediaType, "ContentTypeError", "")
	mustErrorRecord(t, ts.request("POST", "/api/admin/events/search", "", map[string]any{}), http.StatusUnauthorized, "AuthenticationRequired", "")
}

func TestEventSearchQueryString(t *testing.T) {
	ts := newTestServer(t)
	for _, id := range []string{"qs-a", "qs-b", "qs-c"} {
		ts.admin("POST", "/api/admin/projects", map[string]any{"id": id, "name": id}).must(t, http.StatusCreated)
	}
	type answer struct {
		Total  int `json:"total"`
		Events []struct {
			Project string `json:"project"`
		} `json:"events"`
	}
	tests := []struct {
		query    string
		projects string
		total    int
	}{
		{"?project=IS:qs-b", "[qs-b]", 1},
		{"?project=IS_ANY_OF:qs-a,qs-c", "[qs-c qs-a]", 2},
		{"?type=IS:project-created&project=IS_ANY_OF:qs-a,qs-b,qs-c&limit=1", "[qs-c]", 3},
		{"?type=IS:project-created&project=IS_ANY_OF:qs-a,qs-b,qs-c&limit=1&offset=1", "[qs-b]", 3},
		{"?project=qs-a&query=QS-A", "[qs-a]", 1},
		{"?createdBy=IS:42", "[]", 0},
		{"?from=IS:2000-01-01&project=IS:qs-a", "[qs-a]", 1},
		{"?to=IS:2000-01-01&project=IS:qs-a", "[]", 0},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			var a answer
			ts.admin("GET", "/api/admin/search/events"+tt.query, nil).must(t, http.StatusOK).Decode(t, &a)
			var got []string
			for _, e := range a.Events {
				got = append(got, e.Project)
			}
			if fmt.Sprint(got) != tt.projects && !(tt.projects == "[]" && got == nil) || a.Total != tt.total {
				t.Errorf("projects %v total %d, want %s total %d", got, a.Total, tt.projects, tt.total)
			}
		})
	}
	for _, q := range []string{"?limit=x", "?offset=-2", "?project=IS_NOT:qs-a", "?from=IS:yesterday"} {
		mustErrorRecord(t, ts.admin("GET", "/api/admin/search/events"+q, nil), http.StatusBadRequest, "ValidationError", "")
	}
}
