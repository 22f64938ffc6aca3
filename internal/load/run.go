package load

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// maxErrorKinds bounds ErrorCounts, since error texts can vary.
const maxErrorKinds = 10

// Run sends requests as cfg says and reports what it measured. It refuses a
// target that is not loopback and a run without a bound. If ctx is
// cancelled, Run stops early and returns what it measured so far together
// with ctx's error.
func Run(ctx context.Context, cfg Config) (Result, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return Result{}, err
	}
	u, err := CheckURL(ctx, cfg.URL)
	if err != nil {
		return Result{}, err
	}
	var before MemorySample
	if cfg.PID != 0 {
		// Read once up front so a wrong pid fails before the run, not after.
		if before, err = ReadMemory(cfg.PID); err != nil {
			return Result{}, err
		}
	}

	client := newClient(cfg)
	defer client.CloseIdleConnections()
	runCtx := ctx
	if cfg.Duration > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, cfg.Duration)
		defer cancel()
	}

	var issued atomic.Int64
	workers := make([]*worker, cfg.Concurrency)
	for i := range workers {
		if workers[i], err = newWorker(runCtx, cfg, u, client, &issued); err != nil {
			return Result{}, err
		}
	}
	var wg sync.WaitGroup
	start := time.Now()
	for _, w := range workers {
		wg.Go(w.run)
	}
	wg.Wait()
	elapsed := time.Since(start)

	res := Result{URL: u.String(), Method: cfg.Method, Concurrency: cfg.Concurrency, Status: map[int]int64{}, Elapsed: elapsed}
	lat := newHistogram()
	for _, w := range workers {
		lat.merge(w.latency)
		res.Errors += w.errors
		res.Bytes += w.bytes
		for code, n := range w.status {
			res.Status[code] += n
		}
		for msg, n := range w.errorCounts {
			addError(&res.ErrorCounts, msg, n)
		}
	}
	res.Requests = int64(lat.n)
	res.Latency = latencyOf(lat)
	if s := elapsed.Seconds(); s > 0 {
		res.RequestsPerSec = float64(res.Requests) / s
		res.BytesPerSec = float64(res.Bytes) / s
	}
	if cfg.PID != 0 {
		after, err := ReadMemory(cfg.PID)
		if err != nil {
			return res, err
		}
		res.Memory = &Memory{PID: cfg.PID, Before: before, After: after}
	}
	if err := ctx.Err(); err != nil {
		return res, fmt.Errorf("run interrupted: %w", err)
	}
	return res, nil
}

// newClient builds a client that keeps one idle connection per worker (so
// connections are reused rather than redialled), connects to loopback only,
// ignores proxy settings and does not follow redirects (a redirect is an
// answer to measure, not a cue to load another URL).
func newClient(cfg Config) *http.Client {
	dialer := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second, Control: dialLoopbackOnly}
	tr := &http.Transport{
		Proxy:               nil,
		DialContext:         dialer.DialContext,
		MaxIdleConns:        cfg.Concurrency,
		MaxIdleConnsPerHost: cfg.Concurrency,
		MaxConnsPerHost:     cfg.Concurrency, // one connection per worker, never more
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 10 * time.Second,
		DisableCompression:  true,
	}
	if cfg.Insecure {
		tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true}
	}
	return &http.Client{
		Transport:     tr,
		Timeout:       cfg.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// worker sends one request at a time and keeps its own tallies, merged
// after the run, so workers share nothing but the request counter.
type worker struct {
	ctx         context.Context
	client      *http.Client
	base        *http.Request
	body        []byte
	limit       int64
	issued      *atomic.Int64
	latency     *histogram
	status      map[int]int64
	errors      int64
	errorCounts map[string]int64
	bytes       int64
	unique      string // UniqueParam
	id          uint64 // distinguishes workers' unique values
	seq         uint64
}

// issuedWorkers numbers workers across runs, so unique values never repeat.
var issuedWorkers atomic.Uint64

func newWorker(ctx context.Context, cfg Config, u *url.URL, client *http.Client, issued *atomic.Int64) (*worker, error) {
	base, err := http.NewRequestWithContext(ctx, cfg.Method, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("bad request: %w", err)
	}
	for k, vs := range cfg.Header {
		if http.CanonicalHeaderKey(k) == "Host" {
			if len(vs) > 0 {
				base.Host = vs[0]
			}
			continue
		}
		base.Header[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
	}
	return &worker{
		ctx: ctx, client: client, base: base, body: cfg.Body, unique: cfg.UniqueParam, id: issuedWorkers.Add(1),
		limit: int64(cfg.Requests), issued: issued,
		latency: newHistogram(), status: map[int]int64{},
	}, nil
}

func (w *worker) run() {
	for {
		if w.limit > 0 && w.issued.Add(1) > w.limit {
			return
		}
		if w.ctx.Err() != nil {
			return
		}
		start := time.Now()
		code, n, err := w.do()
		if err != nil {
			if w.ctx.Err() != nil {
				// Cut off by the end of the run: neither an answer nor a
				// failure of the target.
				return
			}
			w.errors++
			addError(&w.errorCounts, errorText(err), 1)
			continue
		}
		w.latency.record(time.Since(start))
		w.status[code]++
		w.bytes += n
	}
}

// do sends one request and reads the whole answer, so the connection can
// be reused and the latency includes the body.
func (w *worker) do() (int, int64, error) {
	// A shallow copy is enough: the transport only reads the request, and
	// the shared header map is never written after newWorker.
	req := new(http.Request)
	*req = *w.base
	if w.unique != "" {
		u := *w.base.URL
		w.seq++
		sep := "&"
		if u.RawQuery == "" {
			sep = ""
		}
		u.RawQuery += sep + w.unique + "=" + strconv.FormatUint(uint64(w.id)<<40|w.seq, 36)
		req.URL = &u
	}
	if len(w.body) > 0 {
		req.ContentLength = int64(len(w.body))
		req.Body = io.NopCloser(bytes.NewReader(w.body))
		// GetBody lets the transport replay the body when a kept-alive
		// connection turns out to have been closed by the server.
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(w.body)), nil }
	}
	resp, err := w.client.Do(req)
	if err != nil {
		return 0, 0, err
	}
	n, err := io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return 0, 0, err
	}
	return resp.StatusCode, n, nil
}

// errorText drops the "Get "http://…":" prefix the client adds, so errors
// group by cause.
func errorText(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return err.Error()
}

func addError(m *map[string]int64, msg string, n int64) {
	if *m == nil {
		*m = map[string]int64{}
	}
	if _, ok := (*m)[msg]; !ok && len(*m) >= maxErrorKinds {
		msg = "other"
	}
	(*m)[msg] += n
}
