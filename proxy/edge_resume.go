package proxy

// Bringing SDKs back to streaming behind a node. An SDK whose stream broke
// a few times in a row (the node restarted) polls, and goes back to its
// stream only when a poll answer (a 200: a 304 is not read) carries
// fetch-mode: streaming. The node remembers, in memory and for a day, the
// SDK instances that held a stream on it, and gives exactly these that
// header, with one 200 in place of a 304; an SDK that only ever polled is
// left as it is. Polls read a sync.Map: no lock on their path.

import (
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Bounds of the remembered streaming SDKs.
const (
	edgeStreamerTTL   = 24 * time.Hour
	edgeStreamersMax  = 100000
	edgeStreamerIDMax = 256
)

// Values of the fetch-mode header, shared (net/http only reads them).
var (
	hdrFetchModeStreaming = []string{"streaming"}
	hdrFetchModePolling   = []string{"polling"}
)

// edgeStreamers are the SDK instances that held a stream on the node.
type edgeStreamers struct {
	m sync.Map // key -> *edgeStreamer
	n atomic.Int64
	// sweepMu makes one sweep at a time.
	sweepMu sync.Mutex
}

type edgeStreamer struct {
	seen   atomic.Int64 // Unix seconds of its last stream
	nudged atomic.Bool  // got its 200 in place of a 304 since
}

// edgeStreamerKey names the instance a request comes from: its connection
// id, else its application and instance id; "" when it names none kept.
func edgeStreamerKey(h http.Header) string {
	if v := h["Unleash-Connection-Id"]; len(v) > 0 && v[0] != "" {
		if len(v[0]) > edgeStreamerIDMax {
			return ""
		}
		return "c:" + v[0]
	}
	app, inst := h["Unleash-Appname"], h["Unleash-Instanceid"]
	if len(app) == 0 || len(inst) == 0 || app[0] == "" || inst[0] == "" ||
		len(app[0]) > edgeStreamerIDMax || len(inst[0]) > edgeStreamerIDMax {
		return ""
	}
	return "i:" + app[0] + "\n" + inst[0]
}

// streamed notes a stream of key.
func (s *edgeStreamers) streamed(key string, now time.Time) {
	if key == "" {
		return
	}
	if v, ok := s.m.Load(key); ok {
		st := v.(*edgeStreamer)
		st.seen.Store(now.Unix())
		st.nudged.Store(false)
		return
	}
	if s.n.Load() >= edgeStreamersMax {
		s.sweep(now)
		if s.n.Load() >= edgeStreamersMax {
			return
		}
	}
	st := &edgeStreamer{}
	st.seen.Store(now.Unix())
	if _, loaded := s.m.LoadOrStore(key, st); !loaded {
		s.n.Add(1)
	}
}

// sweep forgets the instances not seen streaming for a day.
func (s *edgeStreamers) sweep(now time.Time) {
	s.sweepMu.Lock()
	defer s.sweepMu.Unlock()
	cut := now.Add(-edgeStreamerTTL).Unix()
	s.m.Range(func(k, v any) bool {
		if v.(*edgeStreamer).seen.Load() < cut {
			if _, ok := s.m.LoadAndDelete(k); ok {
				s.n.Add(-1)
			}
		}
		return true
	})
}

// pollFetchMode is the fetch-mode header of a poll answer to h (nil for
// none), and whether a matching ETag should still get a 200 so that the
// SDK reads it.
func (e *Edge) pollFetchMode(h http.Header, now time.Time) (header []string, nudge bool) {
	if e.streamers.n.Load() == 0 {
		return nil, false
	}
	key := edgeStreamerKey(h)
	if key == "" {
		return nil, false
	}
	v, ok := e.streamers.m.Load(key)
	if !ok {
		return nil, false
	}
	st := v.(*edgeStreamer)
	if st.seen.Load() < now.Add(-edgeStreamerTTL).Unix() {
		return nil, false
	}
	if !e.acceptsStreams() {
		return hdrFetchModePolling, false
	}
	return hdrFetchModeStreaming, st.nudged.CompareAndSwap(false, true)
}

// acceptsStreams reports whether a stream request would be served now.
func (e *Edge) acceptsStreams() bool {
	select {
	case <-e.closing:
		return false
	default:
	}
	return e.streams.Load() < int64(e.cfg.MaxStreams)
}
