package server

// Bringing SDKs back to streaming. An SDK whose stream breaks a few times
// in a row (a restart, a rolling deploy) falls back to polling, and goes
// back to its stream only when a poll answer (a 200: a 304 is not read)
// carries the header fetch-mode: streaming. The server remembers, in the
// database and for a day, the SDK instances that held a stream on any
// server of the cluster, and gives exactly these that header; an SDK that
// only ever polled is left as it is. Polls read an immutable set of those
// instances, refreshed from the database in the background: no lock and no
// query per poll.

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/signalbox/signalbox/store"
)

// AdvertiseMode says which polling SDKs are told to stream instead
// (Config.AdvertiseStreaming).
type AdvertiseMode string

const (
	// AdvertiseStreamed tells the SDK instances that held a stream on the
	// cluster within the last day. The default.
	AdvertiseStreamed AdvertiseMode = "streamed"
	// AdvertiseAll tells every polling SDK.
	AdvertiseAll AdvertiseMode = "all"
	// AdvertiseOff tells none.
	AdvertiseOff AdvertiseMode = "off"
)

// ParseAdvertiseMode reads streamed, all or off; true and false (and
// their other spellings of old: 1/0, yes/no, on) are taken as all and off.
func ParseAdvertiseMode(v string) (AdvertiseMode, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "streamed":
		return AdvertiseStreamed, nil
	case "all", "true", "1", "yes", "on":
		return AdvertiseAll, nil
	case "off", "false", "0", "no":
		return AdvertiseOff, nil
	}
	return "", fmt.Errorf("%q is not streamed, all or off (true and false are taken as all and off)", v)
}

// Bounds of the remembered streaming clients.
const (
	streamedClientTTL      = 24 * time.Hour
	streamedPerToken       = 10000
	streamedPerApp         = 10000
	streamedKnownMax       = 100000 // rows read into memory
	streamedPendingMax     = 10000  // sightings waiting for the next write
	streamedIDMaxLen       = 256    // longer connection or instance ids are not remembered
	streamedRefresh        = 30 * time.Second
	streamedMinWriteGap    = time.Second // sightings are written at most once a second
	streamedRetouchOpenAge = time.Hour   // an open stream's row is refreshed this often
)

// Headers SDKs identify their instance with, in net/http's canonical form.
const (
	hdrConnectionID = "Unleash-Connection-Id"
	hdrAppName      = "Unleash-Appname"
	hdrInstanceID   = "Unleash-Instanceid"
)

// Values of the fetch-mode header, shared (net/http only reads them).
var (
	fetchModeStreamingHeader = []string{"streaming"}
	fetchModePollingHeader   = []string{"polling"}
)

// streamedSet is one immutable snapshot of the remembered instances: by
// connection id, and by application and instance id for SDKs that send no
// connection id.
type streamedSet struct {
	conns     map[string]time.Time
	instances map[appInstance]time.Time
}

type appInstance struct{ app, instance string }

func (s *streamedSet) size() int { return len(s.conns) + len(s.instances) }

// streamedClients remembers the SDK instances that streamed.
type streamedClients struct {
	known atomic.Pointer[streamedSet]
	wake  chan struct{}

	mu      sync.Mutex
	pending map[string]store.StreamedClient // sightings not written yet
	open    map[string]*openStreamer        // streams open on this server
	// nudged holds the instances given a 200 in place of a 304 so that
	// they read fetch-mode: streaming, with when: each gets it once until
	// it streams again.
	nudged map[string]time.Time
}

// openStreamer is one instance with streams open on this server.
type openStreamer struct {
	c        store.StreamedClient
	n        int
	recorded time.Time
}

func newStreamedClients() *streamedClients {
	c := &streamedClients{wake: make(chan struct{}, 1), pending: map[string]store.StreamedClient{},
		open: map[string]*openStreamer{}, nudged: map[string]time.Time{}}
	c.known.Store(&streamedSet{conns: map[string]time.Time{}, instances: map[appInstance]time.Time{}})
	return c
}

// streamedKey names the instance a request comes from: "c:" and its
// connection id, else "i:" and its application and instance id; "" when
// it names none the server keeps.
func streamedKey(h http.Header) string {
	if id := firstHeader(h, hdrConnectionID); id != "" {
		if len(id) > streamedIDMaxLen {
			return ""
		}
		return "c:" + id
	}
	app, inst := firstHeader(h, hdrAppName), firstHeader(h, hdrInstanceID)
	if app == "" || inst == "" || len(app) > streamedIDMaxLen || len(inst) > streamedIDMaxLen {
		return ""
	}
	return "i:" + app + "\n" + inst
}

func firstHeader(h http.Header, canonical string) string {
	if v := h[canonical]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// has reports whether the set remembers the instance of h, and its key.
func (s *streamedSet) has(h http.Header) (string, bool) {
	if id := firstHeader(h, hdrConnectionID); id != "" {
		if _, ok := s.conns[id]; ok {
			return "c:" + id, true
		}
		return "", false
	}
	app, inst := firstHeader(h, hdrAppName), firstHeader(h, hdrInstanceID)
	if app == "" || inst == "" {
		return "", false
	}
	if _, ok := s.instances[appInstance{app, inst}]; ok {
		return "i:" + app + "\n" + inst, true
	}
	return "", false
}

func (s *streamedSet) add(key string, seen time.Time) {
	switch {
	case strings.HasPrefix(key, "c:"):
		s.conns[key[2:]] = seen
	case strings.HasPrefix(key, "i:"):
		app, inst, _ := strings.Cut(key[2:], "\n")
		s.instances[appInstance{app, inst}] = seen
	}
}

// opened notes a stream of key going to a client, and returns what to
// call when it ends.
func (c *streamedClients) opened(key string, tok *store.APIToken, app string, now time.Time) func() {
	if key == "" {
		return func() {}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.nudged, key)
	o := c.open[key]
	if o == nil {
		if len(c.open) >= streamedPendingMax*10 {
			return func() {} // past every sensible count: not tracked
		}
		o = &openStreamer{c: store.StreamedClient{Key: key, TokenID: tok.ID, AppName: app}}
		c.open[key] = o
	}
	o.n++
	o.recorded = now
	o.c.SeenAt = now
	c.noteLocked(o.c)
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			if o.n--; o.n <= 0 {
				delete(c.open, key)
			}
		})
	}
}

// noteLocked queues a sighting for the next write; c.mu is held.
func (c *streamedClients) noteLocked(sc store.StreamedClient) {
	if _, ok := c.pending[sc.Key]; !ok && len(c.pending) >= streamedPendingMax {
		return // written at the next pass of the open streams
	}
	c.pending[sc.Key] = sc
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// nudge reports whether the instance key should get a 200 in place of a
// 304 (once, until it streams again).
func (c *streamedClients) nudge(key string, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, done := c.nudged[key]; done {
		return false
	}
	if len(c.nudged) >= streamedKnownMax {
		return false
	}
	c.nudged[key] = now
	return true
}

// persist writes the pending sightings (with those of streams open for long)
// and reads the remembered instances back into a fresh snapshot.
func (c *streamedClients) persist(ctx context.Context, st store.Store, now time.Time) error {
	c.mu.Lock()
	for _, o := range c.open {
		if now.Sub(o.recorded) >= streamedRetouchOpenAge {
			o.recorded = now
			o.c.SeenAt = now
			c.noteLocked(o.c)
		}
	}
	batch := make([]store.StreamedClient, 0, len(c.pending))
	for _, sc := range c.pending {
		batch = append(batch, sc)
	}
	clear(c.pending)
	c.mu.Unlock()

	var err error
	if len(batch) > 0 {
		err = st.Update(ctx, func(tx store.Tx) error {
			return tx.RecordStreamedClients(ctx, batch, now.Add(-streamedClientTTL), streamedPerToken, streamedPerApp)
		})
		if err != nil {
			// Kept for the next try, within the bounds.
			c.mu.Lock()
			for _, sc := range batch {
				if _, newer := c.pending[sc.Key]; !newer {
					c.noteLocked(sc)
				}
			}
			c.mu.Unlock()
		}
	}
	var rows []store.StreamedClient
	if rerr := st.View(ctx, func(r store.Reader) error {
		var err error
		rows, err = r.ListStreamedClients(ctx, now.Add(-streamedClientTTL), streamedKnownMax)
		return err
	}); rerr != nil {
		if err == nil {
			err = rerr
		}
		return err
	}
	set := &streamedSet{conns: make(map[string]time.Time, len(rows)), instances: map[appInstance]time.Time{}}
	for _, r := range rows {
		set.add(r.Key, r.SeenAt)
	}
	c.mu.Lock()
	// Sightings not written (a failed write) still count here.
	for _, sc := range c.pending {
		set.add(sc.Key, sc.SeenAt)
	}
	// An instance seen streaming since its nudge (on any server) gets the
	// next one when it polls again.
	for key, at := range c.nudged {
		seen, ok := set.seen(key)
		if !ok || seen.After(at) {
			delete(c.nudged, key)
		}
	}
	c.mu.Unlock()
	c.known.Store(set)
	return err
}

// seen is when the set last saw key streaming.
func (s *streamedSet) seen(key string) (time.Time, bool) {
	var t time.Time
	var ok bool
	switch {
	case strings.HasPrefix(key, "c:"):
		t, ok = s.conns[key[2:]]
	case strings.HasPrefix(key, "i:"):
		app, inst, _ := strings.Cut(key[2:], "\n")
		t, ok = s.instances[appInstance{app, inst}]
	}
	return t, ok
}

// runStreamedClients writes sightings soon after they come (at most once
// a second) and refreshes the snapshot every streamedRefresh, until ctx
// ends; then it writes what is left.
func (s *Server) runStreamedClients(ctx context.Context) {
	refresh := time.NewTicker(streamedRefresh)
	defer refresh.Stop()
	for {
		select {
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			s.syncStreamedClients(fctx)
			cancel()
			return
		case <-s.streamed.wake:
		case <-refresh.C:
		}
		s.syncStreamedClients(ctx)
		select {
		case <-ctx.Done():
		case <-time.After(streamedMinWriteGap):
		}
	}
}

func (s *Server) syncStreamedClients(ctx context.Context) {
	if err := s.streamed.persist(ctx, s.store, s.now()); err != nil && ctx.Err() == nil {
		s.log.Warn("remembering streaming SDKs failed; trying again", "err", err)
	}
}

// acceptsStreams reports whether a stream request would be served now.
func (s *Server) acceptsStreams() bool {
	return s.streams.active.Load() < int64(s.cfg.MaxStreams) && !s.streams.isClosed()
}

// pollFetchMode is the fetch-mode header of a poll answer to r (nil for
// none), and whether a matching ETag should still get a 200 so that the
// SDK reads it.
func (s *Server) pollFetchMode(r *http.Request) (header []string, nudge bool) {
	mode := s.cfg.AdvertiseStreaming
	if mode == AdvertiseOff {
		return nil, false
	}
	set := s.streamed.known.Load()
	if mode == AdvertiseStreamed && set.size() == 0 {
		return nil, false // nobody to tell: the common case costs one load
	}
	key, known := set.has(r.Header)
	if mode == AdvertiseStreamed && !known {
		return nil, false
	}
	if !s.acceptsStreams() {
		return fetchModePollingHeader, false
	}
	return fetchModeStreamingHeader, known && s.streamed.nudge(key, s.now())
}
