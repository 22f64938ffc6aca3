package server

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/store"
	"github.com/signalbox/signalbox/store/sqlstore"
)

// newPushTestServer is newTestServer with the streaming settings of cfg.
func newPushTestServer(t testing.TB, cfg Config) *testServer {
	t.Helper()
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, filepath.Join(t.TempDir(), "signalbox.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := Bootstrap(ctx, st, BootstrapConfig{
		AdminTokens: []string{testAdminToken}, ClientTokens: []string{testClientToken, testProdToken},
		FrontendTokens: []string{testFrontendToken}, AdminPassword: testAdminPassword,
	}); err != nil {
		t.Fatal(err)
	}
	cfg.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	srv, err := New(ctx, st, cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	// Streams end before the test server waits for its requests.
	t.Cleanup(hs.Close)
	t.Cleanup(srv.CloseStreams)
	tt, _ := t.(*testing.T)
	return &testServer{t: tt, srv: srv, url: hs.URL}
}

// sseMessage is one Server-Sent Event.
type sseMessage struct {
	Event, ID, Data string
	Comment         bool
}

// deltaEvent is one event of a push message, decoded.
type deltaEvent struct {
	Type        string              `json:"type"`
	EventID     int64               `json:"eventId"`
	Features    []clientapi.Feature `json:"features"`
	Segments    []clientapi.Segment `json:"segments"`
	Feature     *clientapi.Feature  `json:"feature"`
	FeatureName string              `json:"featureName"`
	Project     string              `json:"project"`
	Segment     *clientapi.Segment  `json:"segment"`
	SegmentID   int                 `json:"segmentId"`
}

func (m sseMessage) events(t *testing.T) []deltaEvent {
	t.Helper()
	var body struct {
		Events []deltaEvent `json:"events"`
	}
	if err := json.Unmarshal([]byte(m.Data), &body); err != nil || body.Events == nil {
		t.Fatalf("message %q: data is not {\"events\":[...]}: %v", m.Data, err)
	}
	return body.Events
}

// sseStream is an open stream read by a goroutine.
type sseStream struct {
	t      *testing.T
	res    *http.Response
	cancel context.CancelFunc
	msgs   chan sseMessage
}

func openStream(t *testing.T, ts *testServer, token string, header ...string) (*sseStream, *http.Response) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.url+"/api/client/streaming", nil)
	if token != "" {
		req.Header.Set("Authorization", token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		defer cancel()
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		res.Body = io.NopCloser(strings.NewReader(string(body)))
		return nil, res
	}
	s := &sseStream{t: t, res: res, cancel: cancel, msgs: make(chan sseMessage, 100)}
	go func() {
		defer close(s.msgs)
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(nil, 16<<20)
		var m sseMessage
		seen := false
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if seen {
					s.msgs <- m
				}
				m, seen = sseMessage{}, false
			case strings.HasPrefix(line, ":"):
				m.Comment, seen = true, true
			default:
				k, v, _ := strings.Cut(line, ":")
				v = strings.TrimPrefix(v, " ")
				switch k {
				case "event":
					m.Event = v
				case "id":
					m.ID = v
				case "data":
					m.Data += v
				}
				seen = true
			}
		}
	}()
	t.Cleanup(s.close)
	return s, res
}

func (s *sseStream) close() {
	s.cancel()
	s.res.Body.Close()
}

// next is the next event, skipping heartbeats; the wait is bounded so a
// missing event fails instead of hanging.
func (s *sseStream) next() sseMessage {
	s.t.Helper()
	for {
		select {
		case m, ok := <-s.msgs:
			if !ok {
				s.t.Fatal("the stream ended")
			}
			if m.Comment && m.Event == "" {
				continue
			}
			return m
		case <-time.After(20 * time.Second):
			s.t.Fatal("no event within 20 s")
		}
	}
}

// toggle switches a flag in development through the admin API.
func toggle(t *testing.T, ts *testServer, name string, on bool) {
	t.Helper()
	verb := "off"
	if on {
		verb = "on"
	}
	ts.admin("POST", "/api/admin/projects/default/features/"+name+"/environments/development/"+verb, nil).must(t, http.StatusOK)
}

func revisionOf(t *testing.T, m sseMessage) int64 {
	t.Helper()
	n, err := strconv.ParseInt(m.ID, 10, 64)
	if err != nil || n <= 0 {
		t.Fatalf("message id %q is not a revision", m.ID)
	}
	return n
}

func TestStreamingHydrationThenChanges(t *testing.T) {
	ts := newPushTestServer(t, Config{})
	seedFlag(t, ts, "checkout", store.Strategy{Name: "default"})
	s, _ := openStream(t, ts, testClientToken)
	if ct := s.res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type %q", ct)
	}
	first := s.next()
	evs := first.events(t)
	if first.Event != "unleash-connected" || len(evs) != 1 || evs[0].Type != "hydration" || len(evs[0].Features) != 1 || evs[0].Features[0].Name != "checkout" || !evs[0].Features[0].Enabled {
		t.Fatalf("first message %+v", first)
	}
	if evs[0].Segments == nil || evs[0].EventID != revisionOf(t, first) {
		t.Errorf("hydration %+v, id %s", evs[0], first.ID)
	}
	rev := revisionOf(t, first)

	toggle(t, ts, "checkout", false)
	m := s.next()
	evs = m.events(t)
	if m.Event != "unleash-updated" || len(evs) != 1 || evs[0].Type != "feature-updated" || evs[0].Feature.Name != "checkout" || evs[0].Feature.Enabled {
		t.Fatalf("after toggling off: %+v", m)
	}
	if next := revisionOf(t, m); next <= rev || evs[0].EventID != next {
		t.Errorf("id %d after %d, event id %d", next, rev, evs[0].EventID)
	}

	// A segment and a strategy using it: the segment comes first.
	seg := ts.admin("POST", "/api/admin/segments", map[string]any{"name": "beta", "constraints": []any{
		map[string]any{"contextName": "userId", "operator": "IN", "values": []string{"1"}}}}).must(t, http.StatusCreated)
	segID := int(seg.Object()["id"].(float64))
	m = s.next()
	if evs = m.events(t); len(evs) != 1 || evs[0].Type != "segment-updated" || evs[0].Segment.ID != segID {
		t.Fatalf("after creating a segment: %+v", m)
	}
	ts.admin("POST", "/api/admin/projects/default/features/checkout/environments/development/strategies",
		map[string]any{"name": "default", "segments": []int{segID}}).must(t, http.StatusOK)
	m = s.next()
	if evs = m.events(t); len(evs) != 1 || evs[0].Type != "feature-updated" || len(evs[0].Feature.Strategies) != 2 {
		t.Fatalf("after adding a strategy: %+v", m)
	}

	// Archiving removes the flag; reviving brings it back.
	ts.admin("DELETE", "/api/admin/projects/default/features/checkout", nil).must(t, http.StatusAccepted)
	m = s.next()
	if evs = m.events(t); len(evs) != 1 || evs[0].Type != "feature-removed" || evs[0].FeatureName != "checkout" || evs[0].Project != "default" {
		t.Fatalf("after archiving: %+v", m)
	}
	ts.admin("POST", "/api/admin/archive/revive/checkout", nil).must(t, http.StatusOK)
	m = s.next()
	if evs = m.events(t); len(evs) != 1 || evs[0].Type != "feature-updated" || evs[0].Feature.Name != "checkout" {
		t.Fatalf("after reviving: %+v", m)
	}
}

func TestStreamingLastEventID(t *testing.T) {
	ts := newPushTestServer(t, Config{})
	seedFlag(t, ts, "a", store.Strategy{Name: "default"})
	s, _ := openStream(t, ts, testClientToken)
	old := revisionOf(t, s.next())
	s.close()
	seedFlag(t, ts, "b", store.Strategy{Name: "default"})
	// The server learns of the new revision through the write; a delta
	// request makes it read the state, as a stream would.
	ts.request("GET", "/api/client/delta", testClientToken, nil).must(t, http.StatusOK)

	tests := []struct {
		name, lastID string
		hydration    bool
	}{
		{"known revision replays", strconv.FormatInt(old, 10), false},
		{"no id", "", true},
		{"zero", "0", true},
		{"garbage", "abc", true},
		{"negative", "-4", true},
		{"unknown revision", strconv.FormatInt(old+1000, 10), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s *sseStream
			if tt.lastID == "" {
				s, _ = openStream(t, ts, testClientToken)
			} else {
				s, _ = openStream(t, ts, testClientToken, "Last-Event-ID", tt.lastID)
			}
			m := s.next()
			evs := m.events(t)
			if m.Event != "unleash-connected" {
				t.Fatalf("first event %q", m.Event)
			}
			if tt.hydration {
				if len(evs) != 1 || evs[0].Type != "hydration" || len(evs[0].Features) != 2 {
					t.Fatalf("want a hydration of both flags, got %s", m.Data)
				}
				return
			}
			if len(evs) != 1 || evs[0].Type != "feature-updated" || evs[0].Feature.Name != "b" {
				t.Fatalf("want the replay of b, got %s", m.Data)
			}
			if revisionOf(t, m) <= old {
				t.Errorf("id %s not after %d", m.ID, old)
			}
		})
	}
	// The id of the current revision: connected with no events.
	cur := ts.request("GET", "/api/client/delta", testClientToken, nil).Header.Get("ETag")
	s2, _ := openStream(t, ts, testClientToken, "Last-Event-ID", strings.Trim(cur, `"`))
	if m := s2.next(); m.Event != "unleash-connected" || len(m.events(t)) != 0 {
		t.Fatalf("up-to-date client got %+v", m)
	}
}

func TestStreamingScopeAndAuth(t *testing.T) {
	ts := newPushTestServer(t, Config{})
	ts.admin("POST", "/api/admin/projects", map[string]any{"id": "other", "name": "Other"}).must(t, http.StatusCreated)
	seedFlag(t, ts, "in-default", store.Strategy{Name: "default"})
	tok := ts.admin("POST", "/api/admin/api-tokens", map[string]any{"tokenName": "other-only", "type": "client",
		"environment": "development", "projects": []string{"other"}}).must(t, http.StatusCreated).Object()["secret"].(string)

	s, _ := openStream(t, ts, tok)
	if evs := s.next().events(t); len(evs) != 1 || evs[0].Type != "hydration" || len(evs[0].Features) != 0 {
		t.Fatalf("a token of project other sees %+v", evs)
	}
	// A change outside the scope sends nothing; one inside does.
	toggle(t, ts, "in-default", false)
	ts.admin("POST", "/api/admin/projects/other/features", map[string]any{"name": "in-other"}).must(t, http.StatusCreated)
	m := s.next()
	if evs := m.events(t); len(evs) != 1 || evs[0].Type != "feature-updated" || evs[0].Feature.Name != "in-other" {
		t.Fatalf("the scoped stream got %s", m.Data)
	}

	for _, tt := range []struct {
		name, token string
		want        int
	}{
		{"no token", "", http.StatusUnauthorized},
		{"unknown token", "default:development.nope", http.StatusUnauthorized},
		{"frontend token", testFrontendToken, http.StatusForbidden},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, res := openStream(t, ts, tt.token); res.StatusCode != tt.want {
				t.Errorf("status %d, want %d", res.StatusCode, tt.want)
			}
			if res := ts.request("GET", "/api/client/delta", tt.token, nil); res.Status != tt.want {
				t.Errorf("delta status %d, want %d", res.Status, tt.want)
			}
		})
	}
}

func TestStreamingLimitHeartbeatAndShutdown(t *testing.T) {
	ts := newPushTestServer(t, Config{MaxStreams: 2, StreamHeartbeat: 20 * time.Millisecond})
	a, _ := openStream(t, ts, testClientToken)
	b, _ := openStream(t, ts, testClientToken)
	a.next()
	b.next()
	_, res := openStream(t, ts, testClientToken)
	if res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("third stream: status %d, want 429", res.StatusCode)
	}
	// A heartbeat comment arrives on an idle stream.
	select {
	case m := <-a.msgs:
		if !m.Comment || m.Event != "" {
			t.Fatalf("idle stream got %+v", m)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no heartbeat")
	}
	// A stream ended frees its place.
	b.close()
	for i := 0; ts.srv.OpenStreams() > 1; i++ {
		if i > 2000 {
			t.Fatal("the closed stream is still counted")
		}
		time.Sleep(5 * time.Millisecond)
	}
	c, _ := openStream(t, ts, testClientToken)
	if c == nil {
		t.Fatal("no stream after one closed")
	}
	c.next()
	if metrics := ts.request("GET", "/internal-backstage/prometheus", "", nil).Body; !strings.Contains(string(metrics), "signalbox_client_streams 2") {
		t.Errorf("the open streams are not reported")
	}
	// Shutdown ends the streams, with no fetch-mode event: SDKs take it
	// as an order to poll for good, and must rather reconnect.
	ts.srv.CloseStreams()
	for _, s := range []*sseStream{a, c} {
		for m := range s.msgs {
			if !m.Comment {
				t.Fatalf("at shutdown: %+v", m)
			}
		}
	}
	// Streams asked for while shutting down end at once too.
	if d, res := openStream(t, ts, testClientToken); d != nil {
		for m := range d.msgs {
			if m.Event == "fetch-mode" {
				t.Fatalf("a stream opened at shutdown got %+v", m)
			}
		}
	} else if res.StatusCode != http.StatusOK {
		t.Fatalf("a stream opened at shutdown: status %d", res.StatusCode)
	}
}

func TestDeltaPolling(t *testing.T) {
	ts := newPushTestServer(t, Config{})
	// The first answer is a hydration, even with no flags.
	first := ts.request("GET", "/api/client/delta", testClientToken, nil).must(t, http.StatusOK)
	etag := first.Header.Get("ETag")
	var body struct{ Events []deltaEvent }
	first.Decode(t, &body)
	if etag == "" || len(body.Events) != 1 || body.Events[0].Type != "hydration" || body.Events[0].Features == nil {
		t.Fatalf("first answer %s, ETag %q", first.Body, etag)
	}
	ts.request("GET", "/api/client/delta", testClientToken, nil, "If-None-Match", etag).must(t, http.StatusNotModified)

	seedFlag(t, ts, "team.a", store.Strategy{Name: "default"})
	seedFlag(t, ts, "other.b", store.Strategy{Name: "default"})
	res := ts.request("GET", "/api/client/delta", testClientToken, nil, "If-None-Match", etag).must(t, http.StatusOK)
	res.Decode(t, &body)
	if len(body.Events) != 2 || body.Events[0].Type != "feature-updated" || res.Header.Get("ETag") == etag {
		t.Fatalf("after two flags: %s", res.Body)
	}
	// A filter: a change outside it is 304, the archive inside is removed.
	filtered := ts.request("GET", "/api/client/delta?namePrefix=team.", testClientToken, nil).must(t, http.StatusOK)
	fetag := filtered.Header.Get("ETag")
	toggle(t, ts, "other.b", false)
	ts.request("GET", "/api/client/delta?namePrefix=team.", testClientToken, nil, "If-None-Match", fetag).must(t, http.StatusNotModified)
	ts.admin("DELETE", "/api/admin/projects/default/features/team.a", nil).must(t, http.StatusAccepted)
	res = ts.request("GET", "/api/client/delta?namePrefix=team.", testClientToken, nil, "If-None-Match", fetag).must(t, http.StatusOK)
	res.Decode(t, &body)
	if len(body.Events) != 1 || body.Events[0].Type != "feature-removed" || body.Events[0].FeatureName != "team.a" {
		t.Fatalf("after archiving team.a: %s", res.Body)
	}
	// Unknown revisions get a hydration.
	for _, inm := range []string{`"999999"`, "W/\"1\"", "junk", `""`} {
		res = ts.request("GET", "/api/client/delta", testClientToken, nil, "If-None-Match", inm).must(t, http.StatusOK)
		res.Decode(t, &body)
		if len(body.Events) != 1 || body.Events[0].Type != "hydration" || len(body.Events[0].Features) != 1 {
			t.Errorf("If-None-Match %s: %s", inm, res.Body)
		}
	}
	ts.request("GET", "/api/client/delta?tag=bad", testClientToken, nil).must(t, http.StatusBadRequest)
}

func TestDeltaSegmentsOrder(t *testing.T) {
	to := &store.ClientState{Revision: 2,
		Features: []store.ClientFeature{{Feature: clientapi.Feature{Name: "f", Project: "default", Strategies: []clientapi.Strategy{{Name: "default", Segments: []int{2}}}}}},
		Segments: []clientapi.Segment{{ID: 2, Name: "new"}}}
	from := &store.ClientState{Revision: 1, Segments: []clientapi.Segment{{ID: 1, Name: "old"}}}
	a, _ := newDeltaState(from)
	b, _ := newDeltaState(to)
	out, n := appendDelta(nil, a, b, clientQuery{}, 2)
	var evs []deltaEvent
	if err := json.Unmarshal(append(append([]byte("["), out...), ']'), &evs); err != nil || n != 3 {
		t.Fatalf("%s: %v", out, err)
	}
	got := []string{evs[0].Type, evs[1].Type, evs[2].Type}
	want := []string{"segment-updated", "feature-updated", "segment-removed"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("order %v, want %v", got, want)
	}
}

func FuzzPushRequests(f *testing.F) {
	ts := newPushTestServer(f, Config{})
	srv := ts.srv
	ctx := withPrincipal(context.Background(), &Principal{Token: &store.APIToken{TokenName: "test"}})
	if err := srv.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		_, err := tx.CreateFeature(ctx, store.Feature{Name: "f", Project: store.DefaultProject, Type: "release"})
		return []store.Event{{Type: "feature-created", Project: store.DefaultProject, FeatureName: "f"}}, err
	}); err != nil {
		f.Fatal(err)
	}
	for _, seed := range [][2]string{{"1", ""}, {`W/"2", "3"`, "project=default"}, {"", "namePrefix=f&tag=a:b"}, {"99999999999999999999", "tag=x"}, {"-1", "%zz"}} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, id, query string) {
		rev := parseRevision(id)
		if rev < 0 {
			t.Fatalf("parseRevision(%q) = %d", id, rev)
		}
		req := httptest.NewRequest("GET", "/api/client/delta", nil)
		req.URL.RawQuery = query
		req.Header.Set("Authorization", testClientToken)
		req.Header.Set("If-None-Match", id)
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, req)
		switch rec.Code {
		case http.StatusOK:
			var body struct {
				Events []json.RawMessage `json:"events"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || len(body.Events) == 0 {
				t.Fatalf("200 with %s", rec.Body)
			}
		case http.StatusNotModified, http.StatusBadRequest:
		default:
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	})
}

func TestDeltaHistoryBounds(t *testing.T) {
	ts := newPushTestServer(t, Config{})
	for _, name := range []string{"a", "b", "c"} {
		seedFlag(t, ts, name, store.Strategy{Name: "default"})
	}
	var etags []string
	on := true
	for range maxDeltaHistory + 5 {
		on = !on
		toggle(t, ts, "a", on)
		etags = append(etags, ts.request("GET", "/api/client/delta", testClientToken, nil).must(t, http.StatusOK).Header.Get("ETag"))
	}
	kind := func(inm string) string {
		var body struct{ Events []deltaEvent }
		ts.request("GET", "/api/client/delta", testClientToken, nil, "If-None-Match", inm).must(t, http.StatusOK).Decode(t, &body)
		return body.Events[0].Type
	}
	if got := kind(etags[0]); got != "hydration" {
		t.Errorf("a revision past the history: %s, want hydration", got)
	}
	if got := kind(etags[len(etags)-2]); got != "feature-updated" {
		t.Errorf("a recent revision: %s, want feature-updated", got)
	}
	// Unchanged flags are shared between the states: the history holds
	// far less than its number of full copies.
	dh := ts.srv.deltas.history(store.EnvDevelopment)
	dh.mu.Lock()
	defer dh.mu.Unlock()
	n := len(dh.entries)
	last := dh.entries[n-1].state
	if n != maxDeltaHistory || &last.features[1].raw[0] != &dh.entries[0].state.features[1].raw[0] {
		t.Errorf("%d entries; flag b's encoding is not shared", n)
	}
	alone := *last
	alone.share(nil)
	if last.size >= alone.size {
		t.Errorf("a state after one toggle costs %d bytes, as much as one sharing nothing (%d)", last.size, alone.size)
	}
}

// TestStreamingOutlivesWriteTimeout: an HTTP server's WriteTimeout, meant
// for ordinary answers, does not cut a stream.
func TestStreamingOutlivesWriteTimeout(t *testing.T) {
	ts := newPushTestServer(t, Config{StreamHeartbeat: 20 * time.Millisecond})
	hs := httptest.NewUnstartedServer(ts.srv.Handler())
	// The binary's HTTP server sets both timeouts; neither may end a stream.
	hs.Config.WriteTimeout = 100 * time.Millisecond
	hs.Config.ReadTimeout = 100 * time.Millisecond
	hs.Start()
	t.Cleanup(hs.Close)
	t.Cleanup(ts.srv.CloseStreams)
	ts.url = hs.URL
	s, _ := openStream(t, ts, testClientToken)
	s.next()
	// Heartbeats keep arriving well past the write timeout.
	end := time.Now().Add(500 * time.Millisecond)
	for time.Now().Before(end) {
		select {
		case _, ok := <-s.msgs:
			if !ok {
				t.Fatal("the stream ended")
			}
		case <-time.After(20 * time.Second):
			t.Fatal("no heartbeat")
		}
	}
	seedFlag(t, ts, "late", store.Strategy{Name: "default"})
	if m := s.next(); m.Event != "unleash-updated" {
		t.Fatalf("after the write timeout: %+v", m)
	}
}
