// Package load is a bounded, loopback-only HTTP load generator for the
// project's end-to-end benchmarks. It drives a fixed number of workers in a
// closed loop (each sends its next request when the previous one has been
// answered) over kept-alive connections, and reports throughput, latency
// percentiles and status counts. Run refuses any target that is not on this
// machine and any run without a bound, so it cannot be turned on someone
// else's service or left running.
package load

import (
	"fmt"
	"net/http"
	"time"
)

// Bounds on a run. They keep a typo from producing an endless run.
const (
	MaxRequests    = 10_000_000
	MaxDuration    = 10 * time.Minute
	MaxConcurrency = 1_000
	// DefaultTimeout limits each request when Config.Timeout is zero.
	DefaultTimeout = 30 * time.Second
)

// Config describes a run. At least one of Requests and Duration must be
// set; with both, the run stops at whichever comes first.
type Config struct {
	// URL is the target; its host must be or resolve only to loopback
	// addresses.
	URL string
	// Method defaults to GET, or POST when Body is not empty.
	Method string
	// Body is sent with every request.
	Body []byte
	// Header is added to every request; a Host entry sets the Host header.
	Header http.Header
	// Concurrency is the number of workers, each with one request in
	// flight (default 1).
	Concurrency int
	// Requests is the total number of requests to send (0: no count limit).
	Requests int
	// Duration is how long to send requests (0: no time limit).
	Duration time.Duration
	// Timeout limits each request (default DefaultTimeout).
	Timeout time.Duration
	// Insecure skips TLS certificate checks, for https on loopback with a
	// self-signed certificate.
	Insecure bool
	// UniqueParam, when set, appends "&<UniqueParam>=<n>" with a new n to
	// every request's query, so that a server that caches answers per query
	// must compute each one (for measuring the uncached path).
	UniqueParam string
	// PID, when not zero, is a process whose memory use (VmRSS, VmHWM from
	// /proc/<pid>/status) is read before and after the run.
	PID int
}

// withDefaults returns c with defaults filled in, or an error saying which
// setting is out of bounds.
func (c Config) withDefaults() (Config, error) {
	if c.Method == "" {
		c.Method = http.MethodGet
		if len(c.Body) > 0 {
			c.Method = http.MethodPost
		}
	}
	if c.Concurrency == 0 {
		c.Concurrency = 1
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	switch {
	case c.Requests == 0 && c.Duration == 0:
		return c, fmt.Errorf("set a request count or a duration, so the run ends")
	case c.Requests < 0 || c.Requests > MaxRequests:
		return c, fmt.Errorf("request count %d is outside 1..%d", c.Requests, MaxRequests)
	case c.Duration < 0 || c.Duration > MaxDuration:
		return c, fmt.Errorf("duration %s is outside 0..%s", c.Duration, MaxDuration)
	case c.Concurrency < 1 || c.Concurrency > MaxConcurrency:
		return c, fmt.Errorf("concurrency %d is outside 1..%d", c.Concurrency, MaxConcurrency)
	case c.Timeout < 0 || c.Timeout > MaxDuration:
		return c, fmt.Errorf("timeout %s is outside 0..%s", c.Timeout, MaxDuration)
	case c.PID < 0:
		return c, fmt.Errorf("pid %d is negative", c.PID)
	}
	// More workers than requests would only idle.
	if c.Requests > 0 && c.Concurrency > c.Requests {
		c.Concurrency = c.Requests
	}
	return c, nil
}
