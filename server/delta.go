package server

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/store"
)

// The push APIs (GET /api/client/streaming and GET /api/client/delta) send
// SDKs what changed since a revision they already have, as delta events:
// hydration (the whole scope), feature-updated, feature-removed,
// segment-updated and segment-removed. Event ids are the store's global
// revisions. Each environment keeps a short history of its states, one per
// revision observed; a delta is the difference between two of them,
// filtered for a scope, encoded once and shared by every request and stream
// of that scope.

// maxDeltaHistory bounds the distinct states an environment remembers,
// maxDeltaEntries the revisions (those that changed nothing here share
// their predecessor's state, so a run of users, tokens or settings does
// not push the clients' revisions out), and maxDeltaHistoryBytes the
// memory the states take (states share the encoding of every flag that did
// not change). A client whose revision has fallen out (or was never seen
// here) gets a hydration, which is always correct, only larger.
const (
	maxDeltaHistory      = 100
	maxDeltaEntries      = 4096
	maxDeltaHistoryBytes = 64 << 20
)

// maxSharedDeltaBytes bounds the encoded answers kept for sharing per
// environment: filters are chosen by whoever holds a client token, and
// answers beyond it are built for their request alone.
const maxSharedDeltaBytes = 64 << 20

// deltaState is an environment's content at a revision, in the form deltas
// are computed from: each feature and segment encoded once.
type deltaState struct {
	features []deltaFeature // ordered by name
	byName   map[string]int
	segments []deltaSegment // ordered by id
	byID     map[int]int
	// size estimates the memory the state holds beyond what it shares
	// with its predecessor.
	size int64
}

type deltaFeature struct {
	name    string
	project string
	tags    []store.Tag
	raw     json.RawMessage
	// segments are the ids of the segments its strategies use.
	segments []int
}

type deltaSegment struct {
	id  int
	raw json.RawMessage
}

func newDeltaState(st *store.ClientState) (*deltaState, error) { return nextDeltaState(st, nil, nil) }

// nextDeltaState is newDeltaState reusing prev's encoding of each feature
// that st shares unchanged with src, the state prev was built from (both
// nil: none). A state brought forward from src by store.ClientState.With
// keeps the untouched features as they were, so a revision encodes only
// what it changed.
func nextDeltaState(st *store.ClientState, prev *deltaState, src *store.ClientState) (*deltaState, error) {
	d := &deltaState{byName: make(map[string]int, len(st.Features)), byID: make(map[int]int, len(st.Segments)),
		features: make([]deltaFeature, 0, len(st.Features))}
	for i := range st.Features {
		cf := &st.Features[i]
		var raw json.RawMessage
		if prev != nil && src != nil {
			// prev's features are src's, in the same order.
			if j, ok := prev.byName[cf.Name]; ok && j < len(src.Features) && sameClientFeature(&src.Features[j], cf) {
				raw = prev.features[j].raw
			}
		}
		if raw == nil {
			var err error
			if raw, err = json.Marshal(wireFeature(cf.Feature)); err != nil {
				return nil, err
			}
		}
		d.byName[cf.Name] = len(d.features)
		d.features = append(d.features, deltaFeature{name: cf.Name, project: cf.Project, tags: cf.Tags, raw: raw,
			segments: segmentsOf(cf.Strategies)})
	}
	for _, sg := range st.Segments {
		raw, err := json.Marshal(sg)
		if err != nil {
			return nil, err
		}
		d.byID[sg.ID] = len(d.segments)
		d.segments = append(d.segments, deltaSegment{id: sg.ID, raw: raw})
	}
	return d, nil
}

// share makes d use prev's encoding of every flag and segment that did not
// change, so that a history of states costs little more than one, and
// computes d's size.
func (d *deltaState) share(prev *deltaState) {
	d.size = int64(len(d.features))*160 + int64(len(d.segments))*80
	for i := range d.features {
		f := &d.features[i]
		if prev != nil {
			if j, ok := prev.byName[f.name]; ok && bytes.Equal(prev.features[j].raw, f.raw) {
				f.raw = prev.features[j].raw
				continue
			}
		}
		d.size += int64(len(f.raw))
	}
	for i := range d.segments {
		sg := &d.segments[i]
		if prev != nil {
			if j, ok := prev.byID[sg.id]; ok && bytes.Equal(prev.segments[j].raw, sg.raw) {
				sg.raw = prev.segments[j].raw
				continue
			}
		}
		d.size += int64(len(sg.raw))
	}
}

// sameAs reports whether two states have the same content, so that a
// revision that changed nothing here shares its predecessor's state.
func (d *deltaState) sameAs(o *deltaState) bool {
	if len(d.features) != len(o.features) || len(d.segments) != len(o.segments) {
		return false
	}
	for i, f := range d.features {
		g := o.features[i]
		if f.name != g.name || !bytes.Equal(f.raw, g.raw) || !slices.Equal(f.tags, g.tags) {
			return false
		}
	}
	for i, sg := range d.segments {
		if sg.id != o.segments[i].id || !bytes.Equal(sg.raw, o.segments[i].raw) {
			return false
		}
	}
	return true
}

// segmentsOf lists the segments the strategies use; nil when none.
func segmentsOf(strategies []clientapi.Strategy) []int {
	var ids []int
	for _, st := range strategies {
		for _, id := range st.Segments {
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// visibleSegments returns which segments of d a client of q's scope gets,
// as buildPayload decides it: nil for every one (a scope of every
// project), else those its flags use.
func (q clientQuery) visibleSegments(d *deltaState) map[int]bool {
	if len(q.Projects) == 0 || slices.Contains(q.Projects, "*") {
		return nil
	}
	used := map[int]bool{}
	for i := range d.features {
		if f := &d.features[i]; len(f.segments) > 0 && q.matches(f) {
			for _, id := range f.segments {
				used[id] = true
			}
		}
	}
	return used
}

// segmentVisible reports whether the segment id is among visible (nil:
// all).
func segmentVisible(visible map[int]bool, id int) bool { return visible == nil || visible[id] }

// matches reports whether a feature is in q's scope (projects, name
// prefix, tags), as buildPayload decides it.
func (q clientQuery) matches(f *deltaFeature) bool {
	if len(q.Projects) > 0 && !slices.Contains(q.Projects, "*") && !slices.Contains(q.Projects, f.project) {
		return false
	}
	if q.NamePrefix != "" && !strings.HasPrefix(f.name, q.NamePrefix) {
		return false
	}
	return len(q.Tags) == 0 || hasAnyTag(f.tags, q.Tags)
}

// appendHydration writes the hydration event of q's scope of d.
func appendHydration(b []byte, d *deltaState, q clientQuery, eventID int64) []byte {
	b = append(b, `{"type":"hydration","eventId":`...)
	b = strconv.AppendInt(b, eventID, 10)
	b = append(b, `,"features":[`...)
	first := true
	for i := range d.features {
		f := &d.features[i]
		if !q.matches(f) {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, f.raw...)
	}
	b = append(b, `],"segments":[`...)
	visible := q.visibleSegments(d)
	first = true
	for _, sg := range d.segments {
		if !segmentVisible(visible, sg.id) {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, sg.raw...)
	}
	return append(b, "]}"...)
}

// appendDelta writes the events that take a client of q's scope from
// state from to state to, and reports how many there are. Segments come
// first so that a feature never arrives before a segment it uses; removed
// segments come last, once no feature refers to them. Segments outside the
// scope's view (visibleSegments) are never sent: one coming into view is
// sent as updated, one going out of it as removed.
func appendDelta(b []byte, from, to *deltaState, q clientQuery, eventID int64) ([]byte, int) {
	n := 0
	event := func(kind string) {
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = append(b, `{"type":"`...)
		b = append(b, kind...)
		b = append(b, `","eventId":`...)
		b = strconv.AppendInt(b, eventID, 10)
	}
	fromVisible, toVisible := q.visibleSegments(from), q.visibleSegments(to)
	for _, sg := range to.segments {
		if !segmentVisible(toVisible, sg.id) {
			continue
		}
		if i, ok := from.byID[sg.id]; ok && segmentVisible(fromVisible, sg.id) && bytes.Equal(from.segments[i].raw, sg.raw) {
			continue
		}
		event("segment-updated")
		b = append(b, `,"segment":`...)
		b = append(b, sg.raw...)
		b = append(b, '}')
	}
	for i := range to.features {
		f := &to.features[i]
		if !q.matches(f) {
			continue
		}
		if j, ok := from.byName[f.name]; ok && q.matches(&from.features[j]) && bytes.Equal(from.features[j].raw, f.raw) {
			continue
		}
		event("feature-updated")
		b = append(b, `,"feature":`...)
		b = append(b, f.raw...)
		b = append(b, '}')
	}
	for i := range from.features {
		f := &from.features[i]
		if !q.matches(f) {
			continue
		}
		if j, ok := to.byName[f.name]; ok && q.matches(&to.features[j]) {
			continue
		}
		event("feature-removed")
		b = append(b, `,"featureName":`...)
		b = appendJSONString(b, f.name)
		b = append(b, `,"project":`...)
		b = appendJSONString(b, f.project)
		b = append(b, '}')
	}
	for _, sg := range from.segments {
		if !segmentVisible(fromVisible, sg.id) {
			continue
		}
		if _, ok := to.byID[sg.id]; ok && segmentVisible(toVisible, sg.id) {
			continue
		}
		event("segment-removed")
		b = append(b, `,"segmentId":`...)
		b = strconv.AppendInt(b, int64(sg.id), 10)
		b = append(b, '}')
	}
	return b, n
}

func appendJSONString(b []byte, s string) []byte {
	enc, _ := json.Marshal(s) // a string always encodes
	return append(b, enc...)
}

// deltaHistory is one environment's recent states, oldest first. Revisions
// that changed nothing in the environment share their predecessor's state.
type deltaHistory struct {
	// mu is held while a newer state is read, so that one read serves every
	// stream and request waiting for it.
	mu       sync.Mutex
	entries  []deltaEntry
	bytes    int64 // the sizes of the distinct states in entries
	distinct int   // the distinct states in entries
	// encoded are the answers built for the newest revision, by scope and
	// starting revision; older ones are dropped as a newer revision arrives.
	encoded      map[deltaKey]*encodedDelta
	encodedBytes int64
	// src is the state the newest entry was built from, feature for
	// feature, so that the next one re-encodes only what differs.
	src *store.ClientState
}

type deltaEntry struct {
	rev   int64
	state *deltaState
}

type deltaKey struct {
	scope string
	from  int64 // 0: hydration
	to    int64
}

// encodedDelta is the events of one deltaKey, as the JSON array's
// contents, built once by whichever caller comes first.
type encodedDelta struct {
	once   sync.Once
	events []byte
	count  int
	// counted is what encodedBytes holds for it; guarded by the
	// history's mu.
	counted int64
}

// deltaHub holds the histories of the environments the push APIs served.
type deltaHub struct {
	mu   sync.Mutex
	envs map[string]*deltaHistory
}

func newDeltaHub() *deltaHub { return &deltaHub{envs: map[string]*deltaHistory{}} }

func (h *deltaHub) history(env string) *deltaHistory {
	h.mu.Lock()
	defer h.mu.Unlock()
	dh := h.envs[env]
	if dh == nil {
		dh = &deltaHistory{encoded: map[deltaKey]*encodedDelta{}}
		h.envs[env] = dh
	}
	return dh
}

// deltaLatest returns the environment's newest state, at the server's
// known revision or newer, reading it only when no stream or request has
// yet.
func (s *Server) deltaLatest(ctx context.Context, env string) (*deltaHistory, deltaEntry, error) {
	dh := s.deltas.history(env)
	rev := s.revision.Load()
	dh.mu.Lock()
	defer dh.mu.Unlock()
	if n := len(dh.entries); n > 0 && dh.entries[n-1].rev >= rev {
		return dh, dh.entries[n-1], nil
	}
	st, err := s.clientState(ctx, env, rev)
	if err != nil {
		return nil, deltaEntry{}, err
	}
	if n := len(dh.entries); n > 0 && dh.entries[n-1].rev >= st.Revision {
		return dh, dh.entries[n-1], nil
	}
	var prev *deltaState
	if n := len(dh.entries); n > 0 {
		prev = dh.entries[n-1].state
	}
	d, err := nextDeltaState(st, prev, dh.src)
	if err != nil {
		return nil, deltaEntry{}, err
	}
	dh.src = st
	if prev != nil && prev.sameAs(d) {
		d = prev
	} else {
		d.share(prev)
		dh.bytes += d.size
		dh.distinct++
	}
	e := deltaEntry{rev: st.Revision, state: d}
	dh.entries = append(dh.entries, e)
	// Drop the oldest revisions beyond the bounds, keeping the newest two.
	for len(dh.entries) > 2 && (dh.distinct > maxDeltaHistory || len(dh.entries) > maxDeltaEntries || dh.bytes > maxDeltaHistoryBytes) {
		if old := dh.entries[0].state; old != dh.entries[1].state {
			dh.bytes -= old.size
			dh.distinct--
		}
		dh.entries = dh.entries[1:]
	}
	dh.entries = slices.Clip(dh.entries) // let append move off dropped entries
	for k, enc := range dh.encoded {
		if k.to < e.rev {
			delete(dh.encoded, k)
			dh.encodedBytes -= enc.counted
		}
	}
	return dh, e, nil
}

// events returns the events that bring a client of q's scope at revision
// from (0 or unknown: nothing) to the entry to, and whether they are a
// hydration. Equal requests share one encoding.
func (dh *deltaHistory) events(q clientQuery, from int64, to deltaEntry) (events []byte, count int, hydration bool) {
	dh.mu.Lock()
	var base *deltaState
	if from > 0 && from <= to.rev {
		if i, ok := slices.BinarySearchFunc(dh.entries, from, func(e deltaEntry, rev int64) int {
			switch {
			case e.rev < rev:
				return -1
			case e.rev > rev:
				return 1
			}
			return 0
		}); ok {
			base = dh.entries[i].state
		}
	}
	if base == nil {
		from = 0
	}
	key := deltaKey{scope: q.key(), from: from, to: to.rev}
	if base == to.state {
		// Nothing changed in the environment since from.
		dh.mu.Unlock()
		return nil, 0, false
	}
	enc := dh.encoded[key]
	stored := false
	if enc == nil {
		enc = &encodedDelta{}
		// Only the newest revision's answers are kept, within a bound; an
		// older to (a request that raced a newer read) is built without
		// being stored.
		if n := len(dh.entries); n > 0 && dh.entries[n-1].rev == to.rev && dh.encodedBytes < maxSharedDeltaBytes {
			dh.encoded[key] = enc
			stored = true
		}
	}
	dh.mu.Unlock()
	enc.once.Do(func() {
		if base == nil {
			enc.events, enc.count = appendHydration(nil, to.state, q, to.rev), 1
		} else {
			enc.events, enc.count = appendDelta(nil, base, to.state, q, to.rev)
		}
		if stored {
			dh.mu.Lock()
			if dh.encoded[key] == enc {
				enc.counted = int64(len(enc.events))
				dh.encodedBytes += enc.counted
			}
			dh.mu.Unlock()
		}
	})
	return enc.events, enc.count, base == nil
}

// parseRevision reads an event id or delta ETag: a decimal revision,
// optionally quoted and marked weak. Anything else, and zero or negative
// values, is 0: unknown, answered with a hydration.
func parseRevision(v string) int64 {
	v = strings.TrimSpace(v)
	if i := strings.IndexByte(v, ','); i >= 0 {
		v = strings.TrimSpace(v[:i]) // the first of a list of ETags
	}
	v = strings.TrimPrefix(v, "W/")
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		v = v[1 : len(v)-1]
	}
	if v == "" || len(v) > 19 {
		return 0
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

func revisionETag(rev int64) string { return `"` + strconv.FormatInt(rev, 10) + `"` }

// handleClientDelta serves GET /api/client/delta: the events since the
// revision in If-None-Match, a hydration for a first or unknown revision,
// 304 when nothing in the scope changed.
func (s *Server) handleClientDelta(w http.ResponseWriter, r *http.Request, tok *store.APIToken) error {
	q, err := clientQueryFor(r, tok)
	if err != nil {
		return err
	}
	q = q.normalized()
	dh, latest, err := s.deltaLatest(r.Context(), q.Environment)
	if err != nil {
		return err
	}
	from := parseRevision(r.Header.Get("If-None-Match"))
	events, count, hydration := dh.events(q, from, latest)
	h := w.Header()
	h.Set("Cache-Control", "no-cache")
	if !hydration && count == 0 {
		// The client keeps its revision, which stays valid: nothing it
		// would see changed.
		if from > 0 {
			h.Set("ETag", revisionETag(from))
		}
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	h.Set("ETag", revisionETag(latest.rev))
	h.Set("Content-Type", "application/json; charset=utf-8")
	body := make([]byte, 0, len(events)+12)
	body = append(body, `{"events":[`...)
	body = append(body, events...)
	body = append(body, "]}"...)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	_, err = w.Write(body)
	return err
}
