package server

import (
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/store"
)

// segmentScope is a database with three segments: home, used by a flag of
// the default project; away, used only by a flag of project "away"; and
// spare, used by none. allDev is a client token of every project in
// development; testClientToken is one of the default project.
type segmentScope struct {
	ts                *testServer
	home, away, spare int
	allDev            string
}

func newSegmentScope(t *testing.T, ts *testServer) segmentScope {
	t.Helper()
	sc := segmentScope{ts: ts}
	segment := func(name string) int {
		res := ts.admin("POST", "/api/admin/segments", map[string]any{"name": name, "constraints": []any{
			map[string]any{"contextName": "userId", "operator": "IN", "values": []string{name + "-user"}}}}).must(t, http.StatusCreated)
		return int(res.Object()["id"].(float64))
	}
	sc.home, sc.away, sc.spare = segment("home"), segment("away"), segment("spare")
	ts.admin("POST", "/api/admin/projects", map[string]any{"id": "away", "name": "Away"}).must(t, http.StatusCreated)
	seedFlag(t, ts, "home.flag", store.Strategy{Name: "default", Segments: []int{sc.home}})
	plantFlag(t, ts, "away", "away.flag")
	plantStrategy(t, ts, store.Strategy{Feature: "away.flag", Name: "default", Segments: []int{sc.away}})
	var tok TokenJSON
	ts.admin("POST", "/api/admin/api-tokens", map[string]any{"type": "client", "tokenName": "all-dev",
		"environment": "development", "projects": []string{"*"}}).must(t, http.StatusCreated).Decode(t, &tok)
	sc.allDev = tok.Secret
	return sc
}

func segmentIDs(list []clientapi.Segment) []int {
	ids := []int{}
	for _, s := range list {
		ids = append(ids, s.ID)
	}
	slices.Sort(ids)
	return ids
}

// updateSegment changes a segment's values through the admin API.
func (sc segmentScope) updateSegment(t *testing.T, id int, value string) {
	t.Helper()
	res := sc.ts.admin("PUT", fmt.Sprintf("/api/admin/segments/%d", id), map[string]any{"name": fmt.Sprint("segment-", id), "constraints": []any{
		map[string]any{"contextName": "userId", "operator": "IN", "values": []string{value}}}})
	if res.Status >= 300 {
		t.Fatalf("updating segment %d: %d %s", id, res.Status, res.Body)
	}
}

// A token of some projects gets the segments its flags use and no other,
// in every client answer; a token of every project gets all of them.
func TestClientSegmentsOfTheTokensScope(t *testing.T) {
	for _, db := range []struct {
		name string
		open func(*testing.T) *testServer
	}{{"sqlite", newTestServer}, {"postgres", newPostgresTestServer}} {
		t.Run(db.name, func(t *testing.T) { clientSegmentsFlow(t, newSegmentScope(t, db.open(t))) })
	}
}

func clientSegmentsFlow(t *testing.T, sc segmentScope) {
	ts := sc.ts
	all := []int{sc.home, sc.away, sc.spare}
	for _, tc := range []struct {
		token, query string
		want         []int
	}{
		{testClientToken, "", []int{sc.home}},
		{sc.allDev, "", all},
		{sc.allDev, "?project=away", []int{sc.away}},
		{sc.allDev, "?project=default&project=away", []int{sc.home, sc.away}},
		{testClientToken, "?project=away", []int{}},
	} {
		var payload clientapi.Features
		ts.request("GET", "/api/client/features"+tc.query, tc.token, nil).must(t, http.StatusOK).Decode(t, &payload)
		if got := segmentIDs(payload.Segments); !slices.Equal(got, tc.want) {
			t.Errorf("features%s with %.12s…: segments %v, want %v", tc.query, tc.token, got, tc.want)
		}
		var body struct{ Events []deltaEvent }
		ts.request("GET", "/api/client/delta"+tc.query, tc.token, nil).must(t, http.StatusOK).Decode(t, &body)
		if len(body.Events) != 1 || body.Events[0].Type != "hydration" || !slices.Equal(segmentIDs(body.Events[0].Segments), tc.want) {
			t.Errorf("delta%s with %.12s…: %+v, want segments %v", tc.query, tc.token, body.Events, tc.want)
		}
	}

	t.Cleanup(ts.srv.CloseStreams) // before the test server waits for its requests
	s, _ := openStream(t, ts, testClientToken)
	first := s.next()
	if evs := first.events(t); len(evs) != 1 || !slices.Equal(segmentIDs(evs[0].Segments), []int{sc.home}) {
		t.Fatalf("stream hydration %+v", first)
	}
	wide, _ := openStream(t, ts, sc.allDev)
	if evs := wide.next().events(t); len(evs) != 1 || !slices.Equal(segmentIDs(evs[0].Segments), all) {
		t.Fatalf("hydration of the token of every project: %+v", evs)
	}
	delta := ts.request("GET", "/api/client/delta", testClientToken, nil).must(t, http.StatusOK)
	features := ts.request("GET", "/api/client/features", testClientToken, nil).must(t, http.StatusOK)

	// Segments the scope does not use change: nothing for it.
	sc.updateSegment(t, sc.away, "moved")
	sc.updateSegment(t, sc.spare, "moved")
	ts.request("GET", "/api/client/delta", testClientToken, nil, "If-None-Match", delta.Header.Get("ETag")).must(t, http.StatusNotModified)
	ts.request("GET", "/api/client/features", testClientToken, nil, "If-None-Match", features.Header.Get("ETag")).must(t, http.StatusNotModified)
	var seen []int
	for len(seen) < 2 {
		m := wide.next()
		for _, ev := range m.events(t) {
			if ev.Type != "segment-updated" {
				t.Fatalf("the token of every project, after two segments changed: %+v", m)
			}
			seen = append(seen, ev.Segment.ID)
		}
	}
	if slices.Sort(seen); !slices.Equal(seen, []int{sc.away, sc.spare}) {
		t.Errorf("the token of every project saw segments %v change", seen)
	}

	// Its own segment changes: that segment only.
	sc.updateSegment(t, sc.home, "moved")
	m := s.next()
	if evs := m.events(t); len(evs) != 1 || evs[0].Type != "segment-updated" || evs[0].Segment.ID != sc.home {
		t.Fatalf("after the scope's segment changed: %+v", m)
	}

	// A flag of the scope starts using the spare segment: it comes into
	// view before the flag that uses it.
	ts.admin("POST", "/api/admin/projects/default/features/home.flag/environments/development/strategies",
		map[string]any{"name": "default", "segments": []int{sc.spare}}).must(t, http.StatusOK)
	m = s.next()
	evs := m.events(t)
	if len(evs) != 2 || evs[0].Type != "segment-updated" || evs[0].Segment.ID != sc.spare || evs[1].Type != "feature-updated" {
		t.Fatalf("after a flag took the spare segment: %+v", m)
	}
	var payload clientapi.Features
	ts.request("GET", "/api/client/features", testClientToken, nil).must(t, http.StatusOK).Decode(t, &payload)
	if got := segmentIDs(payload.Segments); !slices.Equal(got, []int{sc.home, sc.spare}) {
		t.Errorf("features after the flag took the spare segment: segments %v", got)
	}
}
