package server

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/signalbox/signalbox/internal/pgtest"
	"github.com/signalbox/signalbox/store"
	"github.com/signalbox/signalbox/store/sqlstore"
)

const (
	crBase    = "/api/admin/projects/default/change-requests"
	crProd    = "/api/admin/projects/default/environments/production/change-requests"
	crFlags   = "/api/admin/projects/default/features"
	crProdEnv = "/environments/production"
)

// crClock is a clock tests move by hand.
type crClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *crClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *crClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// crServer is a test server over the database at dbURL with the clock now
// (nil: the real one). stop closes it; it also runs at the end of the test.
type crServer struct {
	*testServer
	stop func()
	// run starts Server.Run; stop then waits for it.
	run func()
}

func newCRServer(t *testing.T, dbURL string, now func() time.Time) *crServer {
	t.Helper()
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Bootstrap(ctx, st, BootstrapConfig{AdminTokens: []string{testAdminToken}, AdminPassword: testAdminPassword}); err != nil {
		t.Fatal(err)
	}
	srv, err := New(ctx, st, Config{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: now, RevisionPoll: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	runCtx, cancel := context.WithCancel(ctx)
	ran := make(chan struct{})
	started := false
	cs := &crServer{testServer: &testServer{t: t, srv: srv, url: hs.URL}}
	cs.run = func() {
		started = true
		go func() {
			defer close(ran)
			srv.Run(runCtx)
		}()
	}
	var once sync.Once
	cs.stop = func() {
		once.Do(func() {
			cancel()
			if started {
				<-ran
			}
			hs.Close()
			st.Close()
		})
	}
	t.Cleanup(cs.stop)
	return cs
}

// crSQLite is a crServer over a new SQLite file.
func crSQLite(t *testing.T, now func() time.Time) *crServer {
	return newCRServer(t, filepath.Join(t.TempDir(), "signalbox.db"), now)
}

// crUser creates an Admin (or the given root role) with a password and
// returns a session cookie.
func crUser(t *testing.T, ts *testServer, name, role string) string {
	t.Helper()
	createTestUser(t, ts, name, role, strongPassword)
	return signIn(t, ts, name, strongPassword)
}

func crEnable(t *testing.T, ts *testServer, env string, approvals int) {
	t.Helper()
	ts.admin("PUT", "/api/admin/projects/default/environments/"+env+"/change-requests/config",
		map[string]any{"changeRequestsEnabled": true, "requiredApprovals": approvals}).must(t, http.StatusNoContent)
}

// crFlag creates a flag in the default project.
func crFlag(t *testing.T, ts *testServer, name string) {
	t.Helper()
	ts.admin("POST", crFlags, map[string]any{"name": name}).must(t, http.StatusCreated)
}

// crStrategy adds a strategy through the API and returns its id.
func crStrategy(t *testing.T, ts *testServer, flag, env string, body map[string]any) string {
	t.Helper()
	var st adminStrategy
	ts.admin("POST", crFlags+"/"+flag+"/environments/"+env+"/strategies", body).must(t, http.StatusOK).Decode(t, &st)
	return st.ID
}

func crDecode(t *testing.T, res response) changeRequestJSON {
	t.Helper()
	var cr changeRequestJSON
	res.Decode(t, &cr)
	return cr
}

func crList(t *testing.T, res response) []changeRequestJSON {
	t.Helper()
	var list []changeRequestJSON
	res.Decode(t, &list)
	return list
}

func crState(t *testing.T, ts *testServer, id int, auth string, body map[string]any) response {
	t.Helper()
	path := crBase + "/" + strconv.Itoa(id) + "/state"
	if strings.Contains(auth, "=") {
		return ts.asSession(auth, "PUT", path, body)
	}
	return ts.request("PUT", path, auth, body)
}

// crChangeIDs lists the ids of all changes of cr.
func crChangeIDs(cr changeRequestJSON) []int {
	var ids []int
	for _, f := range cr.Features {
		for _, c := range f.Changes {
			ids = append(ids, c.ID)
		}
	}
	for _, c := range cr.Segments {
		ids = append(ids, c.ID)
	}
	return ids
}

// eventTypes lists the types of the events after mark, oldest first.
func eventTypes(t *testing.T, ts *testServer, mark int64) []string {
	t.Helper()
	var types []string
	for _, e := range auditAfter(t, ts, mark) {
		types = append(types, e.Type)
	}
	return types
}

func mustEventTypes(t *testing.T, ts *testServer, mark int64, want ...string) []store.Event {
	t.Helper()
	if got := eventTypes(t, ts, mark); !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	return auditAfter(t, ts, mark)
}

func flagEnv(t *testing.T, ts *testServer, flag, env string) adminFeatureEnv {
	t.Helper()
	var fe adminFeatureEnv
	ts.admin("GET", crFlags+"/"+flag+"/environments/"+env, nil).must(t, http.StatusOK).Decode(t, &fe)
	return fe
}

func TestChangeRequestConfig(t *testing.T) {
	ts := newTestServer(t)
	var cfg []changeRequestConfigJSON
	ts.admin("GET", crBase+"/config", nil).must(t, http.StatusOK).Decode(t, &cfg)
	want := []changeRequestConfigJSON{
		{Environment: "development", Type: "development", RequiredApprovals: 1},
		{Environment: "production", Type: "production", RequiredApprovals: 1},
	}
	if !slices.Equal(cfg, want) {
		t.Fatalf("default config %+v, want %+v", cfg, want)
	}

	path := "/api/admin/projects/default/environments/production/change-requests/config"
	for _, tt := range []struct {
		sent any
		want int
	}{{0, 1}, {25, 10}, {2.7, 2}, {-3, 1}, {3, 3}} {
		mark := auditMark(t, ts)
		ts.admin("PUT", path, map[string]any{"changeRequestsEnabled": true, "requiredApprovals": tt.sent}).must(t, http.StatusNoContent)
		ts.admin("GET", crBase+"/config", nil).must(t, http.StatusOK).Decode(t, &cfg)
		if !cfg[1].ChangeRequestEnabled || !cfg[1].ChangeRequestsEnabled || cfg[1].RequiredApprovals != tt.want {
			t.Errorf("requiredApprovals %v: config %+v, want enabled with %d", tt.sent, cfg[1], tt.want)
		}
		if list := auditAfter(t, ts, mark); len(list) > 1 {
			t.Errorf("requiredApprovals %v: %d events", tt.sent, len(list))
		}
	}
	// An event per change, with the state before; none without a change.
	mark := auditMark(t, ts)
	ts.admin("PUT", path, map[string]any{"changeRequestsEnabled": false}).must(t, http.StatusNoContent)
	e := mustOneAudit(t, ts, mark, "change-request-configuration-updated")
	if e.Project != "default" || e.Environment != "production" ||
		!sameJSONValue(e.Data, json.RawMessage(`{"changeRequestsEnabled":false,"requiredApprovals":3}`)) ||
		!sameJSONValue(e.PreData, json.RawMessage(`{"changeRequestsEnabled":true,"requiredApprovals":3}`)) {
		t.Errorf("event %+v: data %s preData %s", e, e.Data, e.PreData)
	}
	mark = auditMark(t, ts)
	ts.admin("PUT", path, map[string]any{"changeRequestsEnabled": false}).must(t, http.StatusNoContent)
	mustNoAudit(t, ts, mark)

	viewer := viewerSession(t, ts)
	mustErrorRecord(t, ts.admin("PUT", path, map[string]any{"requiredApprovals": 2}), 400, "ValidationError", "changeRequestsEnabled")
	mustErrorRecord(t, ts.admin("PUT", path, map[string]any{"changeRequestsEnabled": "yes"}), 400, "ValidationError", "")
	mustErrorRecord(t, ts.request("PUT", path, testAdminToken, `{"changeRequestsEnabled":true}`, "Content-Type", "text/plain"), 415, "ContentTypeError", "")
	mustErrorRecord(t, ts.request("PUT", path, "", map[string]any{"changeRequestsEnabled": true}), 401, "AuthenticationRequired", "")
	mustErrorRecord(t, ts.asSession(viewer, "PUT", path, map[string]any{"changeRequestsEnabled": true}), 403, "NoAccessError", "")
	mustErrorRecord(t, ts.admin("PUT", "/api/admin/projects/nope/environments/production/change-requests/config",
		map[string]any{"changeRequestsEnabled": true}), 404, "NotFoundError", "")
	mustErrorRecord(t, ts.admin("PUT", "/api/admin/projects/default/environments/nope/change-requests/config",
		map[string]any{"changeRequestsEnabled": true}), 404, "NotFoundError", "")
	mustErrorRecord(t, ts.admin("GET", "/api/admin/projects/nope/change-requests/config", nil), 404, "NotFoundError", "")
	mustErrorRecord(t, ts.request("GET", crBase+"/config", "", nil), 401, "AuthenticationRequired", "")
}

// TestChangeRequestGuard checks that direct edits of an environment with
// change requests answer 403, and that other environments stay editable.
func TestChangeRequestGuard(t *testing.T) {
	// Every flag write of the route table answering 403 in production is
	// TestFlagWritesRespectChangeRequests; here, what stays open.
	ts := newTestServer(t)
	crFlag(t, ts, "guarded")
	crEnable(t, ts, "production", 1)
	flag := crFlags + "/guarded"

	// Development stays editable, and so do a flag's metadata.
	ts.admin("POST", flag+"/environments/development/on", nil).must(t, http.StatusOK)
	crStrategy(t, ts, "guarded", "development", map[string]any{"name": "userWithId", "parameters": map[string]string{"userIds": "1"}})
	ts.admin("PUT", flag+"/environments/development/variants", []map[string]any{{"name": "a", "weight": 1000}}).must(t, http.StatusOK)
	ts.admin("PUT", flag, map[string]any{"description": "still editable"}).must(t, http.StatusOK)
	// Disabling change requests lifts the guard.
	ts.admin("PUT", "/api/admin/projects/default/environments/production/change-requests/config",
		map[string]any{"changeRequestsEnabled": false}).must(t, http.StatusNoContent)
	ts.admin("POST", flag+crProdEnv+"/on", nil).must(t, http.StatusOK)
}

// crLifecycle is the main lifecycle: draft → review → approvals by two
// other users (the author cannot approve) → apply in one transaction.
func crLifecycle(t *testing.T, ts *testServer) {
	crFlag(t, ts, "checkout")
	existing := crStrategy(t, ts, "checkout", "production", map[string]any{"name": "default", "title": "everyone"})
	crEnable(t, ts, "production", 2)
	bob := crUser(t, ts, "bob", "Admin")
	carol := crUser(t, ts, "carol", "Editor")

	// A list of changes starts the caller's draft.
	mark := auditMark(t, ts)
	res := ts.admin("POST", crProd, []map[string]any{
		{"feature": "checkout", "action": "updateEnabled", "payload": map[string]any{"enabled": true}},
		{"feature": "checkout", "action": "addStrategy", "payload": map[string]any{
			"name": "flexibleRollout", "constraints": []any{}, "parameters": map[string]string{"rollout": "25", "stickiness": "default", "groupId": "checkout"}}},
		{"feature": "checkout", "action": "updateStrategy", "payload": map[string]any{"id": existing, "name": "default", "title": "still everyone"}},
	}).must(t, http.StatusOK)
	cr := crDecode(t, res)
	if cr.State != "Draft" || cr.MinApprovals != 2 || cr.Project != "default" || cr.Environment != "production" ||
		cr.CreatedBy.Username == "" || cr.CreatedBy.ID != nil || len(cr.Features) != 1 || len(cr.Features[0].Changes) != 3 {
		t.Fatalf("new draft: %s", res.Body)
	}
	if cr.Title != "Change request #"+strconv.Itoa(cr.ID) {
		t.Errorf("title %q", cr.Title)
	}
	for _, c := range cr.Features[0].Changes {
		if c.Conflict != "" {
			t.Errorf("change %d conflicts in a fresh draft: %s", c.ID, c.Conflict)
		}
	}
	events := mustEventTypes(t, ts, mark, "change-request-created", "change-added", "change-added", "change-added")
	if events[1].FeatureName != "checkout" || events[1].Project != "default" || events[1].Environment != "production" {
		t.Errorf("change-added event %+v", events[1])
	}
	// One more change, alone, lands in the same draft.
	res = ts.admin("POST", crProd, map[string]any{"feature": "checkout", "action": "patchVariant",
		"payload": map[string]any{"variants": []map[string]any{{"name": "blue", "weight": 1000, "stickiness": "default"}}}}).must(t, http.StatusOK)
	if again := crDecode(t, res); again.ID != cr.ID || len(crChangeIDs(again)) != 4 {
		t.Fatalf("second POST: %s", res.Body)
	}
	// Nothing is applied yet.
	if fe := flagEnv(t, ts, "checkout", "production"); fe.Enabled || len(fe.Strategies) != 1 || len(fe.Variants) != 0 {
		t.Fatalf("draft changed the flag: %+v", fe)
	}

	// Reading: by id, the list, pending, pending for the flag, count.
	id := strconv.Itoa(cr.ID)
	ts.admin("GET", crBase+"/"+id, nil).must(t, http.StatusOK)
	if list := crList(t, ts.admin("GET", crBase, nil).must(t, http.StatusOK)); len(list) != 1 || list[0].ID != cr.ID {
		t.Errorf("list: %+v", list)
	}
	if list := crList(t, ts.admin("GET", crBase+"/pending", nil).must(t, http.StatusOK)); len(list) != 1 {
		t.Errorf("pending: %d", len(list))
	}
	if list := crList(t, ts.admin("GET", crBase+"/pending/checkout", nil).must(t, http.StatusOK)); len(list) != 1 {
		t.Errorf("pending for checkout: %d", len(list))
	}
	if list := crList(t, ts.admin("GET", crBase+"/pending/other", nil).must(t, http.StatusOK)); len(list) != 0 {
		t.Errorf("pending for another flag: %d", len(list))
	}

	// Review.
	mark = auditMark(t, ts)
	crState(t, ts, cr.ID, testAdminToken, map[string]any{"state": "In review"}).must(t, http.StatusOK)
	mustOneAudit(t, ts, mark, "change-request-sent-to-review")
	mustErrorRecord(t, crState(t, ts, cr.ID, testAdminToken, map[string]any{"state": "Approved"}), 403, "NoAccessError", "")
	mustErrorRecord(t, crState(t, ts, cr.ID, testAdminToken, map[string]any{"state": "Applied"}), 400, "ValidationError", "state")
	mark = auditMark(t, ts)
	res = crState(t, ts, cr.ID, bob, map[string]any{"state": "Approved", "comment": "fine by me"}).must(t, http.StatusOK)
	if got := crDecode(t, res); got.State != "In review" || len(got.Approvals) != 1 || got.Approvals[0].CreatedBy.Username != "bob" ||
		len(got.Comments) != 1 || got.Comments[0].Text != "fine by me" {
		t.Fatalf("after one of two approvals: %s", res.Body)
	}
	mustOneAudit(t, ts, mark, "change-request-approval-added")
	mustErrorRecord(t, crState(t, ts, cr.ID, bob, map[string]any{"state": "Approved"}), 409, "ConflictError", "")
	mark = auditMark(t, ts)
	res = crState(t, ts, cr.ID, carol, map[string]any{"state": "Approved"}).must(t, http.StatusOK)
	if got := crDecode(t, res); got.State != "Approved" || len(got.Approvals) != 2 {
		t.Fatalf("after two approvals: %s", res.Body)
	}
	mustOneAudit(t, ts, mark, "change-request-approved")
	var count map[string]int
	ts.admin("GET", crBase+"/count", nil).must(t, http.StatusOK).Decode(t, &count)
	if count["total"] != 1 || count["approved"] != 1 || count["draft"] != 0 {
		t.Errorf("count %v", count)
	}

	// Apply: every change with its event, then change-request-applied.
	mark = auditMark(t, ts)
	res = crState(t, ts, cr.ID, carol, map[string]any{"state": "Applied"}).must(t, http.StatusOK)
	if got := crDecode(t, res); got.State != "Applied" {
		t.Fatalf("after applying: %s", res.Body)
	}
	events = mustEventTypes(t, ts, mark, "feature-environment-enabled", "feature-strategy-add", "feature-strategy-update",
		"feature-environment-variants-updated", "change-request-applied")
	for _, e := range events {
		if e.CreatedBy != "carol" || e.Project != "default" || e.Environment != "production" {
			t.Errorf("event %s by %q in %s/%s", e.Type, e.CreatedBy, e.Project, e.Environment)
		}
	}
	fe := flagEnv(t, ts, "checkout", "production")
	if !fe.Enabled || len(fe.Strategies) != 2 || len(fe.Variants) != 1 || fe.Variants[0].Name != "blue" {
		t.Fatalf("applied flag: %+v", fe)
	}
	for _, st := range fe.Strategies {
		if st.ID == existing && (st.Title == nil || *st.Title != "still everyone") {
			t.Errorf("updated strategy: %+v", st)
		}
	}
	// Applied is final.
	mustErrorRecord(t, crState(t, ts, cr.ID, testAdminToken, map[string]any{"state": "Cancelled"}), 400, "ValidationError", "state")
	mustErrorRecord(t, ts.admin("DELETE", crBase+"/"+id, nil), 400, "BadRequestError", "")
	mustErrorRecord(t, ts.admin("DELETE", crBase+"/"+id+"/changes/"+strconv.Itoa(crChangeIDs(cr)[0]), nil), 400, "BadRequestError", "")
	if list := crList(t, ts.admin("GET", crBase+"/pending", nil).must(t, http.StatusOK)); len(list) != 0 {
		t.Errorf("applied request still pending: %d", len(list))
	}
	// A new POST starts a new draft.
	res = ts.admin("POST", crProd, map[string]any{"feature": "checkout", "action": "updateEnabled", "payload": map[string]any{"enabled": false}}).must(t, http.StatusOK)
	if next := crDecode(t, res); next.ID == cr.ID || next.State != "Draft" {
		t.Errorf("POST after applying: %s", res.Body)
	}
}

func TestChangeRequestLifecycle(t *testing.T) {
	crLifecycle(t, newTestServer(t))
}

// TestChangeRequestLifecyclePostgres runs the lifecycle on PostgreSQL. It
// skips only where pgtest does (no PostgreSQL binaries, outside CI).
func TestChangeRequestLifecyclePostgres(t *testing.T) {
	crLifecycle(t, newCRServer(t, pgtest.NewDatabase(t), nil).testServer)
}

func TestChangeRequestRejectAndCancel(t *testing.T) {
	ts := newTestServer(t)
	crFlag(t, ts, "f")
	crEnable(t, ts, "production", 1)
	bob := crUser(t, ts, "bob", "Editor")
	on := map[string]any{"feature": "f", "action": "updateEnabled", "payload": map[string]any{"enabled": true}}

	// Reject: not by the author; the request is final and nothing changes.
	cr := crDecode(t, ts.admin("POST", crProd, on).must(t, http.StatusOK))
	mustErrorRecord(t, crState(t, ts, cr.ID, bob, map[string]any{"state": "Rejected"}), 400, "ValidationError", "state") // still a draft
	crState(t, ts, cr.ID, testAdminToken, map[string]any{"state": "In review"}).must(t, http.StatusOK)
	mustErrorRecord(t, crState(t, ts, cr.ID, testAdminToken, map[string]any{"state": "Rejected"}), 403, "NoAccessError", "")
	mark := auditMark(t, ts)
	res := crState(t, ts, cr.ID, bob, map[string]any{"state": "Rejected", "comment": "not now"}).must(t, http.StatusOK)
	if got := crDecode(t, res); got.State != "Rejected" || len(got.Rejections) != 1 || got.Rejections[0].CreatedBy.Username != "bob" {
		t.Fatalf("rejected: %s", res.Body)
	}
	mustOneAudit(t, ts, mark, "change-request-rejected")
	mustErrorRecord(t, crState(t, ts, cr.ID, bob, map[string]any{"state": "Approved"}), 400, "ValidationError", "state")
	if flagEnv(t, ts, "f", "production").Enabled {
		t.Error("rejected request was applied")
	}

	// Cancel: the author only, from any open state.
	cr = crDecode(t, ts.admin("POST", crProd, on).must(t, http.StatusOK))
	crState(t, ts, cr.ID, testAdminToken, map[string]any{"state": "In review"}).must(t, http.StatusOK)
	crState(t, ts, cr.ID, bob, map[string]any{"state": "Approved"}).must(t, http.StatusOK)
	mustErrorRecord(t, crState(t, ts, cr.ID, bob, map[string]any{"state": "Cancelled"}), 403, "NoAccessError", "")
	mark = auditMark(t, ts)
	if got := crDecode(t, crState(t, ts, cr.ID, testAdminToken, map[string]any{"state": "Cancelled"}).must(t, http.StatusOK)); got.State != "Cancelled" {
		t.Fatalf("cancelled: %+v", got)
	}
	mustOneAudit(t, ts, mark, "change-request-cancelled")
	mustErrorRecord(t, crState(t, ts, cr.ID, testAdminToken, map[string]any{"state": "Applied"}), 400, "ValidationError", "state")

	// Discard: DELETE removes a request that was not applied.
	mark = auditMark(t, ts)
	ts.admin("DELETE", crBase+"/"+strconv.Itoa(cr.ID), nil).must(t, http.StatusOK)
	mustOneAudit(t, ts, mark, "change-request-discarded")
	mustErrorRecord(t, ts.admin("GET", crBase+"/"+strconv.Itoa(cr.ID), nil), 404, "NotFoundError", "")
	var count map[string]int
	ts.admin("GET", crBase+"/count", nil).must(t, http.StatusOK).Decode(t, &count)
	if count["total"] != 1 || count["rejected"] != 1 {
		t.Errorf("count %v", count)
	}
}

// TestChangeRequestEditResetsApproval checks that editing an Approved (or
// Scheduled) request returns it to In review without approvals, and that
// an edit replaces the change under a new id.
func TestChangeRequestEditResetsApproval(t *testing.T) {
	clock := &crClock{t: time.Now().UTC()}
	ts := crSQLite(t, clock.Now).testServer
	crFlag(t, ts, "f")
	crEnable(t, ts, "production", 1)
	bob := crUser(t, ts, "bob", "Admin")
	cr := crDecode(t, ts.admin("POST", crProd, []map[string]any{
		{"feature": "f", "action": "updateEnabled", "payload": map[string]any{"enabled": true}},
		{"feature": "f", "action": "patchVariant", "payload": map[string]any{"variants": []map[string]any{{"name": "a"}}}},
	}).must(t, http.StatusOK))
	ids := crChangeIDs(cr)
	approve := func() {
		t.Helper()
		crState(t, ts, cr.ID, bob, map[string]any{"state": "Approved"}).must(t, http.StatusOK)
	}
	crState(t, ts, cr.ID, testAdminToken, map[string]any{"state": "In review"}).must(t, http.StatusOK)
	approve()

	// Edit: new id, old one gone, back to In review.
	changePath := crBase + "/" + strconv.Itoa(cr.ID) + "/changes/"
	mark := auditMark(t, ts)
	res := ts.admin("PUT", changePath+strconv.Itoa(ids[1]), map[string]any{"action": "patchVariant",
		"payload": map[string]any{"variants": []map[string]any{{"name": "b"}}}}).must(t, http.StatusOK)
	got := crDecode(t, res)
	newIDs := crChangeIDs(got)
	if got.State != "In review" || len(got.Approvals) != 0 || len(newIDs) != 2 || newIDs[0] != ids[0] || newIDs[1] <= ids[1] {
		t.Fatalf("after an edit: %s", res.Body)
	}
	if !strings.Contains(string(got.Features[0].Changes[1].Payload), `"b"`) {
		t.Errorf("edited payload %s", got.Features[0].Changes[1].Payload)
	}
	e := mustOneAudit(t, ts, mark, "change-edited")
	if !strings.Contains(string(e.Data), strconv.Itoa(newIDs[1])) || !strings.Contains(string(e.PreData), strconv.Itoa(ids[1])) {
		t.Errorf("change-edited data %s preData %s", e.Data, e.PreData)
	}
	mustErrorRecord(t, ts.admin("PUT", changePath+strconv.Itoa(ids[1]), map[string]any{"action": "patchVariant",
		"payload": map[string]any{"variants": []any{}}}), 404, "NotFoundError", "")

	// Discarding a change of an approved request resets it too.
	approve()
	mark = auditMark(t, ts)
	got = crDecode(t, ts.admin("DELETE", changePath+strconv.Itoa(newIDs[1]), nil).must(t, http.StatusOK))
	if got.State != "In review" || len(got.Approvals) != 0 || len(crChangeIDs(got)) != 1 {
		t.Fatalf("after discarding: %+v", got)
	}
	mustOneAudit(t, ts, mark, "change-discarded")

	// A Scheduled request loses its schedule as well.
	approve()
	crState(t, ts, cr.ID, bob, map[string]any{"state": "Scheduled", "scheduledAt": clock.Now().Add(time.Hour)}).must(t, http.StatusOK)
	got = crDecode(t, ts.admin("PUT", changePath+strconv.Itoa(ids[0]), map[string]any{"action": "updateEnabled",
		"payload": map[string]any{"enabled": true, "shouldActivateDisabledStrategies": true}}).must(t, http.StatusOK))
	if got.State != "In review" || got.Schedule != nil || len(got.Approvals) != 0 {
		t.Fatalf("edited scheduled request: %+v", got)
	}
	// Only the author (or an Admin) edits.
	eddie := crUser(t, ts, "eddie", "Editor")
	mustErrorRecord(t, ts.asSession(eddie, "DELETE", changePath+strconv.Itoa(crChangeIDs(got)[0]), nil), 403, "NoAccessError", "")
}

// TestChangeRequestConflicts checks that changes whose target moved are
// marked, and that such a request is not applied.
func TestChangeRequestConflicts(t *testing.T) {
	ts := newTestServer(t)
	crFlag(t, ts, "f")
	crFlag(t, ts, "doomed")
	kept := crStrategy(t, ts, "f", "production", map[string]any{"name": "default"})
	gone := crStrategy(t, ts, "f", "production", map[string]any{"name": "userWithId", "parameters": map[string]string{"userIds": "1"}})
	crEnable(t, ts, "production", 1)
	bob := crUser(t, ts, "bob", "Admin")
	cr := crDecode(t, ts.admin("POST", crProd, []map[string]any{
		{"feature": "f", "action": "updateStrategy", "payload": map[string]any{"id": kept, "title": "mine"}},
		{"feature": "f", "action": "deleteStrategy", "payload": map[string]any{"id": gone}},
		{"feature": "doomed", "action": "updateEnabled", "payload": map[string]any{"enabled": true}},
	}).must(t, http.StatusOK))
	crState(t, ts, cr.ID, testAdminToken, map[string]any{"state": "In review"}).must(t, http.StatusOK)
	crState(t, ts, cr.ID, bob, map[string]any{"state": "Approved"}).must(t, http.StatusOK)

	// Others move the targets: the strategy is changed, the other deleted,
	// the flag archived.
	plantInStore(t, ts, func(ctx context.Context, tx store.Tx) error {
		st, err := tx.GetStrategy(ctx, kept)
		if err != nil {
			return err
		}
		st.Title = "theirs"
		if _, err := tx.UpdateStrategy(ctx, st); err != nil {
			return err
		}
		if err := tx.DeleteStrategy(ctx, gone); err != nil {
			return err
		}
		f, err := tx.GetFeature(ctx, "doomed")
		if err != nil {
			return err
		}
		now := time.Now()
		f.ArchivedAt = &now
		_, err = tx.UpdateFeature(ctx, f)
		return err
	})
	got := crDecode(t, ts.admin("GET", crBase+"/"+strconv.Itoa(cr.ID), nil).must(t, http.StatusOK))
	conflicts := map[string]string{}
	for _, f := range got.Features {
		for _, c := range f.Changes {
			conflicts[f.Name+" "+c.Action] = c.Conflict
		}
		if f.Name == "doomed" && !strings.Contains(f.Conflict, "archived") {
			t.Errorf("flag conflict %q", f.Conflict)
		}
		if f.Name == "f" && f.Conflict != "" {
			t.Errorf("flag f conflicts: %q", f.Conflict)
		}
	}
	for key, want := range map[string]string{"f updateStrategy": "changed", "f deleteStrategy": "no strategy", "doomed updateEnabled": "archived"} {
		if !strings.Contains(conflicts[key], want) {
			t.Errorf("%s: conflict %q, want it to mention %q", key, conflicts[key], want)
		}
	}
	mark := auditMark(t, ts)
	mustErrorRecord(t, crState(t, ts, cr.ID, bob, map[string]any{"state": "Applied"}), 409, "ConflictError", "")
	mustNoAudit(t, ts, mark)

	// Editing the strategy change takes the current state as its base;
	// once the others are discarded the request applies.
	ids := crChangeIDs(got)
	changePath := crBase + "/" + strconv.Itoa(cr.ID) + "/changes/"
	got = crDecode(t, ts.admin("PUT", changePath+strconv.Itoa(ids[0]), map[string]any{"feature": "f", "action": "updateStrategy",
		"payload": map[string]any{"id": kept, "title": "mine after all"}}).must(t, http.StatusOK))
	if c := got.Features[0].Changes[len(got.Features[0].Changes)-1]; c.Conflict != "" {
		t.Errorf("edited change still conflicts: %q", c.Conflict)
	}
	ts.admin("DELETE", changePath+strconv.Itoa(ids[1]), nil).must(t, http.StatusOK)
	ts.admin("DELETE", changePath+strconv.Itoa(ids[2]), nil).must(t, http.StatusOK)
	crState(t, ts, cr.ID, bob, map[string]any{"state": "Approved"}).must(t, http.StatusOK)
	crState(t, ts, cr.ID, bob, map[string]any{"state": "Applied"}).must(t, http.StatusOK)
	for _, st := range flagEnv(t, ts, "f", "production").Strategies {
		if st.ID == kept && (st.Title == nil || *st.Title != "mine after all") {
			t.Errorf("strategy after apply: %+v", st)
		}
	}
}

// TestChangeRequestEveryAction applies a request with each action of the
// table of actions and checks the result and the events.
func TestChangeRequestEveryAction(t *testing.T) {
	ts := newTestServer(t)
	for _, name := range []string{"parent", "child", "old"} {
		crFlag(t, ts, name)
	}
	first := crStrategy(t, ts, "child", "production", map[string]any{"name": "default"})
	second := crStrategy(t, ts, "child", "production", map[string]any{"name": "userWithId", "parameters": map[string]string{"userIds": "1"}})
	third := crStrategy(t, ts, "child", "production", map[string]any{"name": "default", "title": "third"})
	var unused, renamed segmentJSON
	ts.admin("POST", "/api/admin/segments", map[string]any{"name": "unused", "constraints": []any{}}).must(t, http.StatusCreated).Decode(t, &unused)
	ts.admin("POST", "/api/admin/segments", map[string]any{"name": "renamed", "constraints": []any{}}).must(t, http.StatusCreated).Decode(t, &renamed)
	crEnable(t, ts, "production", 1)
	bob := crUser(t, ts, "bob", "Admin")

	apply := func(changes []map[string]any) ([]store.Event, changeRequestJSON) {
		t.Helper()
		cr := crDecode(t, ts.admin("POST", crProd, changes).must(t, http.StatusOK))
		crState(t, ts, cr.ID, testAdminToken, map[string]any{"state": "In review"}).must(t, http.StatusOK)
		crState(t, ts, cr.ID, bob, map[string]any{"state": "Approved"}).must(t, http.StatusOK)
		mark := auditMark(t, ts)
		crState(t, ts, cr.ID, bob, map[string]any{"state": "Applied"}).must(t, http.StatusOK)
		return auditAfter(t, ts, mark), cr
	}
	events, cr := apply([]map[string]any{
		{"feature": "child", "action": "addDependency", "payload": map[string]any{"feature": "parent"}},
		{"feature": "child", "action": "reorderStrategy", "payload": []map[string]any{{"id": second, "sortOrder": 0}, {"id": first, "sortOrder": 5}}},
		{"feature": "child", "action": "deleteStrategy", "payload": map[string]any{"id": third}},
		{"action": "updateSegment", "payload": map[string]any{"id": renamed.ID, "name": "now-named", "constraints": []any{}}},
		{"action": "deleteSegment", "payload": map[string]any{"id": unused.ID}},
		{"feature": "old", "action": "archiveFeature"},
	})
	if len(cr.Segments) != 2 || cr.Segments[0].Name != "renamed" || cr.Segments[1].Name != "unused" || len(cr.Features) != 2 {
		t.Errorf("request view: %+v", cr)
	}
	var types []string
	for _, e := range events {
		types = append(types, e.Type)
	}
	want := []string{"feature-dependency-added", "strategy-order-changed", "feature-strategy-remove", "segment-updated",
		"segment-deleted", "feature-archived", "change-request-applied"}
	if !slices.Equal(types, want) {
		t.Fatalf("events %v, want %v", types, want)
	}
	fe := flagEnv(t, ts, "child", "production")
	if len(fe.Strategies) != 2 || fe.Strategies[0].ID != second || fe.Strategies[1].ID != first {
		t.Errorf("strategies after reorder and delete: %+v", fe.Strategies)
	}
	var deps struct{ Dependencies []adminDependency }
	ts.admin("GET", crFlags+"/child/dependencies", nil).must(t, http.StatusOK).Decode(t, &deps)
	if len(deps.Dependencies) != 1 || deps.Dependencies[0].Feature != "parent" {
		t.Errorf("dependencies %+v", deps)
	}
	ts.admin("GET", "/api/admin/segments/"+strconv.Itoa(unused.ID), nil).must(t, http.StatusNotFound)
	var seg segmentJSON
	ts.admin("GET", "/api/admin/segments/"+strconv.Itoa(renamed.ID), nil).must(t, http.StatusOK).Decode(t, &seg)
	if seg.Name != "now-named" {
		t.Errorf("segment %+v", seg)
	}
	ts.admin("GET", crFlags+"/old", nil).must(t, http.StatusNotFound)

	// deleteDependency without a payload removes every parent.
	events, _ = apply([]map[string]any{{"feature": "child", "action": "deleteDependency"}})
	if len(events) != 2 || events[0].Type != "feature-dependencies-removed" {
		t.Errorf("deleteDependency events %+v", events)
	}
	// updateEnabled without an enabled strategy shows the default strategy
	// it will add, and adds it.
	crFlag(t, ts, "bare")
	cr = crDecode(t, ts.admin("POST", crProd, map[string]any{"feature": "bare", "action": "updateEnabled",
		"payload": map[string]any{"enabled": true}}).must(t, http.StatusOK))
	if d := cr.Features[0].DefaultChange; d == nil || d.Action != "addStrategy" || d.Payload.Name != "flexibleRollout" {
		t.Errorf("defaultChange %+v", d)
	}
}

// TestChangeRequestErrors checks the error statuses of every endpoint.
func TestChangeRequestErrors(t *testing.T) {
	ts := newTestServer(t)
	crFlag(t, ts, "f")
	viewer := viewerSession(t, ts)
	editor := crUser(t, ts, "eddie", "Editor")
	on := map[string]any{"feature": "f", "action": "updateEnabled", "payload": map[string]any{"enabled": true}}

	var used segmentJSON
	ts.admin("POST", "/api/admin/segments", map[string]any{"name": "used", "constraints": []any{}}).must(t, http.StatusCreated).Decode(t, &used)
	crStrategy(t, ts, "f", "development", map[string]any{"name": "default", "segments": []int{used.ID}})

	// Not enabled yet.
	mustErrorRecord(t, ts.admin("POST", crProd, on), 400, "BadRequestError", "")
	crEnable(t, ts, "production", 1)
	cr := crDecode(t, ts.admin("POST", crProd, on).must(t, http.StatusOK))
	id := strconv.Itoa(cr.ID)
	changeID := strconv.Itoa(crChangeIDs(cr)[0])

	mark := auditMark(t, ts)
	for _, tt := range []struct {
		name         string
		res          response
		status       int
		kind, detail string
	}{
		{"POST without token", ts.request("POST", crProd, "", on), 401, "AuthenticationRequired", ""},
		{"POST as viewer", ts.asSession(viewer, "POST", crProd, on), 403, "NoAccessError", ""},
		{"POST wrong content type", ts.request("POST", crProd, testAdminToken, `{}`, "Content-Type", "text/plain"), 415, "ContentTypeError", ""},
		{"POST malformed", ts.admin("POST", crProd, `{"action":`), 400, "BadDataError", ""},
		{"POST empty list", ts.admin("POST", crProd, []any{}), 400, "ValidationError", "body"},
		{"POST unknown action", ts.admin("POST", crProd, map[string]any{"feature": "f", "action": "fly"}), 400, "ValidationError", "action"},
		{"POST without feature", ts.admin("POST", crProd, map[string]any{"action": "archiveFeature"}), 400, "ValidationError", "feature"},
		{"POST unknown feature", ts.admin("POST", crProd, map[string]any{"feature": "nope", "action": "archiveFeature"}), 404, "NotFoundError", ""},
		{"POST unknown project", ts.admin("POST", "/api/admin/projects/nope/environments/production/change-requests", on), 404, "NotFoundError", ""},
		{"POST unknown environment", ts.admin("POST", "/api/admin/projects/default/environments/nope/change-requests", on), 404, "NotFoundError", ""},
		{"POST payload missing", ts.admin("POST", crProd, map[string]any{"feature": "f", "action": "updateEnabled"}), 400, "ValidationError", "payload"},
		{"POST payload wrong type", ts.admin("POST", crProd, map[string]any{"feature": "f", "action": "updateEnabled", "payload": map[string]any{"enabled": "yes"}}), 400, "ValidationError", ""},
		{"POST invalid strategy", ts.admin("POST", crProd, map[string]any{"feature": "f", "action": "addStrategy", "payload": map[string]any{"name": "nope"}}), 400, "ValidationError", "name"},
		{"POST unknown strategy", ts.admin("POST", crProd, map[string]any{"feature": "f", "action": "deleteStrategy", "payload": map[string]any{"id": "nope"}}), 404, "NotFoundError", ""},
		{"POST segment in use", ts.admin("POST", crProd, map[string]any{"action": "deleteSegment", "payload": map[string]any{"id": used.ID}}), 409, "ConflictError", ""},
		{"POST unknown segment", ts.admin("POST", crProd, map[string]any{"action": "deleteSegment", "payload": map[string]any{"id": 999}}), 404, "NotFoundError", ""},
		{"GET unknown", ts.admin("GET", crBase+"/999", nil), 404, "NotFoundError", ""},
		{"GET bad id", ts.admin("GET", crBase+"/abc", nil), 400, "ValidationError", "changeRequestId"},
		{"GET other project", ts.admin("GET", "/api/admin/projects/nope/change-requests/"+id, nil), 404, "NotFoundError", ""},
		{"GET without token", ts.request("GET", crBase+"/"+id, "", nil), 401, "AuthenticationRequired", ""},
		{"list unknown project", ts.admin("GET", "/api/admin/projects/nope/change-requests", nil), 404, "NotFoundError", ""},
		{"pending unknown project", ts.admin("GET", "/api/admin/projects/nope/change-requests/pending", nil), 404, "NotFoundError", ""},
		{"count unknown project", ts.admin("GET", "/api/admin/projects/nope/change-requests/count", nil), 404, "NotFoundError", ""},
		{"scheduled unknown project", ts.admin("GET", "/api/admin/projects/nope/change-requests/scheduled", nil), 404, "NotFoundError", ""},
		{"DELETE unknown", ts.admin("DELETE", crBase+"/999", nil), 404, "NotFoundError", ""},
		{"DELETE by another user", ts.asSession(editor, "DELETE", crBase+"/"+id, nil), 403, "NoAccessError", ""},
		{"DELETE as viewer", ts.asSession(viewer, "DELETE", crBase+"/"+id, nil), 403, "NoAccessError", ""},
		{"PUT change unknown", ts.admin("PUT", crBase+"/"+id+"/changes/999", on), 404, "NotFoundError", ""},
		{"PUT change of unknown request", ts.admin("PUT", crBase+"/999/changes/"+changeID, on), 404, "NotFoundError", ""},
		{"PUT change by another user", ts.asSession(editor, "PUT", crBase+"/"+id+"/changes/"+changeID, on), 403, "NoAccessError", ""},
		{"PUT change invalid", ts.admin("PUT", crBase+"/"+id+"/changes/"+changeID, map[string]any{"action": "updateEnabled", "payload": map[string]any{}}), 400, "ValidationError", "payload.enabled"},
		{"PUT change wrong content type", ts.request("PUT", crBase+"/"+id+"/changes/"+changeID, testAdminToken, `{}`, "Content-Type", "text/plain"), 415, "ContentTypeError", ""},
		{"DELETE change unknown", ts.admin("DELETE", crBase+"/"+id+"/changes/999", nil), 404, "NotFoundError", ""},
		{"DELETE change bad id", ts.admin("DELETE", crBase+"/"+id+"/changes/x", nil), 400, "ValidationError", "changeId"},
		{"state unknown", crState(t, ts, cr.ID, testAdminToken, map[string]any{"state": "Done"}), 400, "ValidationError", "state"},
		{"state of unknown request", crState(t, ts, 999, testAdminToken, map[string]any{"state": "In review"}), 404, "NotFoundError", ""},
		{"state by another user", crState(t, ts, cr.ID, editor, map[string]any{"state": "In review"}), 403, "NoAccessError", ""},
		{"state as viewer", crState(t, ts, cr.ID, viewer, map[string]any{"state": "In review"}), 403, "NoAccessError", ""},
		{"state approve a draft", crState(t, ts, cr.ID, editor, map[string]any{"state": "Approved"}), 400, "ValidationError", "state"},
		{"state schedule a draft", crState(t, ts, cr.ID, testAdminToken, map[string]any{"state": "Scheduled", "scheduledAt": time.Now().Add(time.Hour)}), 400, "ValidationError", "state"},
		{"state wrong content type", ts.request("PUT", crBase+"/"+id+"/state", testAdminToken, `{}`, "Content-Type", "text/plain"), 415, "ContentTypeError", ""},
		{"comment empty", ts.admin("POST", crBase+"/"+id+"/comments", map[string]any{"text": " "}), 400, "ValidationError", "text"},
		{"comment unknown request", ts.admin("POST", crBase+"/999/comments", map[string]any{"text": "x"}), 404, "NotFoundError", ""},
		{"comment without token", ts.request("POST", crBase+"/"+id+"/comments", "", map[string]any{"text": "x"}), 401, "AuthenticationRequired", ""},
	} {
		t.Run(tt.name, func(t *testing.T) { mustErrorRecord(t, tt.res, tt.status, tt.kind, tt.detail) })
	}
	mustNoAudit(t, ts, mark)

	// Taking part in a request needs the permission to: a Viewer cannot
	// comment. Comments are answered, listed, and audited.
	mustErrorRecord(t, ts.asSession(viewer, "POST", crBase+"/"+id+"/comments", map[string]any{"text": "why?"}), 403, "NoAccessError", "")
	mustNoAudit(t, ts, mark)
	var c crCommentJSON
	ts.asSession(editor, "POST", crBase+"/"+id+"/comments", map[string]any{"text": "why?"}).must(t, http.StatusCreated).Decode(t, &c)
	if c.Text != "why?" || c.CreatedBy.Username != "eddie" || c.CreatedBy.ID == nil || c.ID == 0 {
		t.Errorf("comment %+v", c)
	}
	if e := mustOneAudit(t, ts, mark, "change-request-comment-added"); e.CreatedBy != "eddie" || e.Project != "default" ||
		e.Environment != "production" || !sameJSONValue(e.Data, json.RawMessage(`{"changeRequestId":`+id+`,"commentId":`+strconv.Itoa(c.ID)+`,"text":"why?"}`)) {
		t.Errorf("comment event %+v: %s", e, e.Data)
	}
	mark = auditMark(t, ts)
	if got := crDecode(t, ts.admin("GET", crBase+"/"+id, nil).must(t, http.StatusOK)); len(got.Comments) != 1 {
		t.Errorf("comments %+v", got.Comments)
	}
	mustNoAudit(t, ts, mark) // reading a request records nothing
	// A request without changes cannot be sent to review.
	empty := crDecode(t, ts.asSession(editor, "POST", crProd, on).must(t, http.StatusOK))
	ts.asSession(editor, "DELETE", crBase+"/"+strconv.Itoa(empty.ID)+"/changes/"+strconv.Itoa(crChangeIDs(empty)[0]), nil).must(t, http.StatusOK)
	mustErrorRecord(t, crState(t, ts, empty.ID, editor, map[string]any{"state": "In review"}), 400, "ValidationError", "state")
	// Each user has a draft of their own.
	if empty.ID == cr.ID {
		t.Error("an editor's change went into the admin token's draft")
	}
}

// TestChangeRequestScheduler schedules requests and lets the scheduler of
// Server.Run apply them, across a restart on the same database file, and
// records a failure for a request that can no longer be applied.
func TestChangeRequestScheduler(t *testing.T) {
	start := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := &crClock{t: start}
	db := filepath.Join(t.TempDir(), "signalbox.db")
	first := newCRServer(t, db, clock.Now)
	ts := first.testServer
	crFlag(t, ts, "f")
	crFlag(t, ts, "g")
	target := crStrategy(t, ts, "g", "production", map[string]any{"name": "default"})
	crEnable(t, ts, "production", 1)
	bob := crUser(t, ts, "bob", "Admin")
	carol := crUser(t, ts, "carol", "Admin")

	approved := func(change map[string]any, as string) int {
		t.Helper()
		var cr changeRequestJSON
		if as == "" {
			cr = crDecode(t, ts.admin("POST", crProd, change).must(t, http.StatusOK))
			crState(t, ts, cr.ID, testAdminToken, map[string]any{"state": "In review"}).must(t, http.StatusOK)
			crState(t, ts, cr.ID, bob, map[string]any{"state": "Approved"}).must(t, http.StatusOK)
		} else {
			cr = crDecode(t, ts.asSession(as, "POST", crProd, change).must(t, http.StatusOK))
			crState(t, ts, cr.ID, as, map[string]any{"state": "In review"}).must(t, http.StatusOK)
			crState(t, ts, cr.ID, carol, map[string]any{"state": "Approved"}).must(t, http.StatusOK)
		}
		return cr.ID
	}
	ok := approved(map[string]any{"feature": "f", "action": "updateEnabled", "payload": map[string]any{"enabled": true}}, "")
	doomed := approved(map[string]any{"feature": "g", "action": "deleteStrategy", "payload": map[string]any{"id": target}}, bob)

	mustErrorRecord(t, crState(t, ts, ok, bob, map[string]any{"state": "Scheduled"}), 400, "ValidationError", "scheduledAt")
	mustErrorRecord(t, crState(t, ts, ok, bob, map[string]any{"state": "Scheduled", "scheduledAt": start.Add(-time.Minute)}), 400, "ValidationError", "scheduledAt")
	mark := auditMark(t, ts)
	res := crState(t, ts, ok, bob, map[string]any{"state": "Scheduled", "scheduledAt": start.Add(time.Hour)}).must(t, http.StatusOK)
	if got := crDecode(t, res); got.State != "Scheduled" || got.Schedule == nil || got.Schedule.Status != "pending" ||
		!got.Schedule.ScheduledAt.Equal(start.Add(time.Hour)) || got.Schedule.FailureReason != nil {
		t.Fatalf("scheduled: %s", res.Body)
	}
	mustOneAudit(t, ts, mark, "change-request-scheduled")
	crState(t, ts, doomed, testAdminToken, map[string]any{"state": "Scheduled", "scheduledAt": start.Add(30 * time.Minute)}).must(t, http.StatusOK)
	if list := crList(t, ts.admin("GET", crBase+"/scheduled?feature=g&strategyId="+target, nil).must(t, http.StatusOK)); len(list) != 1 || list[0].ID != doomed {
		t.Errorf("scheduled for the strategy: %+v", list)
	}
	if list := crList(t, ts.admin("GET", crBase+"/scheduled", nil).must(t, http.StatusOK)); len(list) != 2 {
		t.Errorf("scheduled: %d", len(list))
	}
	// Not due yet.
	if n, err := ts.srv.ApplyDueChangeRequests(context.Background()); n != 0 || err != nil {
		t.Fatalf("applied %d early (%v)", n, err)
	}
	// The strategy the doomed request deletes changes meanwhile.
	plantInStore(t, ts, func(ctx context.Context, tx store.Tx) error {
		st, err := tx.GetStrategy(ctx, target)
		if err != nil {
			return err
		}
		st.Title = "changed meanwhile"
		_, err = tx.UpdateStrategy(ctx, st)
		return err
	})

	// The server stops before anything is due; a new one on the same file
	// applies them once their time has come.
	first.stop()
	clock.Set(start.Add(2 * time.Hour))
	second := newCRServer(t, db, clock.Now)
	ts = second.testServer
	mark = auditMark(t, ts)
	second.run()
	deadline := time.Now().Add(10 * time.Second)
	var okCR, doomedCR changeRequestJSON
	for {
		okCR = crDecode(t, ts.admin("GET", crBase+"/"+strconv.Itoa(ok), nil).must(t, http.StatusOK))
		doomedCR = crDecode(t, ts.admin("GET", crBase+"/"+strconv.Itoa(doomed), nil).must(t, http.StatusOK))
		if okCR.State == "Applied" && doomedCR.Schedule != nil && doomedCR.Schedule.Status == "failed" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("scheduler did not run: %+v / %+v", okCR, doomedCR)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !flagEnv(t, ts, "f", "production").Enabled {
		t.Error("scheduled change not applied")
	}
	if doomedCR.State != "Scheduled" || doomedCR.Schedule.FailureReason == nil || !strings.Contains(*doomedCR.Schedule.FailureReason, "changed") {
		t.Errorf("failed schedule: %+v", doomedCR.Schedule)
	}
	if len(flagEnv(t, ts, "g", "production").Strategies) != 1 {
		t.Error("failed request changed the flag")
	}
	byType := map[string][]store.Event{}
	for _, e := range auditAfter(t, ts, mark) {
		byType[e.Type] = append(byType[e.Type], e)
		if e.CreatedBy != schedulerName {
			t.Errorf("event %s by %q", e.Type, e.CreatedBy)
		}
	}
	for typ, n := range map[string]int{
		"change-request-scheduled-application-failure": 1, "scheduled-change-request-executed": 2,
		"feature-strategy-add": 1, "feature-environment-enabled": 1, "change-request-applied": 1,
		"change-request-scheduled-application-success": 1,
	} {
		if len(byType[typ]) != n {
			t.Errorf("%d %s events, want %d", len(byType[typ]), typ, n)
		}
	}
	// Running again changes nothing: the failed one waits for people.
	mark = auditMark(t, ts)
	if n, err := ts.srv.ApplyDueChangeRequests(context.Background()); n != 0 || err != nil {
		t.Fatalf("second run applied %d (%v)", n, err)
	}
	mustNoAudit(t, ts, mark)
	// Rescheduling retries; rejecting ends it.
	crState(t, ts, doomed, testAdminToken, map[string]any{"state": "Scheduled", "scheduledAt": clock.Now().Add(time.Hour)}).must(t, http.StatusOK)
	if got := crDecode(t, ts.admin("GET", crBase+"/"+strconv.Itoa(doomed), nil).must(t, http.StatusOK)); got.Schedule.Status != "pending" {
		t.Errorf("rescheduled: %+v", got.Schedule)
	}
	crState(t, ts, doomed, carol, map[string]any{"state": "Rejected"}).must(t, http.StatusOK)
}

// FuzzChangeRequestBody posts arbitrary bodies as changes: nothing may
// answer 5xx.
func FuzzChangeRequestBody(f *testing.F) {
	for _, seed := range []string{
		`{"feature":"f","action":"updateEnabled","payload":{"enabled":true}}`,
		`[{"feature":"f","action":"addStrategy","payload":{"name":"default","constraints":[],"parameters":{}}}]`,
		`{"feature":"f","action":"updateStrategy","payload":{"id":"s","parameters":{"rollout":"x"}}}`,
		`{"feature":"f","action":"patchVariant","payload":{"variants":[{"name":"a","weight":99999}]}}`,
		`{"feature":"f","action":"reorderStrategy","payload":[{"id":"s","sortOrder":1e300}]}`,
		`{"feature":"f","action":"addDependency","payload":{"feature":"f"}}`,
		`{"feature":"f","action":"deleteDependency","payload":"x"}`,
		`{"action":"updateSegment","payload":{"id":1,"name":"\u0000"}}`,
		`{"action":"deleteSegment","payload":{"id":-1}}`,
		`{"feature":"f","action":"archiveFeature","payload":null}`,
		`[]`, `null`, `"x"`, `[null]`, `{"feature":{},"action":1}`,
	} {
		f.Add([]byte(seed))
	}
	h := newFuzzServer(f)
	setup := func(method, path, body string, want int) {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", testAdminToken)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != want {
			f.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body)
		}
	}
	setup("POST", crFlags, `{"name":"f"}`, http.StatusCreated)
	setup("POST", crFlags+"/f/environments/production/strategies", `{"id":"s","name":"default"}`, http.StatusOK)
	setup("PUT", "/api/admin/projects/default/environments/production/change-requests/config", `{"changeRequestsEnabled":true}`, http.StatusNoContent)
	f.Fuzz(func(t *testing.T, body []byte) {
		fuzzPost(t, h, crProd, body)
	})
}

// TestChangeRequestViewHasNoNulls checks the list fields of an answer.
func TestChangeRequestViewHasNoNulls(t *testing.T) {
	ts := newTestServer(t)
	crFlag(t, ts, "f")
	crEnable(t, ts, "production", 1)
	res := ts.admin("POST", crProd, map[string]any{"feature": "f", "action": "archiveFeature"}).must(t, http.StatusOK)
	body := res.Object()
	for _, key := range []string{"features", "segments", "approvals", "rejections", "comments"} {
		if _, ok := body[key].([]any); !ok {
			t.Errorf("%s = %v, want a list", key, body[key])
		}
	}
	if _, ok := body["schedule"]; ok {
		t.Error("a draft has a schedule")
	}
	change := body["features"].([]any)[0].(map[string]any)["changes"].([]any)[0].(map[string]any)
	if _, ok := change["payload"].(map[string]any); !ok {
		t.Errorf("payload of archiveFeature = %v, want an object", change["payload"])
	}
}

// TestChangeRequestOpenAPI checks requests and answers of the change
// request endpoints against the served OpenAPI document.
func TestChangeRequestOpenAPI(t *testing.T) {
	ts := newTestServer(t)
	crFlag(t, ts, "f")
	st := crStrategy(t, ts, "f", "production", map[string]any{"name": "default"})
	c := newOAChecker(t, ts)
	bob := crUser(t, ts, "bob", "Admin")
	c.do("PUT", "/api/admin/projects/default/environments/production/change-requests/config", testAdminToken,
		map[string]any{"changeRequestsEnabled": true, "requiredApprovals": 1}, 204)
	c.do("GET", crBase+"/config", testAdminToken, nil, 200)
	cr := crDecode(t, c.do("POST", crProd, testAdminToken, []map[string]any{
		{"feature": "f", "action": "updateEnabled", "payload": map[string]any{"enabled": true}},
		{"feature": "f", "action": "updateStrategy", "payload": map[string]any{"id": st, "title": "t"}},
	}, 200))
	c.do("POST", crProd, testAdminToken, map[string]any{"feature": "f", "action": "nope"}, 400)
	id := strconv.Itoa(cr.ID)
	ids := crChangeIDs(cr)
	c.do("PUT", crBase+"/"+id+"/changes/"+strconv.Itoa(ids[1]), testAdminToken,
		map[string]any{"action": "updateStrategy", "payload": map[string]any{"id": st, "title": "u"}}, 200)
	c.do("GET", crBase+"/"+id, testAdminToken, nil, 200)
	c.do("GET", crBase, testAdminToken, nil, 200)
	c.do("GET", crBase+"/pending", testAdminToken, nil, 200)
	c.do("GET", crBase+"/pending/f", testAdminToken, nil, 200)
	c.do("GET", crBase+"/count", testAdminToken, nil, 200)
	c.do("GET", crBase+"/scheduled?feature=f", testAdminToken, nil, 200)
	c.do("POST", crBase+"/"+id+"/comments", testAdminToken, map[string]any{"text": "please"}, 201)
	c.do("PUT", crBase+"/"+id+"/state", testAdminToken, map[string]any{"state": "In review"}, 200)
	c.do("PUT", crBase+"/"+id+"/state", testAdminToken, map[string]any{"state": "Approved"}, 403)
	ts.asSession(bob, "PUT", crBase+"/"+id+"/state", map[string]any{"state": "Approved"}).must(t, http.StatusOK)
	c.do("PUT", crBase+"/"+id+"/state", testAdminToken, map[string]any{"state": "Scheduled", "scheduledAt": time.Now().Add(time.Hour)}, 200)
	c.do("GET", crBase+"/"+id, testAdminToken, nil, 200)
	c.do("PUT", crBase+"/"+id+"/state", testAdminToken, map[string]any{"state": "Applied"}, 200)
	c.do("DELETE", crBase+"/"+id, testAdminToken, nil, 400)
	other := crDecode(t, c.do("POST", crProd, testAdminToken, map[string]any{"feature": "f", "action": "archiveFeature"}, 200))
	c.do("DELETE", crBase+"/"+strconv.Itoa(other.ID)+"/changes/"+strconv.Itoa(crChangeIDs(other)[0]), testAdminToken, nil, 200)
	c.do("DELETE", crBase+"/"+strconv.Itoa(other.ID), testAdminToken, nil, 200)
	c.do("GET", crBase+"/999", testAdminToken, nil, 404)
}
