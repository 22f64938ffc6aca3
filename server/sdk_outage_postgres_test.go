package server

import (
	"net/http"
	"testing"
	"time"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/internal/pgtest"
	"github.com/signalbox/signalbox/store"
)

// While PostgreSQL is down, a server that heard of a change it had not yet
// read keeps answering every SDK read from the last state it read, with
// that state's ETags; once the database is back the change arrives, on
// polls and on a stream opened during the outage.
func TestSDKReadsDuringOutagePostgres(t *testing.T) {
	db := pgtest.StartStoppable(t)
	a := runInstance(t, db.URL, time.Hour)
	b := runInstance(t, db.URL, 50*time.Millisecond)
	a.t, b.t = t, t
	t.Cleanup(b.srv.CloseStreams) // before the test server waits for its requests
	seedFlag(t, a.testServer, "sdk.flag", store.Strategy{Name: "default"})
	awaitFlag(t, b, "sdk.flag")
	etag := b.request("GET", "/api/client/features", testClientToken, nil).must(t, http.StatusOK).Header.Get("ETag")
	deltaETag := b.request("GET", "/api/client/delta", testClientToken, nil).must(t, http.StatusOK).Header.Get("ETag")
	frontendETag := b.request("GET", "/api/frontend", testFrontendToken, nil).must(t, http.StatusOK).Header.Get("ETag")

	toggle(t, a.testServer, "sdk.flag", false)
	rev := a.srv.revision.Load()
	deadline := time.Now().Add(propagationLimit)
	for b.srv.revision.Load() < rev {
		if time.Now().After(deadline) {
			t.Fatalf("instance b never heard of revision %d", rev)
		}
		time.Sleep(5 * time.Millisecond)
	}
	db.Stop(t)

	var payload clientapi.Features
	res := b.request("GET", "/api/client/features", testClientToken, nil).must(t, http.StatusOK)
	res.Decode(t, &payload)
	if res.Header.Get("ETag") != etag || len(payload.Features) != 1 || !payload.Features[0].Enabled {
		t.Errorf("features during the outage: ETag %s (was %s), %s", res.Header.Get("ETag"), etag, res.Body)
	}
	b.request("GET", "/api/client/features", testClientToken, nil, "If-None-Match", etag).must(t, http.StatusNotModified)
	b.request("GET", "/api/client/features", testClientToken, nil, "Accept-Encoding", "gzip").must(t, http.StatusOK)
	b.request("GET", "/api/client/delta", testClientToken, nil, "If-None-Match", deltaETag).must(t, http.StatusNotModified)
	var body struct{ Events []deltaEvent }
	b.request("GET", "/api/client/delta", testClientToken, nil).must(t, http.StatusOK).Decode(t, &body)
	if len(body.Events) != 1 || body.Events[0].Type != "hydration" || len(body.Events[0].Features) != 1 || !body.Events[0].Features[0].Enabled {
		t.Errorf("delta hydration during the outage: %+v", body.Events)
	}
	b.request("GET", "/api/frontend", testFrontendToken, nil, "If-None-Match", frontendETag).must(t, http.StatusNotModified)
	b.request("GET", "/api/frontend", testFrontendToken, nil).must(t, http.StatusOK)
	s, res2 := openStream(t, b.testServer, testClientToken)
	if s == nil {
		t.Fatalf("stream during the outage: %d", res2.StatusCode)
	}
	first := s.next()
	if evs := first.events(t); first.Event != "unleash-connected" || len(evs) != 1 || len(evs[0].Features) != 1 || !evs[0].Features[0].Enabled {
		t.Fatalf("stream hydration during the outage: %+v", first)
	}

	db.Start(t)
	m := s.next()
	if evs := m.events(t); m.Event != "unleash-updated" || len(evs) != 1 || evs[0].Type != "feature-updated" || evs[0].Feature.Enabled {
		t.Fatalf("stream after the outage: %+v", m)
	}
	deadline = time.Now().Add(propagationLimit)
	for {
		res := b.request("GET", "/api/client/features", testClientToken, nil, "If-None-Match", etag)
		if res.Status == http.StatusOK {
			res.Decode(t, &payload)
			if res.Header.Get("ETag") == etag || payload.Features[0].Enabled {
				t.Fatalf("after the outage: ETag %s, %s", res.Header.Get("ETag"), res.Body)
			}
			break
		}
		res.must(t, http.StatusNotModified)
		if time.Now().After(deadline) {
			t.Fatal("the change never arrived after the outage")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
