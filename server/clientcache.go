package server

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"sync"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/engine"
	"github.com/signalbox/signalbox/proxy"
	"github.com/signalbox/signalbox/store"
)

// clientQuery is what a client payload is built for: the token's
// environment and projects, and the request's filters.
type clientQuery struct {
	Environment string
	Projects    []string // nil or ["*"]: all
	NamePrefix  string
	Tags        []store.Tag
}

// key identifies a query in the cache; hash is its short form in ETags.
func (q clientQuery) key() string {
	var b strings.Builder
	b.WriteString(q.Environment)
	b.WriteByte('\x00')
	b.WriteString(strings.Join(q.Projects, ","))
	b.WriteByte('\x00')
	b.WriteString(q.NamePrefix)
	for _, t := range q.Tags {
		b.WriteByte('\x00')
		b.WriteString(t.Type + ":" + t.Value)
	}
	return b.String()
}

func (q clientQuery) hash() string {
	h := fnv.New64a()
	h.Write([]byte(q.key()))
	return fmt.Sprintf("%016x", h.Sum64())
}

// clientPayload is one built answer of GET /api/client/features.
type clientPayload struct {
	revision int64
	etag     string // strong, quoted
	body     []byte
	gzipped  []byte // body compressed once, for clients that accept gzip
	features *clientapi.Features
	// answers evaluates the payload for the frontend API, with the proxy's
	// encoder and answer cache; built on first use.
	answersOnce sync.Once
	answers     *proxy.Answers
	snapshot    *engine.Snapshot // what answers evaluates with
}

func (p *clientPayload) frontendAnswers() *proxy.Answers {
	p.answersOnce.Do(func() {
		p.snapshot = engine.Compile(p.features, engine.Options{})
		p.answers = proxy.NewAnswers(p.snapshot, p.features)
	})
	return p.answers
}

// compiled is the payload's snapshot, compiled once and shared with the
// frontend API.
func (p *clientPayload) compiled() *engine.Snapshot {
	p.frontendAnswers()
	return p.snapshot
}

// clientCache keeps the newest payload per query and the newest state per
// environment, so that a revision costs one database read per environment
// however many tokens and filters poll it.
type clientCache struct {
	mu       sync.Mutex
	payloads map[string]*clientPayload
	states   map[string]*store.ClientState
	building map[string]*sync.Mutex
}

func newClientCache() *clientCache {
	return &clientCache{payloads: map[string]*clientPayload{}, states: map[string]*store.ClientState{}, building: map[string]*sync.Mutex{}}
}

// cached returns the payload for q if it is at least at revision rev.
func (c *clientCache) cached(q clientQuery, rev int64) *clientPayload {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.payloads[q.key()]; p != nil && p.revision >= rev {
		return p
	}
	return nil
}

// payload returns the payload for q at revision rev or newer, building it
// (once, whatever the number of concurrent callers) when needed.
func (s *Server) payload(ctx context.Context, q clientQuery) (*clientPayload, error) {
	rev := s.revision.Load()
	c := s.clientCache
	if p := c.cached(q, rev); p != nil {
		return p, nil
	}
	key := q.key()
	c.mu.Lock()
	lock := c.building[key]
	if lock == nil {
		lock = &sync.Mutex{}
		c.building[key] = lock
	}
	c.mu.Unlock()
	lock.Lock()
	defer lock.Unlock()
	if p := c.cached(q, rev); p != nil {
		return p, nil // built by the caller we waited for
	}
	state, err := s.clientState(ctx, q.Environment, rev)
	if err != nil {
		return nil, err
	}
	p, err := buildPayload(q, state)
	if err != nil {
		return nil, err
	}
	s.raiseRevision(state.Revision)
	c.mu.Lock()
	if old := c.payloads[key]; old == nil || old.revision <= p.revision {
		c.payloads[key] = p
	}
	if len(c.payloads) > 10000 { // bound memory under many distinct filters
		c.payloads = map[string]*clientPayload{key: p}
	}
	c.mu.Unlock()
	return p, nil
}

// clientState returns the environment's state at revision rev or newer.
func (s *Server) clientState(ctx context.Context, env string, rev int64) (*store.ClientState, error) {
	c := s.clientCache
	c.mu.Lock()
	st := c.states[env]
	c.mu.Unlock()
	if st != nil && st.Revision >= rev {
		return st, nil
	}
	var fresh store.ClientState
	err := s.view(ctx, func(r store.Reader) (err error) {
		fresh, err = r.GetClientState(ctx, env)
		return err
	})
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if old := c.states[env]; old == nil || old.Revision <= fresh.Revision {
		c.states[env] = &fresh
	}
	c.mu.Unlock()
	return &fresh, nil
}

// buildPayload filters a state for q and encodes it.
func buildPayload(q clientQuery, st *store.ClientState) (*clientPayload, error) {
	allProjects := len(q.Projects) == 0 || slices.Contains(q.Projects, "*")
	out := &clientapi.Features{Version: 2, Features: []clientapi.Feature{}, Segments: st.Segments}
	used := map[int]bool{}
	for _, cf := range st.Features {
		f := cf.Feature
		if !allProjects && !slices.Contains(q.Projects, f.Project) {
			continue
		}
		if q.NamePrefix != "" && !strings.HasPrefix(f.Name, q.NamePrefix) {
			continue
		}
		if len(q.Tags) > 0 && !hasAnyTag(cf.Tags, q.Tags) {
			continue
		}
		out.Features = append(out.Features, normalizeFeature(f))
		for _, st := range f.Strategies {
			for _, id := range st.Segments {
				used[id] = true
			}
		}
	}
	if out.Segments == nil {
		out.Segments = []clientapi.Segment{}
	}
	query := &clientapi.Query{Environment: q.Environment, NamePrefix: q.NamePrefix, InlineSegmentConstraints: false}
	if !allProjects {
		query.Project = q.Projects
	}
	for _, t := range q.Tags {
		query.Tag = append(query.Tag, []string{t.Type, t.Value})
	}
	out.Query = query
	etag := fmt.Sprintf(`"%s:%d:v1"`, q.hash(), st.Revision)
	out.Meta = &clientapi.Meta{Revision: int(st.Revision), ETag: etag, QueryHash: q.hash()}
	body, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	gzipped, err := gzipBytes(body)
	if err != nil {
		return nil, err
	}
	return &clientPayload{revision: st.Revision, etag: etag, body: body, gzipped: gzipped, features: out}, nil
}

// gzipBytes compresses a payload once per revision: at thousands of flags
// the answer is megabytes, and SDKs and proxies accept gzip.
func gzipBytes(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(b); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func hasAnyTag(have, want []store.Tag) bool {
	for _, w := range want {
		if slices.Contains(have, w) {
			return true
		}
	}
	return false
}

// normalizeFeature makes every list an array rather than null, as SDKs
// iterate over them without checks.
func normalizeFeature(f clientapi.Feature) clientapi.Feature {
	if f.Strategies == nil {
		f.Strategies = []clientapi.Strategy{}
	}
	if f.Variants == nil {
		f.Variants = []clientapi.Variant{}
	}
	strategies := make([]clientapi.Strategy, len(f.Strategies))
	for i, st := range f.Strategies {
		if st.Constraints == nil {
			st.Constraints = []clientapi.Constraint{}
		}
		if st.Parameters == nil {
			st.Parameters = clientapi.Parameters{}
		}
		if st.Variants == nil {
			st.Variants = []clientapi.Variant{}
		}
		if st.Segments == nil {
			st.Segments = []int{}
		}
		strategies[i] = st
	}
	f.Strategies = strategies
	return f
}
