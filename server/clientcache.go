package server

import (
	"bytes"
	"compress/gzip"
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/signalbox/signalbox/answer"
	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/engine"
	"github.com/signalbox/signalbox/internal/apierr"
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

// normalized is q in its canonical form: projects and tags deduplicated
// and sorted, and "*" among the projects meaning all. Equivalent filters
// then share one cache entry and one ETag, whatever order or repetition a
// request uses.
func (q clientQuery) normalized() clientQuery {
	switch {
	case slices.Contains(q.Projects, "*") || len(q.Projects) == 0:
		q.Projects = nil
	case !sortedUnique(q.Projects): // a token's list usually is already
		q.Projects = slices.Compact(slices.Sorted(slices.Values(q.Projects)))
	}
	if len(q.Tags) > 0 {
		tags := slices.Clone(q.Tags)
		slices.SortFunc(tags, func(a, b store.Tag) int {
			if c := strings.Compare(a.Type, b.Type); c != 0 {
				return c
			}
			return strings.Compare(a.Value, b.Value)
		})
		q.Tags = slices.Compact(tags)
	}
	return q
}

// key identifies a normalized query in the cache; hash is its short form
// in ETags. Only the fields of clientQuery enter it, so query parameters
// the client API does not know never make a new entry.
func (q clientQuery) key() string {
	n := len(q.Environment) + len(q.NamePrefix) + 2
	for _, p := range q.Projects {
		n += len(p) + 1
	}
	for _, t := range q.Tags {
		n += len(t.Type) + len(t.Value) + 2
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(q.Environment)
	b.WriteByte('\x00')
	for i, p := range q.Projects {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(p)
	}
	b.WriteByte('\x00')
	b.WriteString(q.NamePrefix)
	for _, t := range q.Tags {
		b.WriteByte('\x00')
		b.WriteString(t.Type)
		b.WriteByte(':')
		b.WriteString(t.Value)
	}
	return b.String()
}

// sortedUnique reports whether list is in order without repeats.
func sortedUnique(list []string) bool {
	for i := 1; i < len(list); i++ {
		if list[i-1] >= list[i] {
			return false
		}
	}
	return true
}

func (q clientQuery) hash() string {
	h := fnv.New64a()
	h.Write([]byte(q.key()))
	return fmt.Sprintf("%016x", h.Sum64())
}

// clientPayload is one built answer of GET /api/client/features.
type clientPayload struct {
	// revision is the newest revision the payload is known to be right
	// at, and content the environment state it was last checked against
	// (see clientEnvState); both move forward, under the cache's mu, when a
	// later revision leaves the answer as it was.
	revision int64
	content  *store.ClientState
	// etag names the answer's content (see contentETag): every revision
	// that leaves the answer as it was keeps it, here, after a restart
	// and on every server of the database.
	etag       string   // strong, quoted
	etagHeader []string // etag as a header value
	// bodyLength and gzippedLength are the Content-Length header values of
	// body and gzipped.
	bodyLength, gzippedLength []string
	body                      []byte
	gzipped                   []byte // body compressed once, for clients that accept gzip
	features                  *clientapi.Features
	// answers evaluates the payload for the frontend API, with the proxy's
	// encoder and answer cache; built on first use.
	answersOnce sync.Once
	answers     *answer.Writer
	snapshot    *engine.Snapshot // what answers evaluates with
	// flags maps each flag name of the payload to itself (the payload's
	// string), for counting SDK metrics; built on first use.
	flagsOnce sync.Once
	flags     map[string]string
}

// size is what the cache charges for an entry: the encoded body, its gzip
// form, and about as much again for the decoded features kept alongside.
func (p *clientPayload) size() int64 {
	return int64(2*len(p.body) + len(p.gzipped))
}

func (p *clientPayload) frontendAnswers() *answer.Writer {
	p.answersOnce.Do(func() {
		p.snapshot = engine.Compile(p.features, engine.Options{})
		p.answers = answer.New(p.snapshot, answer.DefaultCacheBytes)
	})
	return p.answers
}

// flagNames is the set of flags in the payload.
func (p *clientPayload) flagNames() map[string]string {
	p.flagsOnce.Do(func() {
		p.flags = make(map[string]string, len(p.features.Features))
		for _, f := range p.features.Features {
			p.flags[f.Name] = f.Name
		}
	})
	return p.flags
}

// maxClientCacheBytes bounds the payloads kept (as clientPayload.size
// counts them). Every distinct filter (project, namePrefix, tag) of every
// token scope is an entry of up to megabytes, and filters are chosen by
// whoever holds a client token, so the cache drops its least recently used
// entries beyond this. A few hundred entries of a typical payload fit;
// what falls out is rebuilt from the environment's cached state, without
// reading the database.
const maxClientCacheBytes = 256 << 20

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
	maxBytes int64
	bytes    int64 // sum of the entries' sizes
	payloads map[string]*list.Element
	lru      *list.List // of *cacheEntry, most recently used first
	states   map[string]*clientEnvState
	building map[string]*buildLock
	// envs are the environments' names at envsRevision, to check the
	// environment SDK reports name without reading the database.
	envs         map[string]bool
	envsRevision int64
}

type cacheEntry struct {
	key string
	p   *clientPayload
}

// buildLock lets one caller build a key's payload while the others wait;
// users counts the callers holding it, so that it is dropped after use.
type buildLock struct {
	sync.Mutex
	users int
}

func newClientCache() *clientCache {
	return &clientCache{maxBytes: maxClientCacheBytes, payloads: map[string]*list.Element{}, lru: list.New(),
		states: map[string]*clientEnvState{}, building: map[string]*buildLock{}}
}

// cached returns the payload for key if it is at least at revision rev.
func (c *clientCache) cached(key string, rev int64) *clientPayload {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.payloads[key]; e != nil {
		if p := e.Value.(*cacheEntry).p; p.revision >= rev {
			c.lru.MoveToFront(e)
			return p
		}
	}
	return nil
}

// entry returns the payload under key, whatever its revision, with the
// state it was last checked against.
func (c *clientCache) entry(key string) (*clientPayload, *store.ClientState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.payloads[key]; e != nil {
		p := e.Value.(*cacheEntry).p
		c.lru.MoveToFront(e)
		return p, p.content
	}
	return nil, nil
}

// advance marks p as right at the revision of state, whose answer it was
// found to be.
func (c *clientCache) advance(p *clientPayload, state, content *store.ClientState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if state.Revision > p.revision {
		p.revision, p.content = state.Revision, content
	}
}

// put stores p under key unless a newer payload is there, drops the
// entries of older revisions (they can never be served again: the known
// revision only grows) and then the least recently used ones until the
// cache fits its bound; the entry just stored always stays.
func (c *clientCache) put(key string, p *clientPayload) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.payloads[key]; e != nil {
		old := e.Value.(*cacheEntry)
		if old.p.revision > p.revision {
			return
		}
		c.remove(e)
	}
	c.payloads[key] = c.lru.PushFront(&cacheEntry{key: key, p: p})
	c.bytes += p.size()
	for e := c.lru.Back(); e != nil; {
		prev := e.Prev()
		if e.Value.(*cacheEntry).p.revision < p.revision {
			c.remove(e)
		}
		e = prev
	}
	for c.bytes > c.maxBytes && c.lru.Len() > 1 {
		c.remove(c.lru.Back())
	}
}

// remove drops an entry. Called with mu held.
func (c *clientCache) remove(e *list.Element) {
	ce := e.Value.(*cacheEntry)
	c.lru.Remove(e)
	delete(c.payloads, ce.key)
	c.bytes -= ce.p.size()
}

// usage reports the entries and bytes held (for tests).
func (c *clientCache) usage() (entries int, bytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len(), c.bytes
}

// payload returns the payload for q at revision rev or newer, building it
// (once, whatever the number of concurrent callers) when needed.
func (s *Server) payload(ctx context.Context, q clientQuery) (*clientPayload, error) {
	q = q.normalized()
	rev := s.revision.Load()
	c := s.clientCache
	key := q.key()
	if p := c.cached(key, rev); p != nil {
		return p, nil
	}
	c.mu.Lock()
	lock := c.building[key]
	if lock == nil {
		lock = &buildLock{}
		c.building[key] = lock
	}
	lock.users++
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		if lock.users--; lock.users == 0 {
			delete(c.building, key)
		}
		c.mu.Unlock()
	}()
	lock.Lock()
	defer lock.Unlock()
	if p := c.cached(key, rev); p != nil {
		return p, nil // built by the caller we waited for
	}
	es, err := s.clientStateOf(ctx, q.Environment, rev)
	if err != nil {
		return nil, err
	}
	state := es.state
	s.raiseRevision(state.Revision)
	prev, checked := c.entry(key)
	if prev != nil && checked == es.content {
		// The revisions since prev changed nothing in the environment.
		c.advance(prev, state, es.content)
		return prev, nil
	}
	p, err := buildPayload(q, state, prev)
	if err != nil {
		return nil, err
	}
	if p == prev {
		// They changed nothing this answer shows: prev stays, with its
		// ETag, and needs no new encoding.
		c.advance(prev, state, es.content)
		return prev, nil
	}
	p.content = es.content
	c.put(key, p)
	return p, nil
}

// environmentExists reports whether an environment is named name, from a
// list read once per revision.
func (s *Server) environmentExists(ctx context.Context, name string) (bool, error) {
	rev := s.revision.Load()
	c := s.clientCache
	c.mu.Lock()
	envs, fresh := c.envs, c.envs != nil && c.envsRevision >= rev
	c.mu.Unlock()
	if !fresh {
		var list []store.Environment
		err := s.view(ctx, func(r store.Reader) (err error) {
			list, err = r.ListEnvironments(ctx)
			return err
		})
		if err != nil {
			if envs != nil {
				return envs[name], nil // the list read last, while the database does not answer
			}
			return false, err
		}
		envs = make(map[string]bool, len(list))
		for _, e := range list {
			envs[e.Name] = true
		}
		c.mu.Lock()
		if c.envs == nil || c.envsRevision <= rev {
			c.envs, c.envsRevision = envs, rev
		}
		c.mu.Unlock()
	}
	return envs[name], nil
}

// clientEnvState is an environment's newest state read, with content: the
// state it was brought forward from by revisions whose events touched
// nothing the client API serves (users, tokens, settings…), or itself.
// Payloads built from a state with the same content are right at state's
// revision without being built again.
type clientEnvState struct {
	state   *store.ClientState
	content *store.ClientState
}

// clientState returns the environment's state at revision rev or newer.
func (s *Server) clientState(ctx context.Context, env string, rev int64) (*store.ClientState, error) {
	es, err := s.clientStateOf(ctx, env, rev)
	if err != nil {
		return nil, err
	}
	return es.state, nil
}

// clientStateOf returns the environment's state at revision rev or newer,
// with its content identity.
func (s *Server) clientStateOf(ctx context.Context, env string, rev int64) (*clientEnvState, error) {
	c := s.clientCache
	c.mu.Lock()
	old := c.states[env]
	c.mu.Unlock()
	if old != nil && old.state.Revision >= rev {
		return old, nil
	}
	var fresh store.ClientState
	same := false
	err := s.view(ctx, func(r store.Reader) error {
		if old != nil {
			// Only the features changed since the old state are read,
			// when the events say which.
			ch, err := r.ClientChangesSince(ctx, env, old.state.Revision)
			if err != nil {
				return err
			}
			if !ch.Full {
				if len(ch.Features) == 0 && !ch.SegmentsChanged {
					fresh, same = *old.state, true
					fresh.Revision = ch.Revision
				} else {
					fresh = old.state.With(ch)
				}
				return nil
			}
		}
		var err error
		fresh, err = r.GetClientState(ctx, env)
		return err
	})
	if err != nil {
		if old != nil && !apierr.Is(err, apierr.NotFound) {
			// The database does not answer: SDKs keep being served the
			// last state read, and the change comes with a later read.
			s.log.Debug("serving the last client state read", "environment", env, "err", err)
			return old, nil
		}
		return nil, err
	}
	es := &clientEnvState{state: &fresh, content: &fresh}
	if same {
		es.content = old.content
	}
	c.mu.Lock()
	if cur := c.states[env]; cur == nil || cur.state.Revision <= fresh.Revision {
		c.states[env] = es
	}
	c.mu.Unlock()
	return es, nil
}

// buildPayload filters a state for q and encodes it. When the answer is
// prev's (same content, so same ETag) it returns prev, not encoded again.
func buildPayload(q clientQuery, st *store.ClientState, prev *clientPayload) (*clientPayload, error) {
	allProjects := len(q.Projects) == 0 || slices.Contains(q.Projects, "*")
	out := &clientapi.Features{Version: 2, Features: []clientapi.Feature{}}
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
	out.Segments = visibleSegments(st.Segments, allProjects, used)
	query := &clientapi.Query{Environment: q.Environment, NamePrefix: q.NamePrefix, InlineSegmentConstraints: false}
	if !allProjects {
		query.Project = q.Projects
	}
	for _, t := range q.Tags {
		query.Tag = append(query.Tag, []string{t.Type, t.Value})
	}
	out.Query = query
	// The answer without meta is its content: the ETag is made from it,
	// then meta (the last field) is added.
	content, err := encodeClientFeatures(out)
	if err != nil {
		return nil, err
	}
	etag := contentETag(q, content)
	if prev != nil && prev.etag == etag {
		return prev, nil
	}
	out.Meta = &clientapi.Meta{Revision: int(st.Revision), ETag: etag, QueryHash: q.hash()}
	meta, err := json.Marshal(out.Meta)
	if err != nil {
		return nil, err
	}
	body := make([]byte, 0, len(content)+len(meta)+9)
	body = append(body, content[:len(content)-1]...) // without the closing brace
	body = append(body, `,"meta":`...)
	body = append(body, meta...)
	body = append(body, '}')
	gzipped, err := gzipBytes(body)
	if err != nil {
		return nil, err
	}
	return &clientPayload{
		revision: st.Revision, etag: etag, etagHeader: []string{etag},
		body: body, gzipped: gzipped, features: out,
		bodyLength: []string{strconv.Itoa(len(body))}, gzippedLength: []string{strconv.Itoa(len(gzipped))},
	}, nil
}

// contentETag is the ETag of an answer to q whose content (the answer
// without meta) is content: "<query hash>:<content hash>:v1". It depends on
// nothing else, so a change elsewhere (a user, a token, a favourite, a flag
// of another project) leaves it as it was, and every server of a database
// gives the same answer the same ETag, across restarts too.
func contentETag(q clientQuery, content []byte) string {
	sum := sha256.Sum256(content)
	return `"` + q.hash() + ":" + hex.EncodeToString(sum[:8]) + `:v1"`
}

// visibleSegments are the segments an answer carries: for a scope of every
// project all of them, as Unleash sends them; for a scope of some projects
// only those its flags use (used), so that a token never sees the
// constraints of segments only other projects use.
func visibleSegments(all []clientapi.Segment, allProjects bool, used map[int]bool) []clientapi.Segment {
	if allProjects {
		if all == nil {
			return []clientapi.Segment{}
		}
		return all
	}
	out := []clientapi.Segment{}
	for _, sg := range all {
		if used[sg.ID] {
			out = append(out, sg)
		}
	}
	return out
}

// gzipBytes compresses a payload once per revision: at thousands of flags
// the answer is megabytes, and SDKs and proxies accept gzip. Since it runs
// once per revision and not per request, it takes the best level, for
// tens of milliseconds once at 5,000 flags. What keeps the answer small is
// its wire form (wireFeature): 6 KB at 500 flags and 52 KB at 5,000.
func gzipBytes(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
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
