package httpx

import (
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// net/http sends a response through a 4 KB buffer: an answer larger than
// that leaves in two writes, the buffer's first 4 KB (headers and the start
// of the body) and the rest. On loopback and in a LAN each write is a trip
// through the kernel's TCP stack and, as often as not, a wake-up of the
// reader: for an answer of a few kilobytes the second write costs as much
// as everything the handler does.
//
// ServeCoalescing's connections send such an answer in one write when
// it is complete before its first byte leaves: a handler that writes its
// whole body at once, with Content-Length set to that length (the client,
// frontend and proxy APIs answer so), arms the connection through the
// statusWriter of the middleware chain, and the connection holds the
// buffer's first write until net/http hands it the rest, then sends both
// together. Nothing else is held: a streamed answer, or one whose length
// the handler did not know, is written as net/http writes it.
//
// A held write is sent at the latest when net/http finishes the response:
// it then flushes the rest, or touches the connection's read side
// (deadlines, the next request), or closes it.
//
// The same connections also put off read deadlines set while no read is
// under way until the next read (see SetReadDeadline): each one that
// reaches the socket costs a trip through the runtime's timers.

// ServeCoalescing serves srv on ln's connections wrapped so that a
// complete answer can leave in one write. It sets srv.ConnContext, through
// which a request's statusWriter finds its connection.
func ServeCoalescing(srv *http.Server, ln net.Listener) error {
	srv.ConnContext = connContext
	return srv.Serve(coalescingListener{ln})
}

func connContext(ctx context.Context, c net.Conn) context.Context {
	if cc, ok := c.(*coalescingConn); ok {
		return context.WithValue(ctx, coalescingConnKey{}, cc)
	}
	return ctx
}

type coalescingConnKey struct{}

func coalescingConnOf(ctx context.Context) *coalescingConn {
	cc, _ := ctx.Value(coalescingConnKey{}).(*coalescingConn)
	return cc
}

// coalesceMin is the smallest whole body worth arming for: with the
// headers (a few hundred bytes) a smaller one fits net/http's 4 KB buffer
// and leaves in one write anyway.
const coalesceMin = 3 << 10

// coalesceHoldMax is the largest write held: net/http's buffer. A larger
// first write is a body written past that buffer (its headers went out
// before), and goes out as it is.
const coalesceHoldMax = 4 << 10

// coalesceCopyMax bounds what is copied to send a held write and the one
// after it as one buffer; larger pairs go out as one writev, which copies
// nothing more in the process.
const coalesceCopyMax = 2 * coalesceHoldMax

type coalescingListener struct{ net.Listener }

func (l coalescingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &coalescingConn{Conn: c}, nil
}

// coalescingConn is a connection whose next write can be held until the
// one after it (see ServeCoalescing). Writes come from the goroutine
// serving the connection; the mutex guards against a Close from another
// one (Server.Close) and the read side.
type coalescingConn struct {
	net.Conn
	armed atomic.Bool // the answer being written is complete
	mu    sync.Mutex
	held  *[]byte // the write being held, from heldPool
	err   error   // from sending a held write outside Write
	bufs  net.Buffers

	// The read side (see SetReadDeadline): rmu guards the rest.
	rmu      sync.Mutex
	reading  bool      // a Read is under way
	deadline time.Time // set while no Read was under way, for the next
	pending  bool      // deadline is not applied yet
}

var heldPool = sync.Pool{New: func() any { b := make([]byte, 0, coalesceCopyMax); return &b }}

// arm asks for the response being written to go out in as few writes as
// possible: its body is complete.
func (c *coalescingConn) arm() { c.armed.Store(true) }

func (c *coalescingConn) Write(p []byte) (int, error) {
	if !c.armed.Load() {
		return c.Conn.Write(p)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return 0, c.err
	}
	if !c.armed.Load() {
		// The read side sent what was held while this write waited for
		// the lock: this one follows it as it is.
		return c.Conn.Write(p)
	}
	if c.held == nil {
		if len(p) > coalesceHoldMax {
			c.release()
			return c.Conn.Write(p)
		}
		// net/http reuses its buffer once Write returns: keep a copy.
		b := heldPool.Get().(*[]byte)
		*b = append((*b)[:0], p...)
		c.held = b
		return len(p), nil
	}
	held := *c.held
	var err error
	if len(held)+len(p) <= coalesceCopyMax {
		*c.held = append(held, p...)
		_, err = c.Conn.Write(*c.held)
	} else {
		c.bufs = append(c.bufs[:0], held, p)
		_, err = c.bufs.WriteTo(c.Conn) // one writev on a TCP connection
		c.bufs = c.bufs[:0]
	}
	c.release()
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// release ends the hold and returns its buffer; c.mu is held.
func (c *coalescingConn) release() {
	c.armed.Store(false)
	if c.held != nil {
		heldPool.Put(c.held)
		c.held = nil
	}
}

// sendHeld sends a held write alone: net/http has nothing more for this
// response, or reads before writing more. An error is kept for the
// connection's next read or write. A connection armed with nothing held
// yet stays armed: net/http's background read of the connection may start
// after the handler has armed it, before the answer's first write.
func (c *coalescingConn) sendHeld() error {
	if !c.armed.Load() {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sendHeldLocked()
}

// sendHeldLocked is sendHeld with c.mu held.
func (c *coalescingConn) sendHeldLocked() error {
	if c.held == nil {
		return c.err
	}
	if c.err == nil {
		_, c.err = c.Conn.Write(*c.held)
	}
	c.release()
	return c.err
}

func (c *coalescingConn) Read(p []byte) (int, error) {
	if err := c.sendHeld(); err != nil {
		return 0, err
	}
	c.rmu.Lock()
	if c.pending {
		c.pending = false
		_ = c.Conn.SetReadDeadline(c.deadline) // fails only once closed, as the read will
	}
	c.reading = true
	c.rmu.Unlock()
	n, err := c.Conn.Read(p)
	c.rmu.Lock()
	c.reading = false
	c.rmu.Unlock()
	return n, err
}

// ReadFrom keeps net/http's sendfile path for files (see io.ReaderFrom on
// *net.TCPConn).
func (c *coalescingConn) ReadFrom(r io.Reader) (int64, error) {
	if err := c.sendHeld(); err != nil {
		return 0, err
	}
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(struct{ io.Writer }{c.Conn}, r)
}

func (c *coalescingConn) SetDeadline(t time.Time) error {
	_ = c.sendHeld()
	c.rmu.Lock()
	defer c.rmu.Unlock()
	c.pending = false
	return c.Conn.SetDeadline(t)
}

// SetReadDeadline applies t at once to a Read under way (net/http ends its
// background read so), and otherwise keeps it for the next Read: a deadline
// only ever acts on reads, and of those set in between only the last one
// counts. net/http sets six per request on a kept-alive connection: one
// ends its background read (at once), the idle timeout waits for the next
// request, and the header and body timeouts for the reads after it; three
// reach the socket.
func (c *coalescingConn) SetReadDeadline(t time.Time) error {
	_ = c.sendHeld()
	c.rmu.Lock()
	defer c.rmu.Unlock()
	if c.reading {
		c.pending = false
		return c.Conn.SetReadDeadline(t)
	}
	c.deadline, c.pending = t, true
	return nil
}

// CloseWrite ends the sending side, as net/http does before closing a
// connection whose request body it did not read.
func (c *coalescingConn) CloseWrite() error {
	_ = c.sendHeld()
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// Close sends what is held, unless a write is under way in another
// goroutine: Server.Close closing a connection whose write waits on a
// client that does not read must end that write, not wait behind it.
func (c *coalescingConn) Close() error {
	if c.armed.Load() && c.mu.TryLock() {
		_ = c.sendHeldLocked()
		c.mu.Unlock()
	}
	return c.Conn.Close()
}

// NetConn is the connection underneath, as tls.Conn's method of the same
// name gives it: for a handler that takes the connection over (Hijack) and
// wants the socket itself (its descriptor, vectored writes). What was held
// is sent first.
func (c *coalescingConn) NetConn() net.Conn {
	_ = c.sendHeld()
	return c.Conn
}

// wholeBody reports whether p, written first, is the whole body h
// announces with Content-Length.
func wholeBody(h http.Header, p []byte) bool {
	v := h["Content-Length"]
	if len(v) != 1 {
		return false
	}
	n, err := strconv.Atoi(v[0])
	return err == nil && n == len(p)
}
