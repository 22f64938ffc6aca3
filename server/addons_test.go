package server

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/signalbox/signalbox/internal/pgtest"
	"github.com/signalbox/signalbox/store"
	"github.com/signalbox/signalbox/store/sqlstore"
)

// Secrets of the test addons; no answer and no audit event may hold them.
const (
	hookSecret   = "Bearer hook-secret-7f3a"
	headerSecret = "header-secret-91bc"
	urlSecret    = "url-token-5d2e"
)

// hookCall is one request a receiver got.
type hookCall struct {
	Path   string
	Header http.Header
	Body   string
}

// receiver is a loopback webhook receiver. statuses are answered in turn
// (the last one from then on); 200 when empty.
type receiver struct {
	url      string
	mu       sync.Mutex
	calls    []hookCall
	statuses []int
	got      chan struct{}
}

func newReceiver(t *testing.T, statuses ...int) *receiver {
	t.Helper()
	rc := &receiver{statuses: statuses, got: make(chan struct{}, 100)}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.calls = append(rc.calls, hookCall{Path: r.URL.Path, Header: r.Header.Clone(), Body: string(body)})
		status := http.StatusOK
		if n := len(rc.calls); len(rc.statuses) > 0 {
			status = rc.statuses[min(n, len(rc.statuses))-1]
		}
		rc.mu.Unlock()
		w.WriteHeader(status)
		rc.got <- struct{}{}
	}))
	t.Cleanup(hs.Close)
	rc.url = hs.URL
	return rc
}

func (rc *receiver) list() []hookCall {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]hookCall(nil), rc.calls...)
}

// webhookBodyFor is an addon body for a webhook to url.
func webhookBodyFor(url string, events []string, extra map[string]any) map[string]any {
	b := map[string]any{
		"provider": "webhook", "enabled": true, "description": "CI hook", "events": events,
		"parameters": map[string]any{
			"url": url, "authorization": hookSecret, "contentType": "application/json",
			"customHeaders": `{"X-Hook-Key":"` + headerSecret + `"}`,
			"bodyTemplate":  `{"event":"{{event.type}}","flag":"{{event.data.name}}","project":"{{{event.project}}}","env":"{{event.environment}}"}`,
		},
	}
	for k, v := range extra {
		b[k] = v
	}
	return b
}

func mustNotLeak(t *testing.T, where string, body []byte) {
	t.Helper()
	for _, secret := range []string{hookSecret, headerSecret, urlSecret, "hook-secret"} {
		if strings.Contains(string(body), secret) {
			t.Fatalf("%s shows the secret %q: %s", where, secret, body)
		}
	}
}

// newHookTestServer is a test server whose webhooks may reach the tests'
// receivers on 127.0.0.1, which the default policy refuses.
func newHookTestServer(t *testing.T) *testServer {
	t.Helper()
	return openHookTestServer(t, filepath.Join(t.TempDir(), "signalbox.db"), "127.0.0.1")
}

// newPostgresHookTestServer is newHookTestServer on PostgreSQL.
func newPostgresHookTestServer(t *testing.T) *testServer {
	t.Helper()
	return openHookTestServer(t, pgtest.NewDatabase(t), "127.0.0.1")
}

// openHookTestServer is a test server over the database at dbURL whose
// webhooks may reach the allowed hosts.
func openHookTestServer(t *testing.T, dbURL string, allowed ...string) *testServer {
	t.Helper()
	st, err := sqlstore.Open(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return newTestServerWith(t, st, Config{AddonAllowedHosts: allowed})
}

// deliver runs one round of the delivery worker.
func deliver(t *testing.T, ts *testServer) {
	t.Helper()
	if err := ts.srv.deliverAddons(context.Background()); err != nil {
		t.Fatalf("deliverAddons: %v", err)
	}
}

func TestAddonsAPI(t *testing.T) {
	ts := newHookTestServer(t)
	ref := unleashReference(t)
	res := ts.admin("GET", "/api/admin/addons", nil).must(t, http.StatusOK)
	matchesUnleash(t, ref, "addonsSchema", res.Body)
	var list struct {
		Addons    []addonJSON
		Providers []addonProvider
	}
	res.Decode(t, &list)
	if len(list.Addons) != 0 || len(list.Providers) != 1 || list.Providers[0].Name != "webhook" {
		t.Fatalf("empty list: %s", res.Body)
	}
	for _, p := range list.Providers[0].Parameters {
		matchesUnleash(t, ref, "addonParameterSchema", []byte(mustJSON(p)))
	}

	recv := newReceiver(t)
	mark := auditMark(t, ts)
	res = ts.admin("POST", "/api/admin/addons", webhookBodyFor(recv.url+"/hook/"+urlSecret, []string{"feature-created"},
		map[string]any{"projects": []string{"default"}})).must(t, http.StatusOK)
	matchesUnleash(t, ref, "addonSchema", res.Body)
	mustNotLeak(t, "the created addon", res.Body)
	var created addonJSON
	res.Decode(t, &created)
	if created.ID < 1 || created.Parameters["url"] != maskedValue || created.Parameters["authorization"] != maskedValue ||
		created.Parameters["customHeaders"] != maskedValue || created.Parameters["contentType"] != "application/json" ||
		!strings.Contains(created.Parameters["bodyTemplate"].(string), "{{event.type}}") || created.Projects[0] != "default" {
		t.Fatalf("created %s", res.Body)
	}
	e := mustOneAudit(t, ts, mark, "addon-config-created")
	mustNotLeak(t, "the addon-config-created event", e.Data)
	path := "/api/admin/addons/" + itoa(created.ID)

	for _, tt := range []struct {
		name string
		body any
		path string
	}{
		{"no provider", map[string]any{"enabled": true, "parameters": map[string]any{"url": "http://x.test"}, "events": []string{}}, "provider"},
		{"unknown provider", map[string]any{"provider": "slack", "enabled": true, "parameters": map[string]any{}, "events": []string{}}, "provider"},
		{"no enabled", map[string]any{"provider": "webhook", "parameters": map[string]any{"url": "http://x.test"}, "events": []string{}}, "enabled"},
		{"parameters a list", map[string]any{"provider": "webhook", "enabled": true, "parameters": []string{}, "events": []string{}}, "parameters"},
		{"no url", map[string]any{"provider": "webhook", "enabled": true, "parameters": map[string]any{}, "events": []string{}}, "parameters.url"},
		{"url not http", map[string]any{"provider": "webhook", "enabled": true, "parameters": map[string]any{"url": "file:///etc/passwd"}, "events": []string{}}, "parameters.url"},
		{"unknown parameter", map[string]any{"provider": "webhook", "enabled": true, "parameters": map[string]any{"url": "http://x.test", "colour": "red"}, "events": []string{}}, "parameters.colour"},
		{"number parameter", map[string]any{"provider": "webhook", "enabled": true, "parameters": map[string]any{"url": "http://x.test", "contentType": 5}, "events": []string{}}, "parameters.contentType"},
		{"bad custom headers", map[string]any{"provider": "webhook", "enabled": true, "parameters": map[string]any{"url": "http://x.test", "customHeaders": "[1]"}, "events": []string{}}, "parameters.customHeaders"},
		{"header with a newline", map[string]any{"provider": "webhook", "enabled": true, "parameters": map[string]any{"url": "http://x.test", "authorization": "a\nb"}, "events": []string{}}, "parameters.authorization"},
		{"unclosed section", map[string]any{"provider": "webhook", "enabled": true, "parameters": map[string]any{"url": "http://x.test", "bodyTemplate": "{{#event}}"}, "events": []string{}}, "parameters.bodyTemplate"},
		{"mask without a stored value", map[string]any{"provider": "webhook", "enabled": true, "parameters": map[string]any{"url": maskedValue}, "events": []string{}}, "parameters.url"},
		{"no events", map[string]any{"provider": "webhook", "enabled": true, "parameters": map[string]any{"url": "http://x.test"}}, "events"},
		{"bad event type", map[string]any{"provider": "webhook", "enabled": true, "parameters": map[string]any{"url": "http://x.test"}, "events": []string{"Feature Created"}}, "events[0]"},
		{"unknown event type", map[string]any{"provider": "webhook", "enabled": true, "parameters": map[string]any{"url": "http://x.test"}, "events": []string{"feature-created", "feature-exploded"}}, "events[1]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mark := auditMark(t, ts)
			mustErrorRecord(t, ts.admin("POST", "/api/admin/addons", tt.body), http.StatusBadRequest, "ValidationError", tt.path)
			mustNoAudit(t, ts, mark)
		})
	}
	mustErrorRecord(t, ts.request("GET", "/api/admin/addons", "", nil), http.StatusUnauthorized, "AuthenticationRequired", "")
	mustErrorRecord(t, ts.request("POST", "/api/admin/addons", "", webhookBodyFor("http://x.test", []string{}, nil)), http.StatusUnauthorized, "AuthenticationRequired", "")

	// Anyone signed in reads addons, masked; only Admins change them or
	// read their deliveries.
	createTestUser(t, ts, "eddie-editor", "Editor", strongPassword)
	editor := signIn(t, ts, "eddie-editor", strongPassword)
	res = ts.asSession(editor, "GET", path, nil).must(t, http.StatusOK)
	mustNotLeak(t, "GET as an Editor", res.Body)
	mark = auditMark(t, ts)
	for _, rq := range []struct{ method, path string }{{"POST", "/api/admin/addons"}, {"PUT", path}, {"DELETE", path}, {"GET", path + "/events"}} {
		mustErrorRecord(t, ts.asSession(editor, rq.method, rq.path, webhookBodyFor("http://x.test", []string{}, nil)), http.StatusForbidden, "NoAccessError", "")
	}
	mustNoAudit(t, ts, mark)

	res = ts.admin("GET", path, nil).must(t, http.StatusOK)
	matchesUnleash(t, ref, "addonSchema", res.Body)
	mustNotLeak(t, "GET", res.Body)
	res = ts.admin("GET", "/api/admin/addons", nil).must(t, http.StatusOK)
	matchesUnleash(t, ref, "addonsSchema", res.Body)
	mustNotLeak(t, "the list", res.Body)
	mustErrorRecord(t, ts.admin("GET", "/api/admin/addons/9999", nil), http.StatusNotFound, "NotFoundError", "")
	mustErrorRecord(t, ts.admin("GET", "/api/admin/addons/abc", nil), http.StatusBadRequest, "ValidationError", "id")

	// An update that sends the masks back keeps the secrets; one that sends
	// a new value replaces it.
	mark = auditMark(t, ts)
	upd := map[string]any{"provider": "webhook", "enabled": false, "description": "", "events": []string{"feature-created", "feature-archived"},
		"parameters": map[string]any{"url": maskedValue, "authorization": maskedValue, "customHeaders": maskedValue, "contentType": "text/plain"}}
	res = ts.admin("PUT", path, upd).must(t, http.StatusOK)
	matchesUnleash(t, ref, "addonSchema", res.Body)
	mustNotLeak(t, "the updated addon", res.Body)
	e = mustOneAudit(t, ts, mark, "addon-config-updated")
	mustNotLeak(t, "the addon-config-updated event", append(e.Data, e.PreData...))
	stored := storedAddonParams(t, ts, created.ID)
	if stored["url"] != recv.url+"/hook/"+urlSecret || stored["authorization"] != hookSecret || stored["contentType"] != "text/plain" ||
		stored["bodyTemplate"] != "" || !strings.Contains(stored["customHeaders"], headerSecret) {
		t.Errorf("stored after a masked update: %v", stored)
	}
	var updated addonJSON
	res.Decode(t, &updated)
	if updated.Enabled || updated.Description != nil || len(updated.Events) != 2 || len(updated.Projects) != 0 {
		t.Errorf("updated %s", res.Body)
	}
	upd["parameters"] = map[string]any{"url": "http://other.test/hook", "authorization": maskedValue}
	ts.admin("PUT", path, upd).must(t, http.StatusOK)
	if stored := storedAddonParams(t, ts, created.ID); stored["url"] != "http://other.test/hook" || stored["authorization"] != hookSecret || stored["customHeaders"] != "" {
		t.Errorf("stored after a new URL: %v", stored)
	}
	mark = auditMark(t, ts)
	mustErrorRecord(t, ts.admin("PUT", "/api/admin/addons/9999", upd), http.StatusNotFound, "NotFoundError", "")
	mustErrorRecord(t, ts.admin("PUT", path, map[string]any{"provider": "webhook", "enabled": true, "parameters": map[string]any{}, "events": []string{}}),
		http.StatusBadRequest, "ValidationError", "parameters.url")
	mustErrorRecord(t, ts.request("PUT", path, testAdminToken, "[]"), http.StatusBadRequest, "ValidationError", "")
	mustNoAudit(t, ts, mark)

	res = ts.admin("GET", path+"/events", nil).must(t, http.StatusOK)
	matchesUnleash(t, ref, "integrationEventsSchema", res.Body)
	mustErrorRecord(t, ts.admin("GET", "/api/admin/addons/9999/events", nil), http.StatusNotFound, "NotFoundError", "")
	mustErrorRecord(t, ts.admin("GET", path+"/events?limit=0", nil), http.StatusBadRequest, "ValidationError", "limit")

	mark = auditMark(t, ts)
	ts.admin("DELETE", path, nil).must(t, http.StatusOK)
	e = mustOneAudit(t, ts, mark, "addon-config-deleted")
	mustNotLeak(t, "the addon-config-deleted event", e.PreData)
	mustErrorRecord(t, ts.admin("DELETE", path, nil), http.StatusNotFound, "NotFoundError", "")
	mustErrorRecord(t, ts.admin("GET", path, nil), http.StatusNotFound, "NotFoundError", "")
	mustNotLeak(t, "the event log", ts.admin("GET", "/api/admin/events", nil).must(t, http.StatusOK).Body)
}

func itoa(n int) string { return strings.TrimSpace(mustJSON(n)) }

func storedAddonParams(t *testing.T, ts *testServer, id int) map[string]string {
	t.Helper()
	var a store.Addon
	if err := ts.srv.store.View(context.Background(), func(r store.Reader) (err error) {
		a, err = r.GetAddon(context.Background(), id)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var p map[string]string
	if err := json.Unmarshal(a.Parameters, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

func createAddon(t *testing.T, ts *testServer, body map[string]any) int {
	t.Helper()
	var a addonJSON
	ts.admin("POST", "/api/admin/addons", body).must(t, http.StatusOK).Decode(t, &a)
	return a.ID
}

func deliveries(t *testing.T, ts *testServer, id int) []integrationEventJSON {
	t.Helper()
	var out struct{ IntegrationEvents []integrationEventJSON }
	ts.admin("GET", "/api/admin/addons/"+itoa(id)+"/events", nil).must(t, http.StatusOK).Decode(t, &out)
	return out.IntegrationEvents
}

// TestWebhookDelivers: a flag change reaches the receiver exactly once,
// with the rendered template and the configured headers, and the delivery
// shows as a success; on SQLite and PostgreSQL.
func TestWebhookDelivers(t *testing.T) {
	for _, db := range []struct {
		name string
		open func(*testing.T) *testServer
	}{{"sqlite", newHookTestServer}, {"postgres", newPostgresHookTestServer}} {
		t.Run(db.name, func(t *testing.T) {
			ts := db.open(t)
			recv := newReceiver(t)
			id := createAddon(t, ts, webhookBodyFor(recv.url+"/hook", []string{"feature-created"}, nil))
			ts.admin("POST", "/api/admin/projects/default/features", map[string]any{"name": "checkout"}).must(t, http.StatusCreated)
			deliver(t, ts)
			deliver(t, ts)
			calls := recv.list()
			if len(calls) != 1 {
				t.Fatalf("%d requests, want 1: %+v", len(calls), calls)
			}
			c := calls[0]
			if want := `{"event":"feature-created","flag":"checkout","project":"default","env":""}`; c.Body != want {
				t.Errorf("body %s, want %s", c.Body, want)
			}
			if c.Path != "/hook" || c.Header.Get("Authorization") != hookSecret || c.Header.Get("X-Hook-Key") != headerSecret ||
				c.Header.Get("Content-Type") != "application/json" {
				t.Errorf("request %+v", c)
			}
			ds := deliveries(t, ts, id)
			if len(ds) != 1 || ds[0].State != "success" || ds[0].Event.Type != "feature-created" || ds[0].Details["attempts"] != float64(1) {
				t.Fatalf("deliveries %+v", ds)
			}
			res := ts.admin("GET", "/api/admin/addons/"+itoa(id)+"/events", nil)
			matchesUnleash(t, unleashReference(t), "integrationEventsSchema", res.Body)
			mustNotLeak(t, "the deliveries", res.Body)
		})
	}
}

// TestWebhookWithoutTemplate: without a body template the event's JSON is
// sent, as the events API shows it.
func TestWebhookWithoutTemplate(t *testing.T) {
	ts := newHookTestServer(t)
	recv := newReceiver(t)
	createAddon(t, ts, map[string]any{"provider": "webhook", "enabled": true, "events": []string{"feature-created"},
		"parameters": map[string]any{"url": recv.url}})
	ts.admin("POST", "/api/admin/projects/default/features", map[string]any{"name": "plain"}).must(t, http.StatusCreated)
	deliver(t, ts)
	calls := recv.list()
	if len(calls) != 1 {
		t.Fatalf("%d requests", len(calls))
	}
	var ev eventJSON
	if err := json.Unmarshal([]byte(calls[0].Body), &ev); err != nil || ev.Type != "feature-created" || *ev.FeatureName != "plain" || ev.ID < 1 {
		t.Errorf("body %s (%v)", calls[0].Body, err)
	}
	if calls[0].Header.Get("Authorization") != "" || calls[0].Header.Get("Content-Type") != "application/json" {
		t.Errorf("headers %v", calls[0].Header)
	}
}

// TestWebhookRetries: a receiver answering 500 is tried again after a
// growing wait (not before), until it answers 2xx; one that keeps failing
// is given up after the last attempt, and a 4xx is not retried.
func TestWebhookRetries(t *testing.T) {
	ts := newHookTestServer(t)
	clock := time.Now()
	ts.srv.now = func() time.Time { return clock }
	flaky := newReceiver(t, 500, 503, 200)
	down := newReceiver(t, 500)
	refusing := newReceiver(t, 400)
	flakyID := createAddon(t, ts, map[string]any{"provider": "webhook", "enabled": true, "events": []string{"feature-created"}, "parameters": map[string]any{"url": flaky.url}})
	downID := createAddon(t, ts, map[string]any{"provider": "webhook", "enabled": true, "events": []string{"feature-created"}, "parameters": map[string]any{"url": down.url}})
	refusingID := createAddon(t, ts, map[string]any{"provider": "webhook", "enabled": true, "events": []string{"feature-created"}, "parameters": map[string]any{"url": refusing.url}})
	ts.admin("POST", "/api/admin/projects/default/features", map[string]any{"name": "retried"}).must(t, http.StatusCreated)

	deliver(t, ts)
	deliver(t, ts) // nothing is due yet
	if n := len(flaky.list()); n != 1 {
		t.Fatalf("%d requests before the retry is due, want 1", n)
	}
	ds := deliveries(t, ts, flakyID)
	if len(ds) != 1 || ds[0].State != "failed" || ds[0].Details["state"] != "pending" || ds[0].Details["statusCode"] != float64(500) ||
		ds[0].Details["nextAttemptAt"] == nil || !strings.Contains(ds[0].StateDetails, "500") {
		t.Fatalf("after one 500: %+v", ds)
	}
	if ds := deliveries(t, ts, refusingID); len(ds) != 1 || ds[0].Details["state"] != "failed" || ds[0].Details["final"] != true {
		t.Fatalf("a 400 is final: %+v", ds)
	}

	for range addonMaxAttempts + 2 {
		clock = clock.Add(time.Hour)
		deliver(t, ts)
	}
	if n := len(flaky.list()); n != 3 {
		t.Errorf("flaky receiver got %d requests, want 3 (500, 503, 200)", n)
	}
	if ds := deliveries(t, ts, flakyID); len(ds) != 1 || ds[0].State != "success" || ds[0].Details["attempts"] != float64(3) {
		t.Errorf("flaky delivery: %+v", ds)
	}
	if n := len(down.list()); n != addonMaxAttempts {
		t.Errorf("failing receiver got %d requests, want %d", n, addonMaxAttempts)
	}
	if ds := deliveries(t, ts, downID); len(ds) != 1 || ds[0].State != "failed" || ds[0].Details["final"] != true {
		t.Errorf("given-up delivery: %+v", ds)
	}
	if n := len(refusing.list()); n != 1 {
		t.Errorf("refusing receiver got %d requests, want 1", n)
	}
}

// TestWebhookBackoffGrows: each failed attempt doubles the wait.
func TestWebhookBackoffGrows(t *testing.T) {
	ts := newHookTestServer(t)
	clock := time.Now().UTC().Truncate(time.Second)
	ts.srv.now = func() time.Time { return clock }
	down := newReceiver(t, 502)
	id := createAddon(t, ts, map[string]any{"provider": "webhook", "enabled": true, "events": []string{"feature-created"}, "parameters": map[string]any{"url": down.url}})
	ts.admin("POST", "/api/admin/projects/default/features", map[string]any{"name": "backoff"}).must(t, http.StatusCreated)
	for attempt := 1; attempt < addonMaxAttempts; attempt++ {
		deliver(t, ts)
		ds := deliveries(t, ts, id)
		want := clock.Add(addonRetryBase << (attempt - 1)).Format(timeLayoutRFC3339)
		if len(ds) != 1 || ds[0].Details["nextAttemptAt"] != want {
			t.Fatalf("after attempt %d: %+v, want the next at %s", attempt, ds, want)
		}
		clock = clock.Add(addonRetryBase << (attempt - 1))
	}
}

// TestWebhookFilters: an addon gets only the event types, projects and
// environments it lists, nothing while disabled, and nothing from before
// it existed.
func TestWebhookFilters(t *testing.T) {
	ts := newHookTestServer(t)
	ts.admin("POST", "/api/admin/projects/default/features", map[string]any{"name": "before"}).must(t, http.StatusCreated)
	ts.admin("POST", "/api/admin/projects", map[string]any{"id": "web", "name": "Web"}).must(t, http.StatusCreated)
	recv := newReceiver(t)
	hook := func(name string, extra map[string]any) {
		body := map[string]any{"provider": "webhook", "enabled": true, "events": []string{"feature-created", "feature-environment-enabled"},
			"parameters": map[string]any{"url": recv.url + "/" + name, "bodyTemplate": "{{event.type}} {{event.featureName}} {{event.environment}}"}}
		for k, v := range extra {
			body[k] = v
		}
		createAddon(t, ts, body)
	}
	hook("all", nil)
	hook("created-only", map[string]any{"events": []string{"feature-created"}})
	hook("web", map[string]any{"projects": []string{"web"}})
	hook("production", map[string]any{"environments": []string{"production"}})
	hook("wildcard", map[string]any{"projects": []string{"*"}, "environments": []string{"*"}})
	hook("disabled", map[string]any{"enabled": false})

	ts.admin("POST", "/api/admin/projects/default/features", map[string]any{"name": "a"}).must(t, http.StatusCreated)
	ts.admin("POST", "/api/admin/projects/web/features", map[string]any{"name": "b"}).must(t, http.StatusCreated)
	ts.admin("POST", "/api/admin/projects/default/features/a/environments/development/on", nil).must(t, http.StatusOK)
	ts.admin("POST", "/api/admin/projects/default/features/a/environments/production/on", nil).must(t, http.StatusOK)
	ts.admin("POST", "/api/admin/projects/default/features/a/environments/production/off", nil).must(t, http.StatusOK)
	deliver(t, ts)

	got := map[string][]string{}
	for _, c := range recv.list() {
		got[strings.TrimPrefix(c.Path, "/")] = append(got[strings.TrimPrefix(c.Path, "/")], c.Body)
	}
	want := map[string][]string{
		"all":          {"feature-created a ", "feature-created b ", "feature-environment-enabled a development", "feature-environment-enabled a production"},
		"created-only": {"feature-created a ", "feature-created b "},
		"web":          {"feature-created b "},
		"production":   {"feature-environment-enabled a production"},
		"wildcard":     {"feature-created a ", "feature-created b ", "feature-environment-enabled a development", "feature-environment-enabled a production"},
	}
	if mustJSON(got) != mustJSON(want) {
		t.Errorf("deliveries\n got %v\nwant %v", got, want)
	}
}

// TestWebhookWorkerRuns: the worker Run starts delivers without being
// called.
func TestWebhookWorkerRuns(t *testing.T) {
	ts := newHookTestServer(t)
	recv := newReceiver(t)
	createAddon(t, ts, webhookBodyFor(recv.url, []string{"feature-created"}, nil))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ts.srv.Run(ctx) }()
	defer func() {
		cancel()
		<-done
	}()
	ts.admin("POST", "/api/admin/projects/default/features", map[string]any{"name": "by-worker"}).must(t, http.StatusCreated)
	select {
	case <-recv.got:
	case <-time.After(30 * time.Second):
		t.Fatal("the worker delivered nothing")
	}
	if calls := recv.list(); len(calls) != 1 || !strings.Contains(calls[0].Body, `"flag":"by-worker"`) {
		t.Errorf("calls %+v", calls)
	}
}

// TestWebhookInstancesShareDeliveries: instances on one database, each
// running the worker at the same moment, send each event once.
func TestWebhookInstancesShareDeliveries(t *testing.T) {
	for _, db := range []struct {
		name string
		url  func(*testing.T) string
	}{
		{"sqlite", func(t *testing.T) string { return t.TempDir() + "/shared.db" }},
		{"postgres", func(t *testing.T) string { return pgtest.NewDatabase(t) }},
	} {
		t.Run(db.name, func(t *testing.T) {
			url := db.url(t)
			var servers []*testServer
			for range 3 {
				st, err := sqlstore.Open(context.Background(), url)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { st.Close() })
				servers = append(servers, newTestServerWith(t, st, Config{AddonAllowedHosts: []string{"127.0.0.1"}}))
			}
			recv := newReceiver(t)
			createAddon(t, servers[0], map[string]any{"provider": "webhook", "enabled": true, "events": []string{"feature-created"},
				"parameters": map[string]any{"url": recv.url, "bodyTemplate": "{{event.featureName}}"}})
			for _, name := range []string{"one", "two", "three", "four"} {
				servers[1].admin("POST", "/api/admin/projects/default/features", map[string]any{"name": name}).must(t, http.StatusCreated)
			}
			var wg sync.WaitGroup
			for _, ts := range servers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if err := ts.srv.deliverAddons(context.Background()); err != nil {
						t.Error(err)
					}
				}()
			}
			wg.Wait()
			var bodies []string
			for _, c := range recv.list() {
				bodies = append(bodies, c.Body)
			}
			if len(bodies) != 4 {
				t.Errorf("bodies %v, want each of the four flags once", bodies)
			}
			seen := map[string]bool{}
			for _, b := range bodies {
				if seen[b] {
					t.Errorf("%s sent twice", b)
				}
				seen[b] = true
			}
		})
	}
}

// TestWebhookRedirects: a redirect within the receiver's host is
// followed; one to another host is not.
func TestWebhookRedirects(t *testing.T) {
	ts := newHookTestServer(t)
	elsewhere := newReceiver(t)
	var hits int
	var mu sync.Mutex
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits++
		mu.Unlock()
		switch r.URL.Path {
		case "/moved":
			http.Redirect(w, r, "/final", http.StatusTemporaryRedirect)
		case "/away":
			http.Redirect(w, r, elsewhere.url+"/stolen", http.StatusTemporaryRedirect)
		default:
			w.WriteHeader(http.StatusNoContent)
		}
	}))
	t.Cleanup(hs.Close)
	moved := createAddon(t, ts, map[string]any{"provider": "webhook", "enabled": true, "events": []string{"feature-created"}, "parameters": map[string]any{"url": hs.URL + "/moved"}})
	away := createAddon(t, ts, map[string]any{"provider": "webhook", "enabled": true, "events": []string{"feature-created"}, "parameters": map[string]any{"url": hs.URL + "/away", "authorization": hookSecret}})
	ts.admin("POST", "/api/admin/projects/default/features", map[string]any{"name": "redirected"}).must(t, http.StatusCreated)
	deliver(t, ts)
	if ds := deliveries(t, ts, moved); len(ds) != 1 || ds[0].State != "success" {
		t.Errorf("same-host redirect: %+v", ds)
	}
	ds := deliveries(t, ts, away)
	if len(ds) != 1 || ds[0].State != "failed" || ds[0].Details["lastError"] != webhookFailed {
		t.Errorf("redirect elsewhere: %+v", ds)
	}
	if n := len(elsewhere.list()); n != 0 {
		t.Errorf("the other host got %d requests", n)
	}
}

func TestMustache(t *testing.T) {
	data := map[string]any{"event": map[string]any{
		"type": "feature-created", "id": float64(42), "data": map[string]any{"name": `a<b>&"c"`, "enabled": true},
		"tags": []any{map[string]any{"value": "x"}, map[string]any{"value": "y"}}, "project": nil,
	}}
	for _, tt := range []struct{ tpl, want string }{
		{"{{event.type}}", "feature-created"},
		{"{{ event.id }}", "42"},
		{"{{event.data.name}}", "a&lt;b&gt;&amp;&quot;c&quot;"},
		{"{{{event.data.name}}}", `a<b>&"c"`},
		{"{{&event.data.name}}", `a<b>&"c"`},
		{"{{event.missing.deep}}|{{event.project}}", "|"},
		{"{{{event.data}}}", `{"enabled":true,"name":"a\u003cb\u003e\u0026\"c\""}`},
		{"{{#event.tags}}[{{value}}]{{/event.tags}}", "[x][y]"},
		{"{{#event.data.enabled}}on{{/event.data.enabled}}{{^event.data.enabled}}off{{/event.data.enabled}}", "on"},
		{"{{^event.project}}no project{{/event.project}}", "no project"},
		{"{{#event.data}}{{name}} by {{event.type}}{{/event.data}}", "a&lt;b&gt;&amp;&quot;c&quot; by feature-created"},
		{"{{! a comment }}x{{event.tags.1.value}}", "xy"},
	} {
		nodes, err := parseMustache(tt.tpl)
		if err != nil {
			t.Errorf("%s: %v", tt.tpl, err)
			continue
		}
		got, err := renderMustache(nodes, data)
		if err != nil || got != tt.want {
			t.Errorf("%s = %q (%v), want %q", tt.tpl, got, err, tt.want)
		}
	}
	for _, bad := range []string{"{{#a}}", "{{/a}}", "{{#a}}{{/b}}", "{{a", "{{}}", "{{> partial}}", "{{=<% %>=}}"} {
		if _, err := parseMustache(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// TestWebhookErrorHidesURL: a failed request's error, shown in the
// delivery results, does not repeat the URL, which may hold a token, nor
// why the connection failed: only that the delivery did.
func TestWebhookErrorHidesURL(t *testing.T) {
	ts := newHookTestServer(t)
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	id := createAddon(t, ts, map[string]any{"provider": "webhook", "enabled": true, "events": []string{"feature-created"},
		"parameters": map[string]any{"url": gone.URL + "/hook?token=" + urlSecret}})
	ts.admin("POST", "/api/admin/projects/default/features", map[string]any{"name": "unreachable"}).must(t, http.StatusCreated)
	deliver(t, ts)
	res := ts.admin("GET", "/api/admin/addons/"+itoa(id)+"/events", nil).must(t, http.StatusOK)
	mustNotLeak(t, "the delivery error", res.Body)
	var out struct{ IntegrationEvents []integrationEventJSON }
	res.Decode(t, &out)
	if len(out.IntegrationEvents) != 1 || out.IntegrationEvents[0].Details["state"] != "pending" || out.IntegrationEvents[0].Details["lastError"] != webhookFailed {
		t.Errorf("deliveries %s", res.Body)
	}
}

// TestAddonEventTypesKnown: an addon lists only event types of the event
// log; an unknown one is a 400 naming it, on create and on update, and
// changes nothing. Every type the webhook provider offers is known.
func TestAddonEventTypesKnown(t *testing.T) {
	for _, e := range webhookProvider.Events {
		if !knownEventTypes[e] {
			t.Errorf("the webhook provider offers %q, which is not an event type", e)
		}
	}
	ts := newTestServer(t)
	body := func(events ...string) map[string]any {
		return map[string]any{"provider": "webhook", "enabled": true, "parameters": map[string]any{"url": "http://hooks.example.com"}, "events": events}
	}
	id := createAddon(t, ts, body("feature-created", "addon-config-deleted", "change-request-comment-added"))
	mark := auditMark(t, ts)
	for _, rq := range []struct{ method, path string }{{"POST", "/api/admin/addons"}, {"PUT", "/api/admin/addons/" + itoa(id)}} {
		res := ts.admin(rq.method, rq.path, body("feature-archived", "feature-teleported"))
		mustErrorRecord(t, res, http.StatusBadRequest, "ValidationError", "events[1]")
		if !strings.Contains(string(res.Body), `\"feature-teleported\" is not a known event type`) {
			t.Errorf("%s %s: the error does not name the type: %s", rq.method, rq.path, res.Body)
		}
	}
	mustNoAudit(t, ts, mark)
	var a addonJSON
	ts.admin("GET", "/api/admin/addons/"+itoa(id), nil).must(t, http.StatusOK).Decode(t, &a)
	if mustJSON(a.Events) != mustJSON([]string{"feature-created", "addon-config-deleted", "change-request-comment-added"}) {
		t.Errorf("events after refused updates: %v", a.Events)
	}
}
