package server

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/signalbox/signalbox/internal/pgtest"
	"github.com/signalbox/signalbox/store"
	"github.com/signalbox/signalbox/store/sqlstore"
)

// newResumeTestServer is a server with cfg over st (shared with other
// servers, as a cluster or a restart would).
func newResumeTestServer(t *testing.T, st store.Store, cfg Config) *testServer {
	t.Helper()
	ts := newTestServerWith(t, st, cfg)
	t.Cleanup(ts.srv.CloseStreams)
	return ts
}

func openResumeStore(t *testing.T) store.Store {
	t.Helper()
	st, err := sqlstore.Open(context.Background(), filepath.Join(t.TempDir(), "signalbox.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// streamOnce opens a stream with the identifying headers, reads its first
// message, ends it and has the server write what it saw.
func streamOnce(t *testing.T, ts *testServer, header ...string) {
	t.Helper()
	s, res := openStream(t, ts, testClientToken, header...)
	if s == nil {
		t.Fatalf("stream refused: %d", res.StatusCode)
	}
	if m := s.next(); m.Event != "unleash-connected" {
		t.Fatalf("first message %+v", m)
	}
	s.close()
	ts.srv.syncStreamedClients(context.Background())
}

// poll GETs /api/client/features with the headers; etag "" sends none.
func poll(ts *testServer, etag string, header ...string) response {
	if etag != "" {
		header = append(header, "If-None-Match", etag)
	}
	return ts.request("GET", "/api/client/features", testClientToken, nil, header...)
}

func conn(id string) []string { return []string{"Unleash-Connection-Id", id} }

// TestFetchModeHeader: streamed (the default) tells only the instances
// that streamed, all tells every poll, off none; on delta polls too.
func TestFetchModeHeader(t *testing.T) {
	for _, tt := range []struct {
		mode             AdvertiseMode
		streamed, polled string
	}{
		{"", "streaming", ""},
		{AdvertiseStreamed, "streaming", ""},
		{AdvertiseAll, "streaming", "streaming"},
		{AdvertiseOff, "", ""},
	} {
		ts := newResumeTestServer(t, openResumeStore(t), Config{AdvertiseStreaming: tt.mode})
		for _, path := range []string{"/api/client/features", "/api/client/delta"} {
			if got := ts.request("GET", path, testClientToken, nil, conn("streamer")...).must(t, http.StatusOK).Header.Get("fetch-mode"); got != tt.polled {
				t.Errorf("%q, %s before any stream: fetch-mode %q, want %q", tt.mode, path, got, tt.polled)
			}
		}
		streamOnce(t, ts, conn("streamer")...)
		for _, path := range []string{"/api/client/features", "/api/client/delta"} {
			for _, c := range []struct{ id, want string }{{"streamer", tt.streamed}, {"poller", tt.polled}} {
				got := ts.request("GET", path, testClientToken, nil, conn(c.id)...).must(t, http.StatusOK).Header.Get("fetch-mode")
				if got != c.want {
					t.Errorf("%q, %s, %s: fetch-mode %q, want %q", tt.mode, path, c.id, got, c.want)
				}
			}
		}
	}
	if _, err := New(context.Background(), openResumeStore(t), Config{AdvertiseStreaming: "sometimes"}); err == nil {
		t.Error("an unknown mode was accepted")
	}
	for v, want := range map[string]AdvertiseMode{"true": AdvertiseAll, "FALSE": AdvertiseOff, "streamed": AdvertiseStreamed, "all": AdvertiseAll, "off": AdvertiseOff} {
		if got, err := ParseAdvertiseMode(v); err != nil || got != want {
			t.Errorf("ParseAdvertiseMode(%q) = %q, %v; want %q", v, got, err, want)
		}
	}
}

// TestFetchModeOnceOnMatchingETag: an SDK reads fetch-mode only on a 200,
// so an instance that streamed gets one 200 even when its ETag matches,
// then 304s, until it has streamed again. Instances are told apart by
// connection id, or by application and instance id without one.
func TestFetchModeOnceOnMatchingETag(t *testing.T) {
	ts := newResumeTestServer(t, openResumeStore(t), Config{})
	seedFlag(t, ts, "checkout", store.Strategy{Name: "default"})
	etag := poll(ts, "").must(t, http.StatusOK).Header.Get("ETag")
	byInstance := []string{"Unleash-Appname", "shop", "Unleash-Instanceid", "shop-1"}
	streamOnce(t, ts, conn("c1")...)
	streamOnce(t, ts, byInstance...)

	for _, who := range [][]string{conn("c1"), byInstance} {
		res := poll(ts, etag, who...).must(t, http.StatusOK)
		if res.Header.Get("fetch-mode") != "streaming" || res.Header.Get("ETag") != etag || !strings.Contains(string(res.Body), "checkout") {
			t.Errorf("%v, first poll: fetch-mode %q, ETag %q, body %s", who, res.Header.Get("fetch-mode"), res.Header.Get("ETag"), res.Body)
		}
		if res := poll(ts, etag, who...).must(t, http.StatusNotModified); res.Header.Get("fetch-mode") != "streaming" {
			t.Errorf("%v, second poll: fetch-mode %q", who, res.Header.Get("fetch-mode"))
		}
	}
	// Others: plain 304s.
	for _, who := range [][]string{conn("c2"), {"Unleash-Appname", "shop", "Unleash-Instanceid", "shop-2"}, nil} {
		if res := poll(ts, etag, who...).must(t, http.StatusNotModified); res.Header.Get("fetch-mode") != "" {
			t.Errorf("%v: fetch-mode %q", who, res.Header.Get("fetch-mode"))
		}
	}
	// Having streamed again, the instance gets its 200 once more.
	streamOnce(t, ts, conn("c1")...)
	poll(ts, etag, conn("c1")...).must(t, http.StatusOK)
	poll(ts, etag, conn("c1")...).must(t, http.StatusNotModified)

	// Ids past the bound are not remembered.
	long := strings.Repeat("x", streamedIDMaxLen+1)
	streamOnce(t, ts, conn(long)...)
	if res := poll(ts, etag, conn(long)...).must(t, http.StatusNotModified); res.Header.Get("fetch-mode") != "" {
		t.Errorf("a too long connection id was remembered")
	}
}

// TestFetchModeAfterRestart: another server over the same database (a
// restart, or a second instance) knows the instances that streamed from
// its first poll, and gives each its 200 once; on SQLite and PostgreSQL.
func TestFetchModeAfterRestart(t *testing.T) {
	for name, open := range map[string]func(t *testing.T) store.Store{
		"sqlite": openResumeStore,
		"postgres": func(t *testing.T) store.Store {
			st, err := sqlstore.Open(context.Background(), pgtest.NewDatabase(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		},
	} {
		t.Run(name, func(t *testing.T) {
			st := open(t)
			first := newResumeTestServer(t, st, Config{})
			etag := poll(first, "").must(t, http.StatusOK).Header.Get("ETag")
			streamOnce(t, first, conn("before-restart")...)
			first.srv.CloseStreams()

			second := newResumeTestServer(t, st, Config{})
			if res := poll(second, etag, conn("before-restart")...).must(t, http.StatusOK); res.Header.Get("fetch-mode") != "streaming" {
				t.Errorf("after the restart: fetch-mode %q", res.Header.Get("fetch-mode"))
			}
			poll(second, etag, conn("before-restart")...).must(t, http.StatusNotModified)
			if res := poll(second, etag, conn("never-streamed")...).must(t, http.StatusNotModified); res.Header.Get("fetch-mode") != "" {
				t.Errorf("a polling SDK got fetch-mode %q", res.Header.Get("fetch-mode"))
			}
			// Rows older than a day are forgotten.
			if err := st.Update(context.Background(), func(tx store.Tx) error {
				return tx.RecordStreamedClients(context.Background(), nil, time.Now().Add(time.Hour), 10, 10)
			}); err != nil {
				t.Fatal(err)
			}
			second.srv.syncStreamedClients(context.Background())
			if res := poll(second, etag, conn("before-restart")...).must(t, http.StatusNotModified); res.Header.Get("fetch-mode") != "" {
				t.Errorf("an expired instance got fetch-mode %q", res.Header.Get("fetch-mode"))
			}
		})
	}
}

// TestFetchModeAtStreamLimit: a server at its limit answers streams 429
// (which sends the SDK to polling at once) and tells polls fetch-mode:
// polling, with no 200 in place of a 304; with room again it invites
// them back.
func TestFetchModeAtStreamLimit(t *testing.T) {
	ts := newResumeTestServer(t, openResumeStore(t), Config{MaxStreams: 1})
	etag := poll(ts, "").must(t, http.StatusOK).Header.Get("ETag")
	streamOnce(t, ts, conn("c1")...)
	hold, _ := openStream(t, ts, testClientToken, conn("c2")...)
	hold.next()
	if _, res := openStream(t, ts, testClientToken, conn("c1")...); res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("past the limit: status %d, want 429", res.StatusCode)
	}
	if res := poll(ts, etag, conn("c1")...).must(t, http.StatusNotModified); res.Header.Get("fetch-mode") != "polling" {
		t.Errorf("at the limit: fetch-mode %q", res.Header.Get("fetch-mode"))
	}
	hold.close()
	for i := 0; ts.srv.OpenStreams() > 0; i++ {
		if i > 2000 {
			t.Fatal("the closed stream is still counted")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if res := poll(ts, etag, conn("c1")...).must(t, http.StatusOK); res.Header.Get("fetch-mode") != "streaming" {
		t.Errorf("with room again: fetch-mode %q", res.Header.Get("fetch-mode"))
	}
}

// TestStreamedKey: the instance a request names, within bounds.
func TestStreamedKey(t *testing.T) {
	h := http.Header{}
	if k := streamedKey(h); k != "" {
		t.Errorf("no headers: %q", k)
	}
	h.Set("unleash-appname", "a")
	if k := streamedKey(h); k != "" {
		t.Errorf("application without instance: %q", k)
	}
	h.Set("UNLEASH-INSTANCEID", "i")
	if k := streamedKey(h); k != "i:a\ni" {
		t.Errorf("application and instance: %q", k)
	}
	h.Set("unleash-connection-id", "c")
	if k := streamedKey(h); k != "c:c" {
		t.Errorf("connection id: %q", k)
	}
	h.Set("unleash-connection-id", strings.Repeat("c", streamedIDMaxLen+1))
	if k := streamedKey(h); k != "" {
		t.Errorf("too long: %q", k)
	}
}
