package load

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
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
	var cpuBefore time.Duration
	if cfg.PID != 0 {
		// Read once up front so a wrong pid fails before the run, not after.
		if before, err = ReadMemory(cfg.PID); err != nil {
			return Result{}, err
		}
		if cpuBefore, err = ReadCPU(cfg.PID); err != nil {
			return Result{}, err
		}
	}

	// Plain http goes through rawClient, which costs the generator far less
	// per request; https needs net/http's TLS.
	var client *http.Client
	if u.Scheme == "https" {
		client = newClient(cfg)
		defer client.CloseIdleConnections()
	}
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
			for _, w := range workers[:i] {
				w.sender.close()
			}
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
		cpuAfter, err := ReadCPU(cfg.PID)
		if err != nil {
			return res, err
		}
		res.TargetCPU = cpuAfter - cpuBefore
	}
	if err := ctx.Err(); err != nil {
		return res, fmt.Errorf("run interrupted: %w", err)
	}
	return res, nil
}

// sender sends one request and reads its whole answer, so the connection
// can be reused and the latency includes the body.
type sender interface {
	send() (status int, bodyBytes int64, err error)
	close()
}

// worker sends one request at a time and keeps its own tallies, merged
// after the run, so workers share nothing but the request counter.
type worker struct {
	ctx         context.Context
	sender      sender
	limit       int64
	issued      *atomic.Int64
	latency     *histogram
	status      map[int]int64
	errors      int64
	errorCounts map[string]int64
	bytes       int64
}

// uniqueValues makes a worker's UniqueParam values: the worker's number in
// the high bits, so no two workers (in any run) share one, and a sequence.
type uniqueValues struct{ id, seq uint64 }

// issuedWorkers numbers workers across runs, so unique values never repeat.
var issuedWorkers atomic.Uint64

// append appends the next value to b, in base 36 to keep queries short.
func (u *uniqueValues) append(b []byte) []byte {
	u.seq++
	return strconv.AppendUint(b, u.id<<40|u.seq, 36)
}

func newWorker(ctx context.Context, cfg Config, u *url.URL, client *http.Client, issued *atomic.Int64) (*worker, error) {
	// Checked here for both clients, so a bad method fails the run at once.
	if _, err := http.NewRequest(cfg.Method, u.String(), nil); err != nil {
		return nil, fmt.Errorf("bad request: %w", err)
	}
	unique := &uniqueValues{id: issuedWorkers.Add(1)}
	var s sender
	var err error
	if client != nil {
		s, err = newStdClient(ctx, cfg, u, client, unique)
	} else {
		s, err = newRawClient(ctx, cfg, u, unique)
	}
	if err != nil {
		return nil, err
	}
	return &worker{
		ctx: ctx, sender: s, limit: int64(cfg.Requests), issued: issued,
		latency: newHistogram(), status: map[int]int64{},
	}, nil
}

func (w *worker) run() {
	defer w.sender.close()
	for {
		if w.limit > 0 && w.issued.Add(1) > w.limit {
			return
		}
		if w.ctx.Err() != nil {
			return
		}
		start := time.Now()
		code, n, err := w.sender.send()
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

// errorText drops the "Get "http://…":" prefix net/http adds and the
// addresses a net.OpError quotes (the local port differs on every
// connection), so errors group by cause.
func errorText(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return "timeout"
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return op.Op + ": " + op.Err.Error()
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
