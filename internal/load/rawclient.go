package load

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

// rawClient is one worker's HTTP/1.1 keep-alive connection to a plain
// http target. Go's http.Client costs several µs and allocations per
// request (connection goroutines, channels, header maps), which on one core
// caps a generator below what fast servers answer; this client writes
// prebuilt request bytes and parses answers in place, so in steady state it
// costs a write, a read or two and no allocations per request.
type rawClient struct {
	ctx     context.Context
	dialer  *net.Dialer
	addr    string // host:port
	timeout time.Duration
	head    bool // HEAD: answers have no body

	// The request is prefix, then (with UniqueParam) a new value and suffix.
	prefix, suffix []byte
	unique         *uniqueValues
	buf            []byte // reused for requests with a unique value

	mu     sync.Mutex // guards conn, read by the cancel hook
	conn   net.Conn
	r      *bufio.Reader
	reused bool // conn has carried an answer, so the server may have closed it
	stop   func() bool
}

func newRawClient(ctx context.Context, cfg Config, u *url.URL, unique *uniqueValues) (*rawClient, error) {
	prefix, suffix, err := rawRequest(cfg, u)
	if err != nil {
		return nil, err
	}
	port := u.Port()
	if port == "" {
		port = "80"
	}
	c := &rawClient{
		ctx:     ctx,
		dialer:  &net.Dialer{Timeout: min(5*time.Second, cfg.Timeout), KeepAlive: 30 * time.Second, Control: dialLoopbackOnly},
		addr:    net.JoinHostPort(u.Hostname(), port),
		timeout: cfg.Timeout,
		head:    cfg.Method == http.MethodHead,
		prefix:  prefix,
		suffix:  suffix,
		r:       bufio.NewReaderSize(nil, 16<<10),
	}
	if cfg.UniqueParam != "" {
		c.unique = unique
	}
	// A request blocked on a slow server must not outlast the run: when ctx
	// ends, a deadline in the past wakes the read.
	c.stop = context.AfterFunc(ctx, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.conn != nil {
			_ = c.conn.SetDeadline(time.Unix(1, 0))
		}
	})
	return c, nil
}

// rawRequest builds the bytes of the request once. With UniqueParam they
// are split where the changing value goes, so each request only appends it.
func rawRequest(cfg Config, u *url.URL) (prefix, suffix []byte, err error) {
	target := u.RequestURI()
	if cfg.UniqueParam != "" {
		sep := "&"
		if u.RawQuery == "" {
			target, sep = strings.TrimSuffix(target, "?"), "?"
		}
		target += sep + cfg.UniqueParam + "="
	}
	host := u.Host
	var b strings.Builder
	keys := slices.SortedFunc(maps.Keys(cfg.Header), func(a, b string) int {
		return strings.Compare(http.CanonicalHeaderKey(a), http.CanonicalHeaderKey(b))
	})
	for _, k := range keys {
		name := http.CanonicalHeaderKey(k)
		for _, v := range cfg.Header[k] {
			if !validHeader(name, v) {
				return nil, nil, fmt.Errorf("bad request: header %q: %q", k, v)
			}
		}
		switch name {
		case "Host":
			if vs := cfg.Header[k]; len(vs) > 0 {
				host = vs[0]
			}
			continue
		case "Content-Length", "Transfer-Encoding", "Trailer":
			continue // framing is this client's, as with net/http
		}
		for _, v := range cfg.Header[k] {
			b.WriteString(name + ": " + v + "\r\n")
		}
	}
	// net/http also says Content-Length: 0 for an empty POST, PUT or PATCH.
	switch {
	case len(cfg.Body) > 0:
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(cfg.Body))
	case cfg.Method == http.MethodPost || cfg.Method == http.MethodPut || cfg.Method == http.MethodPatch:
		b.WriteString("Content-Length: 0\r\n")
	}
	rest := " HTTP/1.1\r\nHost: " + host + "\r\n" + b.String() + "\r\n" + string(cfg.Body)
	if cfg.UniqueParam == "" {
		return []byte(cfg.Method + " " + target + rest), nil, nil
	}
	return []byte(cfg.Method + " " + target), []byte(rest), nil
}

// validHeader refuses what would break the request's framing.
func validHeader(name, value string) bool {
	if name == "" || strings.ContainsFunc(name, func(r rune) bool { return r <= ' ' || r >= 0x7f || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r) }) {
		return false
	}
	return !strings.ContainsAny(value, "\r\n\x00")
}

// send sends one request and reads its answer, dialling when the last
// answer closed the connection.
func (c *rawClient) send() (int, int64, error) {
	req := c.prefix
	if c.unique != nil {
		c.buf = append(c.unique.append(append(c.buf[:0], c.prefix...)), c.suffix...)
		req = c.buf
	}
	for retried := false; ; retried = true {
		a, err := c.roundTrip(req)
		if err == nil {
			return a.status, a.bodyBytes, nil
		}
		c.drop()
		// Like net/http, send again once when a kept-alive connection turns
		// out to have been closed by the server before it answered.
		var none *noAnswerError
		if retried || !c.reused || !errors.As(err, &none) || errors.Is(err, os.ErrDeadlineExceeded) || c.ctx.Err() != nil {
			return 0, 0, err
		}
	}
}

func (c *rawClient) roundTrip(req []byte) (answer, error) {
	if c.conn == nil {
		if err := c.dial(); err != nil {
			return answer{}, err
		}
	}
	if err := c.conn.SetDeadline(time.Now().Add(c.timeout)); err != nil {
		return answer{}, err
	}
	// Checked after setting the deadline: a cancel from now on finds the
	// deadline set and replaces it (see newRawClient).
	if err := c.ctx.Err(); err != nil {
		return answer{}, err
	}
	if _, err := c.conn.Write(req); err != nil {
		// The server cannot have answered a request it did not get.
		return answer{}, &noAnswerError{err}
	}
	a, err := readAnswer(c.r, c.head)
	if err != nil {
		return answer{}, err
	}
	// Bytes nobody asked for would be taken for the next answer.
	if !a.keepAlive || c.r.Buffered() > 0 {
		c.drop()
	} else {
		c.reused = true
	}
	return a, nil
}

func (c *rawClient) dial() error {
	conn, err := c.dialer.DialContext(c.ctx, "tcp", c.addr)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.conn = conn
	c.mu.Unlock()
	c.r.Reset(conn)
	c.reused = false
	return nil
}

// drop closes the connection, if any; the next request dials a new one.
func (c *rawClient) drop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn != nil {
		_ = c.conn.Close()
		c.conn = nil
	}
}

// close ends the client for good, at the end of its worker.
func (c *rawClient) close() {
	c.stop()
	c.drop()
}
