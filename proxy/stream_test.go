package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/signalbox/signalbox/clientapi"
)

// fastTiming makes reconnects quick and keeps a proxy that fell back to
// polling there unless a test shortens retryMin.
var fastTiming = streamTiming{
	reconnectMin: 5 * time.Millisecond,
	reconnectMax: 20 * time.Millisecond,
	maxFails:     3,
	failWindow:   time.Minute,
	retryMin:     time.Hour,
	retryMax:     time.Hour,
	readTimeout:  5 * time.Second,
}

// streamUpstream is a client API on loopback that speaks the streaming
// protocol: polls of /client/features and Server-Sent Events on
// /client/streaming, starting with a hydration of the same state.
type streamUpstream struct {
	srv *httptest.Server

	mu    sync.Mutex
	state clientapi.Features
	rev   int64
	// streamStatus, when set, answers stream requests with that status.
	streamStatus int
	// dropAfterHydration closes each stream right after its hydration.
	dropAfterHydration bool
	// first, when set, replaces the opening message of every stream.
	first string
	// pollMode is the fetch-mode header of poll answers.
	pollMode string
	// log records "stream" and "poll" in the order the requests came.
	log     []string
	streams []*http.Request
	live    map[chan string]struct{}
}

func newStreamUpstream(t testing.TB) *streamUpstream {
	u := &streamUpstream{live: map[chan string]struct{}{}, rev: 1}
	u.state = clientapi.Features{Version: 2, Features: []clientapi.Feature{
		{Name: "on", Enabled: true, Strategies: []clientapi.Strategy{{Name: "default"}}},
		{Name: "off", Enabled: false, Strategies: []clientapi.Strategy{{Name: "default"}}},
	}, Segments: []clientapi.Segment{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/client/features", u.poll)
	mux.HandleFunc("GET /api/client/streaming", u.stream)
	mux.HandleFunc("POST /api/client/", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusAccepted)
	})
	u.srv = httptest.NewServer(mux)
	t.Cleanup(func() {
		u.drop()
		u.srv.Close()
	})
	return u
}

func (u *streamUpstream) url() string { return u.srv.URL + "/api" }

func (u *streamUpstream) poll(w http.ResponseWriter, r *http.Request) {
	u.mu.Lock()
	u.log = append(u.log, "poll")
	body, _ := json.Marshal(u.state)
	mode, rev := u.pollMode, u.rev
	u.mu.Unlock()
	if mode != "" {
		w.Header().Set("fetch-mode", mode)
	}
	w.Header().Set("ETag", fmt.Sprintf(`"%d"`, rev))
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

func (u *streamUpstream) stream(w http.ResponseWriter, r *http.Request) {
	u.mu.Lock()
	u.log = append(u.log, "stream")
	u.streams = append(u.streams, r.Clone(context.Background()))
	status, drop, first := u.streamStatus, u.dropAfterHydration, u.first
	if first == "" {
		first = sseMessage(sseConnected, u.rev, clientapi.DeltaEvent{
			Type: clientapi.EventHydration, EventID: u.rev, Features: u.state.Features, Segments: u.state.Segments,
		})
	}
	ch := make(chan string, 16)
	if status == 0 && !drop {
		u.live[ch] = struct{}{}
	}
	u.mu.Unlock()
	if status != 0 {
		http.Error(w, "no stream here", status)
		return
	}
	defer func() {
		u.mu.Lock()
		delete(u.live, ch)
		u.mu.Unlock()
	}()
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	flush := w.(http.Flusher).Flush
	_, _ = io.WriteString(w, ": hello\n\n"+first)
	flush()
	if drop {
		return
	}
	for {
		select {
		case msg := <-ch:
			if msg == "" {
				return
			}
			_, _ = io.WriteString(w, msg)
			flush()
		case <-r.Context().Done():
			return
		}
	}
}

// sseMessage encodes delta events as one SSE message.
func sseMessage(name string, id int64, events ...clientapi.DeltaEvent) string {
	data, err := json.Marshal(clientapi.Delta{Events: events})
	if err != nil {
		panic(err)
	}
	return fmt.Sprintf("event: %s\nid: %d\ndata: %s\n\n", name, id, data)
}

// send writes a raw message to every open stream.
func (u *streamUpstream) send(msg string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	for ch := range u.live {
		ch <- msg
	}
}

// drop closes every open stream.
func (u *streamUpstream) drop() { u.send("") }

func (u *streamUpstream) set(fn func(u *streamUpstream)) {
	u.mu.Lock()
	defer u.mu.Unlock()
	fn(u)
}

// requests returns the log of requests.
func (u *streamUpstream) requests() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return slices.Clone(u.log)
}

func (u *streamUpstream) count(kind string) int {
	n := 0
	for _, k := range u.requests() {
		if k == kind {
			n++
		}
	}
	return n
}

func (u *streamUpstream) streamRequest(i int) *http.Request {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.streams[i]
}

// openStreams counts the streams that wait for messages.
func (u *streamUpstream) openStreams() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.live)
}

// streamConfig is testConfig following u, with streaming as given.
func streamConfig(t testing.TB, u *streamUpstream, streaming *bool) Config {
	cfg := testConfig(t, u.url())
	cfg.ServiceStreaming = streaming
	return cfg
}

// startStreamProxy is startProxy with the streaming timings replaced
// (fastTiming when timing is nil).
func startStreamProxy(t testing.TB, cfg Config, timing *streamTiming) *harness {
	t.Helper()
	if timing == nil {
		timing = new(fastTiming)
	}
	logs := &syncBuffer{}
	cfg.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	p, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	p.streamTiming = timing
	srv := httptest.NewServer(p.Handler())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = p.Run(ctx)
	}()
	stop := func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Errorf("Run did not return after cancel")
		}
	}
	t.Cleanup(func() {
		stop()
		srv.Close()
	})
	return &harness{p: p, srv: srv, stop: stop, logs: logs}
}

// streamEnabled lists the flags the proxy answers as on for ctx (a JSON
// context, "" for none).
func streamEnabled(t testing.TB, h *harness, ctx string) []string {
	t.Helper()
	body := `{}`
	if ctx != "" {
		body = `{"context":` + ctx + `}`
	}
	resp, b := h.do(t, "POST", "/proxy", body)
	expectStatus(t, resp, b, http.StatusOK)
	return names(toggles(t, b))
}

func TestStreamFollowsUpstream(t *testing.T) {
	u := newStreamUpstream(t)
	cfg := streamConfig(t, u, new(true))
	// Polls could not deliver a change within the test.
	cfg.RefreshInterval = time.Hour
	h := startStreamProxy(t, cfg, nil)
	h.waitReady(t)
	if got := streamEnabled(t, h, ""); !slices.Equal(got, []string{"on"}) {
		t.Fatalf("after hydration: %v", got)
	}
	req := u.streamRequest(0)
	for name, want := range map[string]string{
		"Authorization": testToken, "Accept": "text/event-stream", "Unleash-Appname": testAppName, "Last-Event-Id": "",
	} {
		if got := req.Header.Get(name); got != want {
			t.Errorf("stream request header %s = %q, want %q", name, got, want)
		}
	}
	waitFor(t, "stream open", func() bool { return u.openStreams() == 1 })

	steps := []struct {
		name   string
		msg    string
		ctx    string
		enable []string
	}{
		{"feature added", sseMessage(sseUpdated, 2, clientapi.DeltaEvent{Type: clientapi.EventFeatureUpdated, EventID: 2,
			Feature: &clientapi.Feature{Name: "added", Enabled: true, Strategies: []clientapi.Strategy{{Name: "default"}}}}),
			"", []string{"on", "added"}},
		{"segment before the flag that needs it", sseMessage(sseUpdated, 4,
			clientapi.DeltaEvent{Type: clientapi.EventSegmentUpdated, EventID: 3, Segment: &clientapi.Segment{ID: 9, Constraints: []clientapi.Constraint{
				{ContextName: "userId", Operator: "IN", Values: []string{"alice"}}}}},
			clientapi.DeltaEvent{Type: clientapi.EventFeatureUpdated, EventID: 4, Feature: &clientapi.Feature{Name: "alice-only", Enabled: true,
				Strategies: []clientapi.Strategy{{Name: "default", Segments: []int{9}}}}}),
			`{"userId":"alice"}`, []string{"on", "added", "alice-only"}},
		{"anonymous outside the segment", "", "", []string{"on", "added"}},
		{"feature removed", sseMessage(sseUpdated, 5, clientapi.DeltaEvent{Type: clientapi.EventFeatureRemoved, EventID: 5, FeatureName: "on", Project: "default"}),
			"", []string{"added"}},
		{"segment removed", sseMessage(sseUpdated, 6, clientapi.DeltaEvent{Type: clientapi.EventSegmentRemoved, EventID: 6, SegmentID: new(9)}),
			`{"userId":"alice"}`, []string{"added"}},
	}
	for _, step := range steps {
		if step.msg != "" {
			u.send(step.msg)
		}
		var got []string
		waitFor(t, step.name, func() bool {
			got = streamEnabled(t, h, step.ctx)
			return slices.Equal(got, step.enable)
		})
	}

	// The backup holds what the stream built; it is written just after
	// the configuration is installed.
	var savedNames []string
	var saved *clientapi.Features
	waitFor(t, "backup", func() bool {
		raw, err := h.p.storage.Get(context.Background(), h.p.backupKey)
		if err != nil {
			return false
		}
		if saved, err = parseFeatures(raw); err != nil {
			t.Fatalf("backup %s: %v", raw, err)
		}
		savedNames = savedNames[:0]
		for _, f := range saved.Features {
			savedNames = append(savedNames, f.Name)
		}
		return slices.Equal(savedNames, []string{"off", "added", "alice-only"}) && len(saved.Segments) == 0
	})

	// A broken stream is reopened from the last event applied.
	u.drop()
	waitFor(t, "reconnect", func() bool { return u.count("stream") == 2 })
	if got := u.streamRequest(1).Header.Get("Last-Event-ID"); got != "6" {
		t.Errorf("reconnect Last-Event-ID = %q, want 6", got)
	}
	if n := u.count("poll"); n != 0 {
		t.Errorf("%d polls while the stream worked", n)
	}
}

// TestStreamRefusedFallsBackToPolling: the statuses that tell a streaming
// client to poll send the proxy to polling after one try.
func TestStreamRefusedFallsBackToPolling(t *testing.T) {
	for _, status := range []int{http.StatusNotFound, http.StatusTooManyRequests, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotImplemented} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			u := newStreamUpstream(t)
			u.set(func(u *streamUpstream) { u.streamStatus = status })
			h := startStreamProxy(t, streamConfig(t, u, new(true)), nil)
			h.waitReady(t)
			waitFor(t, "polls", func() bool { return u.count("poll") >= 3 })
			if got := u.requests(); got[0] != "stream" || u.count("stream") != 1 {
				t.Errorf("requests %v: want one stream attempt, then polls", got)
			}
			if got := streamEnabled(t, h, ""); !slices.Equal(got, []string{"on"}) {
				t.Errorf("polled configuration: %v", got)
			}
		})
	}
}

// TestBrokenStreamFallsBackToPolling: streams that keep breaking (or
// failing with a server error) are retried, maxFails times, then the proxy
// polls, and tries streaming again once the retry wait has passed.
func TestBrokenStreamFallsBackToPolling(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(u *streamUpstream)
		// resumes: the reconnects carry the last event id.
		resumes bool
	}{
		{"dropped after hydration", func(u *streamUpstream) { u.dropAfterHydration = true }, true},
		{"server error", func(u *streamUpstream) { u.streamStatus = http.StatusServiceUnavailable }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := newStreamUpstream(t)
			u.set(tc.setup)
			timing := fastTiming
			timing.retryMin = 50 * time.Millisecond
			h := startStreamProxy(t, streamConfig(t, u, new(true)), &timing)
			h.waitReady(t)
			waitFor(t, "a retry after polling", func() bool { return u.count("stream") > fastTiming.maxFails })
			got := u.requests()
			want := slices.Repeat([]string{"stream"}, fastTiming.maxFails)
			if !slices.Equal(got[:fastTiming.maxFails+1], append(want, "poll")) {
				t.Errorf("requests %v: want %d streams, then polls", got, fastTiming.maxFails)
			}
			for i := 1; i < fastTiming.maxFails; i++ {
				if id := u.streamRequest(i).Header.Get("Last-Event-ID"); (id == "1") != tc.resumes {
					t.Errorf("reconnect %d: Last-Event-ID %q", i, id)
				}
			}
			// The stream tried after polling starts over.
			if id := u.streamRequest(fastTiming.maxFails).Header.Get("Last-Event-ID"); id != "" {
				t.Errorf("stream after polling sent Last-Event-ID %q", id)
			}
		})
	}
}

// TestFetchModeEvent: "fetch-mode: polling" sends the proxy to polling at
// once; a poll answer with the header "fetch-mode: streaming" brings it
// back without waiting for the retry.
func TestFetchModeEvent(t *testing.T) {
	u := newStreamUpstream(t)
	h := startStreamProxy(t, streamConfig(t, u, new(true)), nil)
	h.waitReady(t)
	waitFor(t, "stream open", func() bool { return u.openStreams() == 1 })
	u.send("event: fetch-mode\ndata: polling\n\n")
	waitFor(t, "polls", func() bool { return u.count("poll") >= 3 })
	if n := u.count("stream"); n != 1 {
		t.Fatalf("%d streams before the upstream offered streaming again", n)
	}
	u.set(func(u *streamUpstream) { u.pollMode = "streaming" })
	waitFor(t, "streaming again", func() bool { return u.openStreams() == 1 && u.count("stream") == 2 })
}

// TestStreamingMode: unset, the proxy streams when a poll answer offers
// it; false, never; tags keep it polling.
func TestStreamingMode(t *testing.T) {
	for _, tc := range []struct {
		name      string
		streaming *bool
		offer     string
		tags      []Tag
		stream    bool
	}{
		{"unset, offered", nil, "streaming", nil, true},
		{"unset, not offered", nil, "", nil, false},
		{"false, offered", new(false), "streaming", nil, false},
		{"unset with tags, offered", nil, "streaming", []Tag{{"team", "a"}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := newStreamUpstream(t)
			u.set(func(u *streamUpstream) { u.pollMode = tc.offer })
			cfg := streamConfig(t, u, tc.streaming)
			cfg.Tags = tc.tags
			h := startStreamProxy(t, cfg, nil)
			h.waitReady(t)
			if tc.stream {
				waitFor(t, "stream", func() bool { return u.openStreams() == 1 })
				if got := u.requests(); got[0] != "poll" {
					t.Errorf("requests %v: want a poll first", got)
				}
				return
			}
			// Every poll answer offers streaming: a proxy that would
			// follow the offer has done so by the second poll.
			waitFor(t, "polls", func() bool { return u.count("poll") >= 3 })
			if n := u.count("stream"); n != 0 {
				t.Errorf("%d streams", n)
			}
		})
	}
}

func TestStreamingWithTagsIsInvalid(t *testing.T) {
	cfg := testConfig(t, "http://up.example/api")
	cfg.ServiceStreaming = new(true)
	cfg.Tags = []Tag{{"team", "a"}}
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "tags") {
		t.Errorf("Validate = %v", err)
	}
}

// TestStreamStartsOverOnBadEvents: an event that cannot be applied makes
// the proxy reconnect without Last-Event-ID, so that it gets a hydration;
// a silent stream is replaced too.
func TestStreamStartsOverOnBadEvents(t *testing.T) {
	t.Run("unreadable data", func(t *testing.T) {
		u := newStreamUpstream(t)
		h := startStreamProxy(t, streamConfig(t, u, new(true)), nil)
		h.waitReady(t)
		waitFor(t, "stream open", func() bool { return u.openStreams() == 1 })
		u.send("event: unleash-updated\nid: 7\ndata: {\"events\": [\n\n")
		waitFor(t, "reconnect", func() bool { return u.count("stream") == 2 })
		if id := u.streamRequest(1).Header.Get("Last-Event-ID"); id != "" {
			t.Errorf("reconnect sent Last-Event-ID %q", id)
		}
		// The last good configuration stays in use meanwhile.
		if got := streamEnabled(t, h, ""); !slices.Equal(got, []string{"on"}) {
			t.Errorf("serving %v", got)
		}
	})
	t.Run("update before hydration", func(t *testing.T) {
		u := newStreamUpstream(t)
		u.set(func(u *streamUpstream) {
			u.first = sseMessage(sseUpdated, 7, clientapi.DeltaEvent{Type: clientapi.EventFeatureRemoved, EventID: 7, FeatureName: "on"})
		})
		// Keep streaming: polling would make the proxy ready.
		timing := fastTiming
		timing.maxFails = 1000
		h := startStreamProxy(t, streamConfig(t, u, new(true)), &timing)
		waitFor(t, "reconnect", func() bool { return u.count("stream") >= 2 })
		if h.p.Ready() {
			t.Error("ready without a hydration")
		}
		if id := u.streamRequest(1).Header.Get("Last-Event-ID"); id != "" {
			t.Errorf("reconnect sent Last-Event-ID %q", id)
		}
	})
	t.Run("silent stream", func(t *testing.T) {
		u := newStreamUpstream(t)
		timing := fastTiming
		timing.readTimeout = 50 * time.Millisecond
		h := startStreamProxy(t, streamConfig(t, u, new(true)), &timing)
		h.waitReady(t)
		waitFor(t, "reconnect", func() bool { return u.count("stream") >= 2 })
		if id := u.streamRequest(1).Header.Get("Last-Event-ID"); id != "1" {
			t.Errorf("reconnect Last-Event-ID = %q, want 1", id)
		}
	})
}

func TestSSEReader(t *testing.T) {
	type ev struct{ name, data, id string }
	for _, tc := range []struct {
		name string
		in   string
		want []ev
	}{
		{"one event", "event: a\nid: 3\ndata: {}\n\n", []ev{{"a", "{}", "3"}}},
		{"CRLF and comments", ": heartbeat\r\nevent: a\r\ndata: x\r\n\r\n: more\r\n", []ev{{"a", "x", ""}}},
		{"multi-line data", "data: one\ndata:two\ndata\n\n", []ev{{"message", "one\ntwo\n", ""}}},
		{"id persists, no data dispatches nothing", "id: 5\n\nevent: b\ndata: y\n\n", []ev{{"b", "y", "5"}}},
		{"event name resets between events", "event: a\ndata: 1\n\ndata: 2\n\n", []ev{{"a", "1", ""}, {"message", "2", ""}}},
		{"unknown fields and retry skipped", "retry: 10\nfoo: bar\ndata: z\n\n", []ev{{"message", "z", ""}}},
		{"id with NUL ignored", "id: 1\ndata: a\n\nid: 2\x00\ndata: b\n\n", []ev{{"message", "a", "1"}, {"message", "b", "1"}}},
		{"cut-off event dropped", "data: a\n\ndata: partial", []ev{{"message", "a", ""}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newSSEReader(strings.NewReader(tc.in), 1<<10)
			var got []ev
			for {
				e, err := r.next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, ev{e.name, string(e.data), e.id})
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	r := newSSEReader(strings.NewReader("data: "+strings.Repeat("x", 100)+"\n\n"), 50)
	if _, err := r.next(); err != errEventTooLarge {
		t.Errorf("oversized event: %v", err)
	}
}

// FuzzSSEReader: any byte stream ends in events and an error, never a
// panic, and no event exceeds the bound.
func FuzzSSEReader(f *testing.F) {
	for _, seed := range []string{
		"event: unleash-connected\nid: 1\ndata: {\"events\":[]}\n\n",
		": hb\r\n\r\ndata: a\r\ndata: b\r\n\r\n",
		"id: \x00\ndata\n\nevent\n\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		r := newSSEReader(strings.NewReader(in), 64)
		for range len(in) + 1 {
			ev, err := r.next()
			if err != nil {
				return
			}
			if len(ev.data) > 64 {
				t.Fatalf("event of %d bytes passed a 64-byte bound", len(ev.data))
			}
		}
		t.Fatal("more events than input bytes")
	})
}
