package server

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/signalbox/signalbox/internal/pgtest"
	"github.com/signalbox/signalbox/store"
)

// unrelatedChanges makes, through the admin API, one change of each kind
// that no SDK answer shows: a user, a personal access token, a favourite
// flag and project, a splash seen, feedback, an API token. It returns the
// server's revision before and after, so that a test sees the changes were
// made.
func unrelatedChanges(t *testing.T, ts *testServer, user string) (before, after int64) {
	t.Helper()
	before = ts.srv.revision.Load()
	createTestUser(t, ts, user, "Editor", strongPassword)
	cookie := signIn(t, ts, user, strongPassword)
	expires := time.Now().Add(24 * time.Hour).UTC().Format(time.RFC3339)
	ts.asSession(cookie, "POST", "/api/admin/user/tokens", map[string]any{"description": "ci", "expiresAt": expires}).must(t, http.StatusCreated)
	ts.asSession(cookie, "POST", "/api/admin/projects/default/features/sdk.flag/favorites", nil).must(t, http.StatusOK)
	ts.asSession(cookie, "POST", "/api/admin/projects/default/favorites", nil).must(t, http.StatusOK)
	ts.asSession(cookie, "POST", "/api/admin/splash/new-ui", nil).must(t, http.StatusOK)
	ts.asSession(cookie, "POST", "/api/admin/feedback", map[string]any{"feedbackId": "pnps", "neverShow": true}).must(t, http.StatusOK)
	ts.admin("POST", "/api/admin/api-tokens", map[string]any{"type": "client", "tokenName": "another-" + user}).must(t, http.StatusCreated)
	after = ts.srv.revision.Load()
	if after <= before {
		t.Fatalf("the unrelated changes left the revision at %d", after)
	}
	return before, after
}

// SDKs' conditional reads stay 304 across changes their answers do not
// show, and see the first change they do show, on SQLite and PostgreSQL.
func TestSDKETagsIgnoreUnrelatedChanges(t *testing.T) {
	for _, db := range []struct {
		name string
		open func(*testing.T) *testServer
	}{{"sqlite", newTestServer}, {"postgres", newPostgresTestServer}} {
		t.Run(db.name, func(t *testing.T) { sdkETagsFlow(t, db.open(t)) })
	}
}

func sdkETagsFlow(t *testing.T, ts *testServer) {
	seedFlag(t, ts, "sdk.flag", store.Strategy{Name: "default"})
	features := ts.request("GET", "/api/client/features", testClientToken, nil).must(t, http.StatusOK)
	etag := features.Header.Get("ETag")
	if !strings.HasPrefix(etag, `"`) || !strings.HasSuffix(etag, `:v1"`) {
		t.Fatalf("ETag %q", etag)
	}
	prodETag := ts.request("GET", "/api/client/features", testProdToken, nil).must(t, http.StatusOK).Header.Get("ETag")
	delta := ts.request("GET", "/api/client/delta", testClientToken, nil).must(t, http.StatusOK)
	deltaETag := delta.Header.Get("ETag")
	frontend := ts.request("GET", "/api/frontend", testFrontendToken, nil).must(t, http.StatusOK)
	frontendETag := frontend.Header.Get("ETag")
	if frontendETag == "" {
		t.Fatal("the frontend API answered without an ETag")
	}
	t.Cleanup(ts.srv.CloseStreams) // before the test server waits for its requests
	s, _ := openStream(t, ts, testClientToken)
	defer s.close()
	connected := s.next()
	if connected.Event != "unleash-connected" {
		t.Fatalf("first message %+v", connected)
	}

	unrelatedChanges(t, ts, "una")
	// Twice: the first read after the changes brings the state forward,
	// the second is answered from what it left.
	for range 2 {
		ts.request("GET", "/api/client/features", testClientToken, nil, "If-None-Match", etag).must(t, http.StatusNotModified)
		ts.request("GET", "/api/client/features", testProdToken, nil, "If-None-Match", prodETag).must(t, http.StatusNotModified)
		ts.request("GET", "/api/client/delta", testClientToken, nil, "If-None-Match", deltaETag).must(t, http.StatusNotModified)
		ts.request("GET", "/api/frontend", testFrontendToken, nil, "If-None-Match", frontendETag).must(t, http.StatusNotModified)
	}
	// A whole answer after them has the same ETag.
	if again := ts.request("GET", "/api/client/features", testClientToken, nil).must(t, http.StatusOK); again.Header.Get("ETag") != etag {
		t.Errorf("ETag %s after unrelated changes, was %s", again.Header.Get("ETag"), etag)
	}

	// A flag of another environment leaves development's answer alone;
	// a change of this one's flag is seen at once.
	ts.admin("POST", "/api/admin/projects/default/features/sdk.flag/environments/production/on", nil).must(t, http.StatusOK)
	ts.request("GET", "/api/client/features", testClientToken, nil, "If-None-Match", etag).must(t, http.StatusNotModified)
	toggle(t, ts, "sdk.flag", false)
	changed := ts.request("GET", "/api/client/features", testClientToken, nil, "If-None-Match", etag).must(t, http.StatusOK)
	if next := changed.Header.Get("ETag"); next == etag || next == "" {
		t.Errorf("ETag %q after a change, was %q", next, etag)
	}
	res := ts.request("GET", "/api/client/delta", testClientToken, nil, "If-None-Match", deltaETag).must(t, http.StatusOK)
	var body struct{ Events []deltaEvent }
	res.Decode(t, &body)
	if len(body.Events) != 1 || body.Events[0].Type != "feature-updated" || body.Events[0].Feature.Enabled {
		t.Errorf("delta after the change: %s", res.Body)
	}
	ts.request("GET", "/api/frontend", testFrontendToken, nil, "If-None-Match", frontendETag).must(t, http.StatusOK)

	// The stream's next message is that change: nothing came for the
	// unrelated ones (nor for production's).
	m := s.next()
	evs := m.events(t)
	if m.Event != "unleash-updated" || len(evs) != 1 || evs[0].Type != "feature-updated" || evs[0].Feature.Name != "sdk.flag" || evs[0].Feature.Enabled {
		t.Fatalf("first message after the connection: %+v", m)
	}
}

// Two servers on one PostgreSQL database give an answer the same ETag, a
// server started later too, and an unrelated change made through one
// leaves the other's answers 304 once it has heard of the change.
func TestSDKETagsAcrossInstancesPostgres(t *testing.T) {
	url := pgtest.NewDatabase(t)
	a := runInstance(t, url, time.Hour)
	b := runInstance(t, url, time.Hour)
	a.t, b.t = t, t
	seedFlag(t, a.testServer, "sdk.flag", store.Strategy{Name: "default"})
	awaitFlag(t, b, "sdk.flag")
	etag := a.request("GET", "/api/client/features", testClientToken, nil).must(t, http.StatusOK).Header.Get("ETag")
	if other := b.request("GET", "/api/client/features", testClientToken, nil).must(t, http.StatusOK).Header.Get("ETag"); other != etag {
		t.Fatalf("instance b's ETag %s, a's %s", other, etag)
	}
	_, rev := unrelatedChanges(t, a.testServer, "una")
	deadline := time.Now().Add(propagationLimit)
	for b.srv.revision.Load() < rev {
		if time.Now().After(deadline) {
			t.Fatalf("instance b never heard of revision %d", rev)
		}
		time.Sleep(5 * time.Millisecond)
	}
	b.request("GET", "/api/client/features", testClientToken, nil, "If-None-Match", etag).must(t, http.StatusNotModified)
	c := runInstance(t, url, time.Hour)
	c.t = t
	c.request("GET", "/api/client/features", testClientToken, nil, "If-None-Match", etag).must(t, http.StatusNotModified)

	toggle(t, a.testServer, "sdk.flag", false)
	deadline = time.Now().Add(propagationLimit)
	for {
		res := b.request("GET", "/api/client/features", testClientToken, nil, "If-None-Match", etag)
		if res.Status == http.StatusOK {
			if res.Header.Get("ETag") == etag {
				t.Fatalf("a changed answer kept ETag %s", etag)
			}
			break
		}
		res.must(t, http.StatusNotModified)
		if time.Now().After(deadline) {
			t.Fatal("instance b never served the change")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A run of changes no SDK sees, longer than the delta history, leaves a
// client's delta revision answerable: 304, then the next change as a
// delta rather than a hydration.
func TestDeltaHistoryOutlastsUnrelatedChanges(t *testing.T) {
	ts := newTestServer(t)
	seedFlag(t, ts, "sdk.flag", store.Strategy{Name: "default"})
	etag := ts.request("GET", "/api/client/delta", testClientToken, nil).must(t, http.StatusOK).Header.Get("ETag")
	ctx := withPrincipal(context.Background(), &Principal{Token: &store.APIToken{TokenName: "test"}})
	for i := range maxDeltaHistory + 5 {
		rev := ts.srv.revision.Load()
		if err := ts.srv.change(ctx, func(tx store.Tx) ([]store.Event, error) {
			return []store.Event{{Type: "setting-updated", Data: eventData(map[string]int{"run": i})}}, nil
		}); err != nil {
			t.Fatal(err)
		}
		if ts.srv.revision.Load() <= rev {
			t.Fatalf("change %d left the revision at %d", i, rev)
		}
		// Each revision is read into the history.
		ts.request("GET", "/api/client/delta", testClientToken, nil, "If-None-Match", etag).must(t, http.StatusNotModified)
	}
	toggle(t, ts, "sdk.flag", false)
	var body struct{ Events []deltaEvent }
	ts.request("GET", "/api/client/delta", testClientToken, nil, "If-None-Match", etag).must(t, http.StatusOK).Decode(t, &body)
	if len(body.Events) != 1 || body.Events[0].Type != "feature-updated" {
		t.Fatalf("after the change: %+v", body.Events)
	}
}
