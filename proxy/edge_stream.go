package proxy

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/signalbox/signalbox/clientapi"
)

// Streaming (/api/client/streaming) and delta polling (/api/client/delta)
// for backend SDKs behind a node, with the protocol of the server's: each
// configuration a scope installs becomes a local revision whose events (the
// difference from the one before) are encoded once and shared by every
// stream and poll of the scope.

const (
	// deltaHistory is how many revisions of events a scope keeps for
	// streams resuming with Last-Event-ID and delta polls; older ones get a
	// hydration.
	deltaHistory = 100
	// DefaultEdgeMaxStreams bounds the open streams of a node.
	DefaultEdgeMaxStreams = 10000
	edgeHeartbeat         = 20 * time.Second // well inside the SDKs' 60 s read timeout
)

// deltaState is one revision of a scope as streams and delta polls see it.
type deltaState struct {
	rev       int64
	hydration []byte        // the hydration event, encoded
	history   []deltaRecord // the events of the last revisions, oldest first
	payload   *clientapi.Features
}

type deltaRecord struct {
	rev    int64
	events []byte // encoded events, comma-separated, no brackets
}

// deltaFeed holds a scope's revisions and wakes its streams.
type deltaFeed struct {
	state   atomic.Pointer[deltaState]
	mu      sync.Mutex
	changed chan struct{}
}

func newDeltaFeed() *deltaFeed { return &deltaFeed{changed: make(chan struct{})} }

// next is the channel closed on the next revision.
func (f *deltaFeed) next() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.changed
}

// publish makes payload the scope's next revision.
func (f *deltaFeed) publish(payload *clientapi.Features) {
	f.mu.Lock()
	defer f.mu.Unlock()
	prev := f.state.Load()
	next := &deltaState{rev: 1, payload: payload}
	var events []clientapi.DeltaEvent
	if prev != nil {
		next.rev = prev.rev + 1
		events = diffPayloads(prev.payload, payload, next.rev)
		if len(events) == 0 {
			return // nothing an SDK would see changed
		}
		next.history = append(next.history, prev.history[max(0, len(prev.history)-deltaHistory+1):]...)
	}
	next.hydration = encodeEvents([]clientapi.DeltaEvent{{EventID: next.rev, Type: clientapi.EventHydration,
		Features: orEmptyList(payload.Features), Segments: orEmptyList(payload.Segments)}})
	if prev != nil {
		next.history = append(next.history, deltaRecord{rev: next.rev, events: encodeEvents(events)})
	}
	f.state.Store(next)
	close(f.changed)
	f.changed = make(chan struct{})
}

func orEmptyList[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// since is the encoded events that bring an SDK at revision from to st,
// a hydration when from is unknown or too old.
func (st *deltaState) since(from int64) []byte {
	if from <= 0 || from > st.rev || len(st.history) == 0 || from < st.history[0].rev-1 {
		return st.hydration
	}
	var parts [][]byte
	for _, h := range st.history {
		if h.rev > from {
			parts = append(parts, h.events)
		}
	}
	return bytes.Join(parts, []byte{','})
}

func encodeEvents(events []clientapi.DeltaEvent) []byte {
	b, _ := json.Marshal(events)
	return b[1 : len(b)-1] // without the brackets, so lists join
}

// diffPayloads lists what changed from old to cur as delta events: segments
// updated before the flags that use them, then flags updated and removed,
// then segments removed.
func diffPayloads(old, cur *clientapi.Features, rev int64) []clientapi.DeltaEvent {
	var events []clientapi.DeltaEvent
	same := func(a, b any) bool {
		x, _ := json.Marshal(a)
		y, _ := json.Marshal(b)
		return bytes.Equal(x, y)
	}
	oldSegs := map[int]clientapi.Segment{}
	for _, s := range old.Segments {
		oldSegs[s.ID] = s
	}
	curSegs := map[int]bool{}
	for _, s := range cur.Segments {
		curSegs[s.ID] = true
		if o, ok := oldSegs[s.ID]; !ok || !same(o, s) {
			events = append(events, clientapi.DeltaEvent{EventID: rev, Type: clientapi.EventSegmentUpdated, Segment: &s})
		}
	}
	oldFlags := map[string]clientapi.Feature{}
	for _, f := range old.Features {
		oldFlags[f.Name] = f
	}
	curFlags := map[string]bool{}
	for _, f := range cur.Features {
		curFlags[f.Name] = true
		if o, ok := oldFlags[f.Name]; !ok || !same(o, f) {
			events = append(events, clientapi.DeltaEvent{EventID: rev, Type: clientapi.EventFeatureUpdated, Feature: &f})
		}
	}
	for _, f := range old.Features {
		if !curFlags[f.Name] {
			events = append(events, clientapi.DeltaEvent{EventID: rev, Type: clientapi.EventFeatureRemoved, FeatureName: f.Name, Project: f.Project})
		}
	}
	for _, s := range old.Segments {
		if !curSegs[s.ID] {
			id := s.ID
			events = append(events, clientapi.DeltaEvent{EventID: rev, Type: clientapi.EventSegmentRemoved, SegmentID: &id})
		}
	}
	return events
}

// readRevision reads an event id or delta ETag: "12", "\"12\"", W/"12".
func readRevision(v string) int64 {
	v = strings.TrimSpace(v)
	if i := strings.IndexByte(v, ','); i >= 0 {
		v = strings.TrimSpace(v[:i])
	}
	v = strings.Trim(strings.TrimPrefix(v, "W/"), `"`)
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// serveDelta answers a delta poll: 304 when the SDK is at the current
// revision, else the events since its revision (a hydration for a first or
// unknown one).
func (e *Edge) serveDelta(w http.ResponseWriter, r *http.Request, sc *edgeScope) {
	st := sc.feed.state.Load()
	if st == nil {
		writeText(w, http.StatusServiceUnavailable, notReadyText)
		return
	}
	from := readRevision(r.Header.Get("If-None-Match"))
	h := w.Header()
	h.Set("ETag", `"`+strconv.FormatInt(st.rev, 10)+`"`)
	if from == st.rev {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	events := st.since(from)
	body := make([]byte, 0, len(events)+12)
	body = append(append(append(body, `{"events":[`...), events...), "]}"...)
	h["Content-Type"] = hdrJSON
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// serveStream answers a stream: the scope whole (or the events since
// Last-Event-ID), then each revision, with heartbeats, until the client
// goes or the node shuts down (then it just ends, and the SDK reconnects),
// or the scope goes (then fetch-mode: polling).
func (e *Edge) serveStream(w http.ResponseWriter, r *http.Request, sc *edgeScope) {
	if !e.streamSlot() {
		if now := time.Now().Unix(); now-e.refusedLogged.Load() >= 60 {
			e.refusedLogged.Store(now)
			e.log.Warn("refusing streams: this node serves its maximum; SDKs poll instead", "maxStreams", e.cfg.MaxStreams)
		}
		w.Header().Set("Retry-After", "30")
		writeText(w, http.StatusTooManyRequests, "This node serves its maximum of streams; poll instead.\n")
		return
	}
	defer e.streams.Add(-1)
	e.streamers.streamed(edgeStreamerKey(r.Header), time.Now())
	st := sc.feed.state.Load()
	if st == nil {
		writeText(w, http.StatusServiceUnavailable, notReadyText)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	write := func(b []byte) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(2 * edgeHeartbeat))
		if _, err := w.Write(b); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	message := func(name string, rev int64, events []byte) bool {
		var b []byte
		b = append(b, "event: "...)
		b = append(b, name...)
		b = append(b, "\nid: "...)
		b = strconv.AppendInt(b, rev, 10)
		b = append(b, "\ndata: {\"events\":["...)
		b = append(b, events...)
		b = append(b, "]}\n\n"...)
		return write(b)
	}
	changed := sc.feed.next()
	st = sc.feed.state.Load()
	if !message("unleash-connected", st.rev, st.since(readRevision(r.Header.Get("Last-Event-ID")))) {
		return
	}
	cur := st.rev
	heartbeat := time.NewTicker(edgeHeartbeat)
	defer heartbeat.Stop()
	for {
		select {
		case <-changed:
			changed = sc.feed.next()
			st = sc.feed.state.Load()
			if st.rev > cur {
				if !message("unleash-updated", st.rev, st.since(cur)) {
					return
				}
				cur = st.rev
			}
		case <-heartbeat.C:
			if !write([]byte(":\n\n")) {
				return
			}
		case <-r.Context().Done():
			return
		case <-sc.ended:
			_ = write([]byte("event: fetch-mode\ndata: polling\n\n"))
			return
		case <-e.closing:
			// Just ends: SDKs take a fetch-mode event as an order to poll
			// for good, whereas an ended stream is one they open again.
			return
		}
	}
}

// streamSlot counts a new stream unless the node serves its maximum.
func (e *Edge) streamSlot() bool {
	for {
		n := e.streams.Load()
		if n >= int64(e.cfg.MaxStreams) {
			return false
		}
		if e.streams.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// CloseStreams ends every open stream, with no fetch-mode event, so that
// SDKs reconnect rather than poll for good. Call it when shutdown begins,
// since a graceful shutdown otherwise waits for streams that never end.
func (e *Edge) CloseStreams() {
	e.closeOnce.Do(func() { close(e.closing) })
}
