package httpx

import (
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// unmatchedRoute is the route label of requests no mux pattern matched.
const unmatchedRoute = "unmatched"

// durationBuckets reach below a millisecond, where flag evaluation lives;
// prometheus.DefBuckets start at 5 ms and would put every request in one.
var durationBuckets = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// HTTPMetrics returns middleware that counts requests in
// http_requests_total{method,route,status} and times them in
// http_request_duration_seconds{method,route}, both registered on reg.
// If reg already holds the same collectors (the server and the proxy in one
// process), those are reused.
//
// The route label is the ServeMux pattern that matched (r.Pattern, such as
// "GET /api/admin/projects/{projectId}"), never the path, so label values
// stay bounded whatever clients ask for; misses are "unmatched". Methods
// outside the standard set count as "OTHER" for the same reason. The mux
// records the pattern on the request it was handed, so no middleware between
// this one and the mux may replace the request (r.WithContext): put it last
// in Chain, or after such middleware, or every route reads "unmatched".
func HTTPMetrics(reg prometheus.Registerer) (Middleware, error) {
	requests, err := register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "http_requests_total",
		Help: "HTTP requests answered, by method, route pattern and status.",
	}, []string{"method", "route", "status"}))
	if err != nil {
		return nil, err
	}
	durations, err := register(reg, prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "http_request_duration_seconds",
		Help:    "Time to answer HTTP requests, by method and route pattern.",
		Buckets: durationBuckets,
	}, []string{"method", "route"}))
	if err != nil {
		return nil, err
	}
	var series seriesCache
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			sw := statusWriterFor(w, r)
			start := time.Now()
			returned := false
			// Deferred so a panicking handler is still counted, as the 500
			// that Recover will send.
			defer func() {
				status := sw.code()
				if !returned && !sw.wrote {
					status = http.StatusInternalServerError
				}
				route := r.Pattern
				if route == "" || sw.unmatched {
					route = unmatchedRoute
				}
				m := series.of(seriesKey{methodLabel(r.Method), route, status}, requests, durations)
				m.requests.Inc()
				m.duration.Observe(time.Since(start).Seconds())
			}()
			next.ServeHTTP(sw, r)
			returned = true
		})
	}, nil
}

// seriesCache keeps the counter and histogram of each label set once
// resolved: finding them by label values hashes every value on every
// request. Label sets are bounded (route patterns, a fixed set of methods,
// status codes), and so is the cache.
type seriesCache struct{ m sync.Map } // seriesKey → *requestSeries

type seriesKey struct {
	method, route string
	status        int
}

type requestSeries struct {
	requests prometheus.Counter
	duration prometheus.Observer
}

func (c *seriesCache) of(k seriesKey, requests *prometheus.CounterVec, durations *prometheus.HistogramVec) *requestSeries {
	if v, ok := c.m.Load(k); ok {
		return v.(*requestSeries)
	}
	v, _ := c.m.LoadOrStore(k, &requestSeries{
		requests: requests.WithLabelValues(k.method, k.route, strconv.Itoa(k.status)),
		duration: durations.WithLabelValues(k.method, k.route),
	})
	return v.(*requestSeries)
}

// register registers c on reg, or returns the equal collector already there.
func register[C prometheus.Collector](reg prometheus.Registerer, c C) (C, error) {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing, nil
			}
		}
		var zero C
		return zero, err
	}
	return c, nil
}

// methodLabel bounds the method label: net/http accepts any token as a
// method, and each new one would otherwise create new series.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "OTHER"
}
