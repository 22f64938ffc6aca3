package server

// Taken-over streams. A stream served the ordinary way holds a handler
// goroutine (deep stack: middleware, handler, select), net/http's
// background-read goroutine and its read, write and chunking buffers: some
// 25–50 KB per stream, every one of them idle almost all the time. Once
// its headers and first message are out, a stream on a plain HTTP/1.1 TCP
// connection without TLS is taken over from net/http instead: the server writes its
// messages itself (with the same chunked framing net/http would use), one
// small goroutine per stream only waits for the client to hang up, and one
// fan-out goroutine per server pushes every change and heartbeat to all
// taken streams. A change then wakes one goroutine rather than thousands,
// and the encoded delta is still shared between streams of one scope.
//
// A stream whose client reads slowly never holds the others up: the
// fan-out writes without waiting (a non-blocking write of what the socket
// takes), and what does not fit is finished by a goroutine of that
// stream's own, with the long deadline of ordinary streams, which then
// catches the stream up with later changes. The fan-out sets no deadline:
// arming a timer per socket and write costs far more than the write.

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"sync"
	"time"
)

// takenStream is one stream written by the fan-out.
type takenStream struct {
	conn net.Conn
	// ended is called once when the stream ends, with its place among
	// MaxStreams given back.
	ended func()
	q     clientQuery
	key   string // q.key(), for sharing messages between streams of a scope

	mu   sync.Mutex // one writer at a time; guards the fields below
	cur  int64      // the revision the client has (or will have, once a slow write is out)
	busy bool       // a goroutine of the stream's own is finishing a write
	dead bool
	// fd is the connection's socket, written directly without waiting
	// (-1: write through conn with a short deadline instead). It is
	// written only under mu while closed is false, and conn is closed
	// only under mu after closed is set, so a write can never reach a
	// descriptor number the system has already given to another file.
	fd     int
	closed bool
}

// takeOver hands the stream to the fan-out after writing its headers and
// first message itself; from then on the stream holds its place among
// MaxStreams until it ends. It reports false, having written nothing, when
// the connection cannot be taken (HTTP/2, HTTP/1.0, a test recorder) or
// is TLS, whose writes cannot go on after a timeout; the caller then
// serves the stream the ordinary way.
//
// The first message is given in pieces around events, which are shared
// between streams (a hydration may be megabytes), and written with one
// vectored write rather than copied per stream.
func (s *Server) takeOver(w http.ResponseWriter, r *http.Request, q clientQuery, rev int64, first eventMessage, ended func()) bool {
	if r.ProtoMajor != 1 || r.ProtoMinor < 1 || r.TLS != nil {
		return false
	}
	// What the client sent after its request (nothing, for an SSE client)
	// is dropped with net/http's buffers.
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return false
	}
	if u, ok := conn.(interface{ NetConn() net.Conn }); ok {
		conn = u.NetConn() // the socket itself, not a wrapper: its descriptor and vectored writes
	}
	_ = conn.SetReadDeadline(time.Time{})
	ts := &takenStream{conn: conn, ended: ended, q: q, key: q.key(), cur: rev, fd: socketOf(conn)}

	var b bytes.Buffer
	b.WriteString("HTTP/1.1 200 OK\r\n")
	h := w.Header().Clone()
	h.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	h.Set("Transfer-Encoding", "chunked")
	_ = h.Write(&b)
	b.WriteString("\r\n")
	b.WriteString(strconv.FormatInt(int64(first.len()), 16))
	b.WriteString("\r\n")
	b.Write(first.head)
	bufs := net.Buffers{b.Bytes(), first.events, append(first.tail, "\r\n"...)}
	_ = ts.conn.SetWriteDeadline(time.Now().Add(s.streamWriteTimeout()))
	if _, err := bufs.WriteTo(ts.conn); err != nil {
		ts.conn.Close()
		ended()
		s.streams.release()
		return true
	}
	if !s.streams.adopt(s, ts) {
		// Shutting down: the stream ends at once.
		ts.finish()
		ended()
		s.streams.release()
		return true
	}
	go ts.watchHangUp(s)
	// A change committed while the first message was on its way must not
	// wait for the next one.
	if s.revision.Load() > rev {
		s.streams.kickFanout()
	}
	return true
}

// appendChunk frames msg as one HTTP/1.1 chunk.
func appendChunk(b, msg []byte) []byte {
	b = strconv.AppendInt(b, int64(len(msg)), 16)
	b = append(b, "\r\n"...)
	b = append(b, msg...)
	return append(b, "\r\n"...)
}

// writeAll writes b with the deadline d, reporting success.
func (ts *takenStream) writeAll(b []byte, d time.Duration) bool {
	_ = ts.conn.SetWriteDeadline(time.Now().Add(d))
	_, err := ts.conn.Write(b)
	return err == nil
}

// watchHangUp waits for the client to close the connection (an SSE client
// sends nothing after its request), then ends the stream.
func (ts *takenStream) watchHangUp(s *Server) {
	var one [1]byte
	_, _ = ts.conn.Read(one[:])
	ts.kill(s)
}

// kill closes the connection and forgets the stream, once.
func (ts *takenStream) kill(s *Server) {
	ts.mu.Lock()
	already := ts.dead
	ts.dead = true
	ts.closeLocked()
	ts.mu.Unlock()
	if already {
		return
	}
	if s.streams.forget(ts) {
		ts.ended()
		s.streams.release()
	}
}

// closeLocked closes the connection once; ts.mu is held.
func (ts *takenStream) closeLocked() {
	if !ts.closed {
		ts.closed = true
		ts.conn.Close()
	}
}

// tryWrite writes what of b the socket takes now, without waiting: n is
// less than len(b) when it is full (err nil) or broken (err set); ts.mu
// is held.
func (ts *takenStream) tryWrite(b []byte) (n int, err error) {
	if ts.closed {
		return 0, net.ErrClosed
	}
	if ts.fd >= 0 {
		return sendNoWait(ts.fd, b)
	}
	// No descriptor to write to without waiting: a short deadline instead.
	_ = ts.conn.SetWriteDeadline(time.Now().Add(20 * time.Millisecond))
	n, err = ts.conn.Write(b)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		err = nil
	}
	return n, err
}

// finish ends the response (shutdown) with no fetch-mode event, so that
// the SDK opens its stream again rather than polling for good; closing
// the connection then ends the stream through watchHangUp.
func (ts *takenStream) finish() {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if !ts.dead && !ts.busy {
		_, _ = ts.tryWrite([]byte("0\r\n\r\n"))
	}
	ts.closeLocked()
}

// push brings the stream up to the latest revision in a fan-out pass: the
// pass's message for its scope and revision is written at once as far as
// the socket takes it, the rest by a goroutine of the stream's own. A
// stream busy with an earlier message is left to catch up by itself.
func (ts *takenStream) push(s *Server, pass *fanoutPass) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.dead || ts.busy {
		return
	}
	chunk, rev, ok := pass.update(s, ts, ts.cur)
	switch {
	case ok:
		ts.cur = rev
		ts.deliver(s, chunk)
	case rev > ts.cur:
		ts.cur = rev // nothing in the client's scope changed
	}
}

// deliver writes chunk, handing what the socket does not take now to a
// goroutine of the stream's own; ts.mu is held.
func (ts *takenStream) deliver(s *Server, chunk []byte) {
	n, err := ts.tryWrite(chunk)
	switch {
	case err != nil:
		go ts.kill(s)
	case n < len(chunk):
		ts.busy = true
		s.streams.slowWrites.Add(1)
		go ts.finishSlowly(s, chunk[n:])
	}
}

// finishSlowly writes the rest of a message with the ordinary stream
// deadline, then brings the stream up to the latest revision itself.
func (ts *takenStream) finishSlowly(s *Server, rest []byte) {
	for {
		if !ts.writeAll(rest, s.streamWriteTimeout()) {
			ts.kill(s)
			return
		}
		ts.mu.Lock()
		cur := ts.cur
		ts.mu.Unlock()
		msg, rev, ok := s.streamUpdate(ts.q, cur)
		ts.mu.Lock()
		if ts.dead {
			ts.busy = false
			ts.mu.Unlock()
			return
		}
		if !ok {
			ts.cur = max(ts.cur, rev) // nothing in the client's scope changed
			ts.busy = false
			// A fan-out pass that ran after streamUpdate looked at the
			// revision skipped this stream as busy: ask for another, or
			// the change would wait for the next one.
			behind := s.revision.Load() > ts.cur
			ts.mu.Unlock()
			if behind {
				s.streams.kickFanout()
			}
			return
		}
		ts.cur = rev
		rest = appendChunk(nil, msg)
		ts.mu.Unlock()
	}
}

// heartbeat writes a comment unless the stream is busy anyway.
func (ts *takenStream) heartbeat(s *Server) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.dead || ts.busy {
		return
	}
	ts.deliver(s, heartbeatChunk)
}

var heartbeatChunk = appendChunk(nil, []byte(heartbeatMessage))

// streamUpdate is the message that brings a client of scope q from
// revision cur to the latest one, if any is due.
func (s *Server) streamUpdate(q clientQuery, cur int64) (msg []byte, rev int64, ok bool) {
	if s.revision.Load() <= cur {
		return nil, 0, false
	}
	dh, latest, err := s.deltaLatest(context.Background(), q.Environment)
	if err != nil {
		// The database does not answer: the next change or the poll of
		// the revision brings another try.
		s.log.Debug("stream update failed", "err", err)
		return nil, 0, false
	}
	if latest.rev <= cur {
		return nil, 0, false
	}
	events, n, hydration := dh.events(q, cur, latest)
	if n == 0 && !hydration {
		return nil, latest.rev, false
	}
	return appendEvent(nil, "unleash-updated", latest.rev, events), latest.rev, true
}

// fanoutPass shares the framed update of one pass between the streams of
// one scope at one revision: most streams of a server have the same
// scope and are all one change behind.
type fanoutPass struct {
	mu      sync.Mutex
	updates map[passKey]passUpdate
}

type passKey struct {
	scope string
	cur   int64
}

type passUpdate struct {
	chunk []byte
	rev   int64
	ok    bool
}

func (p *fanoutPass) update(s *Server, ts *takenStream, cur int64) ([]byte, int64, bool) {
	k := passKey{ts.key, cur}
	p.mu.Lock()
	u, seen := p.updates[k]
	p.mu.Unlock()
	if !seen {
		msg, rev, ok := s.streamUpdate(ts.q, cur)
		u = passUpdate{rev: rev, ok: ok}
		if ok {
			u.chunk = appendChunk(nil, msg)
		}
		p.mu.Lock()
		p.updates[k] = u
		p.mu.Unlock()
	}
	return u.chunk, u.rev, u.ok
}

// runFanout pushes changes and heartbeats to the taken streams until the
// hub closes, then ends them.
func (h *streamHub) runFanout(s *Server) {
	heartbeat := time.NewTicker(s.cfg.StreamHeartbeat)
	defer heartbeat.Stop()
	for {
		select {
		case <-h.kick:
			pass := fanoutPass{updates: map[passKey]passUpdate{}}
			h.each(func(ts *takenStream) { ts.push(s, &pass) })
		case <-heartbeat.C:
			h.each(func(ts *takenStream) { ts.heartbeat(s) })
		case <-h.closing:
			h.each(func(ts *takenStream) { ts.finish() })
			return
		}
	}
}

// each calls fn for every taken stream, spread over a few goroutines.
func (h *streamHub) each(fn func(*takenStream)) {
	h.mu.Lock()
	list := make([]*takenStream, 0, len(h.taken))
	for ts := range h.taken {
		list = append(list, ts)
	}
	h.mu.Unlock()
	workers := min(max(1, len(list)/64), 4*runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(list); i += workers {
				fn(list[i])
			}
		})
	}
	wg.Wait()
}

// adopt adds a taken stream, starting the fan-out with the first; false
// once the hub is closed.
func (h *streamHub) adopt(s *Server, ts *takenStream) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	h.fanoutOnce.Do(func() { go h.runFanout(s) })
	h.taken[ts] = struct{}{}
	return true
}

// forget removes a taken stream; false if it was not there (the hub
// closed, or it was never adopted).
func (h *streamHub) forget(ts *takenStream) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.taken[ts]; !ok {
		return false
	}
	delete(h.taken, ts)
	return true
}

// kickFanout asks the fan-out for a pass; passes asked for while one runs
// merge into one.
func (h *streamHub) kickFanout() {
	select {
	case h.kick <- struct{}{}:
	default:
	}
}
