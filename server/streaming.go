package server

import (
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// Defaults of the streaming settings in Config.
const (
	defaultStreamHeartbeat = 20 * time.Second // well inside the SDKs' 60 s read timeout
	defaultMaxStreams      = 10000
)

// streamHub tells the open streams of new revisions and of shutdown. A
// stream waits on changed; raiseRevision closes it and puts a fresh one in
// its place, so one revision wakes every stream once, and streams never
// poll the database themselves.
type streamHub struct {
	mu      sync.Mutex
	changed chan struct{}
	closing chan struct{}
	closed  bool
	active  atomic.Int64
	// refusedLogged is when a refusal at the limit was last logged (Unix
	// seconds): at most once a minute.
	refusedLogged atomic.Int64
	// taken are the streams the fan-out writes (stream_takeover.go);
	// kick asks it for a pass.
	taken      map[*takenStream]struct{}
	kick       chan struct{}
	fanoutOnce sync.Once
	slowWrites atomic.Int64 // fan-out writes handed to a stream's own goroutine
}

func newStreamHub() *streamHub {
	return &streamHub{changed: make(chan struct{}), closing: make(chan struct{}),
		taken: map[*takenStream]struct{}{}, kick: make(chan struct{}, 1)}
}

// wake tells every waiting stream that the revision moved. A Server put
// together without New (start-up bootstrap) has no hub and no streams.
func (h *streamHub) wake() {
	if h == nil {
		return
	}
	h.mu.Lock()
	close(h.changed)
	h.changed = make(chan struct{})
	h.mu.Unlock()
	h.kickFanout()
}

// next is the channel closed on the next revision change.
func (h *streamHub) next() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.changed
}

func (h *streamHub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.closed {
		h.closed = true
		close(h.closing)
	}
}

func (h *streamHub) isClosed() bool {
	select {
	case <-h.closing:
		return true
	default:
		return false
	}
}

// acquire counts a new stream unless max are open.
func (h *streamHub) acquire(limit int) bool {
	for {
		n := h.active.Load()
		if n >= int64(limit) {
			return false
		}
		if h.active.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

func (h *streamHub) release() { h.active.Add(-1) }

// registerStreamMetrics reports the open streams to Prometheus.
func (s *Server) registerStreamMetrics() {
	s.registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "signalbox_client_streams", Help: "Streams (GET /api/client/streaming) being served.",
	}, func() float64 { return float64(s.streams.active.Load()) }))
}

// CloseStreams ends every open stream, and streams opened afterwards at
// once. Call it when shutdown begins (http.Server.RegisterOnShutdown),
// since a graceful shutdown otherwise waits for streams that never end.
// The streams just end, with no fetch-mode event: SDKs take that event as
// an order to poll for good, whereas a stream that ends is one they open
// again, on this server once it is back or on another one.
func (s *Server) CloseStreams() { s.streams.close() }

// OpenStreams is the number of streams being served.
func (s *Server) OpenStreams() int { return int(s.streams.active.Load()) }

// withFetchMode adds the fetch-mode header of a poll answer
// (stream_resume.go).
func (s *Server) withFetchMode(h func(w http.ResponseWriter, r *http.Request, tok *store.APIToken) error) func(w http.ResponseWriter, r *http.Request, tok *store.APIToken) error {
	return func(w http.ResponseWriter, r *http.Request, tok *store.APIToken) error {
		if v, _ := s.pollFetchMode(r); v != nil {
			w.Header()["Fetch-Mode"] = v
		}
		return h(w, r, tok)
	}
}

// handleClientStreaming serves GET /api/client/streaming: Server-Sent
// Events with the token's scope, first whole (or, with a Last-Event-ID
// still in the history, the events since), then every change.
func (s *Server) handleClientStreaming(w http.ResponseWriter, r *http.Request, tok *store.APIToken) error {
	// SDKs send no filters on the stream: it carries the token's scope.
	q := clientQuery{Environment: tokenEnvironment(tok), Projects: tok.Projects}.normalized()
	if !s.streams.acquire(s.cfg.MaxStreams) {
		// 429 sends the SDK to polling at once, where it is told to poll.
		if now := s.now().Unix(); now-s.streams.refusedLogged.Load() >= 60 {
			s.streams.refusedLogged.Store(now)
			s.log.Warn("refusing streams: this server serves its maximum; SDKs poll instead", "maxStreams", s.cfg.MaxStreams)
		}
		return apierr.New(apierr.TooManyRequests, "this server serves its maximum of %d streams; poll instead", s.cfg.MaxStreams)
	}
	ended := s.streamed.opened(streamedKey(r.Header), tok, firstHeader(r.Header, hdrAppName), s.now())
	taken := false
	defer func() {
		if !taken {
			ended()
			s.streams.release()
		}
	}()
	ctx := r.Context()
	dh, latest, err := s.deltaLatest(ctx, q.Environment)
	if err != nil {
		return err
	}
	from := parseRevision(r.Header.Get("Last-Event-ID"))
	events, _, _ := dh.events(q, from, latest)

	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // reverse proxies must pass events on at once
	first := newEventMessage("unleash-connected", latest.rev, events)
	if taken = s.takeOver(w, r, q, latest.rev, first, ended); taken {
		return nil
	}
	w.WriteHeader(http.StatusOK)
	sw := &sseWriter{w: w, rc: http.NewResponseController(w), timeout: s.streamWriteTimeout()}
	if err := sw.event("unleash-connected", latest.rev, events); err != nil {
		return nil // the client went away
	}
	cur := latest.rev
	heartbeat := time.NewTicker(s.cfg.StreamHeartbeat)
	defer heartbeat.Stop()
	for {
		// Take the channel before looking at the revision, so that a
		// change between the two is not missed.
		changed := s.streams.next()
		if s.revision.Load() > cur {
			dh, latest, err := s.deltaLatest(ctx, q.Environment)
			if err != nil {
				// The database does not answer: keep the stream and try
				// again at the next change or heartbeat.
				s.log.Debug("stream update failed", "err", err)
			} else if latest.rev > cur {
				if events, n, hydration := dh.events(q, cur, latest); n > 0 || hydration {
					if err := sw.event("unleash-updated", latest.rev, events); err != nil {
						return nil
					}
				}
				cur = latest.rev
			}
		}
		select {
		case <-changed:
		case <-heartbeat.C:
			if err := sw.comment(); err != nil {
				return nil
			}
		case <-ctx.Done():
			return nil
		case <-s.streams.closing:
			return nil // ends the response: the SDK reconnects
		}
	}
}

// streamWriteTimeout bounds one write to a stream, so that a client that
// stopped reading does not hold its stream for ever, while the stream as a
// whole outlives any write timeout of the HTTP server.
func (s *Server) streamWriteTimeout() time.Duration {
	return max(2*s.cfg.StreamHeartbeat, 10*time.Second)
}

// sseWriter writes Server-Sent Events and flushes each one.
type sseWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	buf     []byte
}

func (sw *sseWriter) write(b []byte) error {
	// Not every writer supports deadlines (tests' recorders); the stream
	// works without.
	_ = sw.rc.SetWriteDeadline(time.Now().Add(sw.timeout))
	if _, err := sw.w.Write(b); err != nil {
		return err
	}
	return sw.rc.Flush()
}

// event writes one message whose data is {"events":[events]}; id is the
// revision the client has once it applied the message.
func (sw *sseWriter) event(name string, id int64, events []byte) error {
	b := appendEvent(sw.buf[:0], name, id, events)
	err := sw.write(b)
	if cap(b) <= 4096 {
		sw.buf = b // keep small buffers only: a hydration may be megabytes
	}
	return err
}

// appendEvent appends the message whose data is {"events":[events]}.
func appendEvent(b []byte, name string, id int64, events []byte) []byte {
	m := newEventMessage(name, id, events)
	b = append(b, m.head...)
	b = append(b, events...)
	return append(b, m.tail...)
}

// eventMessage is a message whose data is {"events":[events]}, in pieces:
// events (JSON without newlines, so one data line) stay the bytes shared
// between streams.
type eventMessage struct {
	head, events, tail []byte
}

func newEventMessage(name string, id int64, events []byte) eventMessage {
	head := append([]byte("event: "), name...)
	head = append(head, "\nid: "...)
	head = strconv.AppendInt(head, id, 10)
	head = append(head, "\ndata: {\"events\":["...)
	return eventMessage{head: head, events: events, tail: []byte("]}\n\n")}
}

func (m eventMessage) len() int { return len(m.head) + len(m.events) + len(m.tail) }

// heartbeatMessage is the message without data that keeps a stream alive.
const heartbeatMessage = ":\n\n"

func (sw *sseWriter) comment() error { return sw.write([]byte(heartbeatMessage)) }
