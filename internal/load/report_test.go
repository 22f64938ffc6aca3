package load

import (
	"strings"
	"testing"
	"time"
)

func TestWriteText(t *testing.T) {
	r := Result{
		URL: "http://127.0.0.1:3063/proxy", Method: "GET", Concurrency: 4,
		Requests: 1000, Errors: 2, ErrorCounts: map[string]int64{"connection reset": 2},
		Status: map[int]int64{200: 990, 401: 10}, Elapsed: 1500 * time.Millisecond,
		RequestsPerSec: 666.7, BytesPerSec: 3 << 20,
		Latency: Latency{Min: 90 * time.Microsecond, Mean: time.Millisecond, P50: 800 * time.Microsecond,
			P90: 2 * time.Millisecond, P99: 5 * time.Millisecond, Max: 1200 * time.Millisecond},
		Memory:    &Memory{PID: 42, Before: MemorySample{RSS: 10 << 20, Peak: 11 << 20}, After: MemorySample{RSS: 20 << 20, Peak: 30 << 20}},
		TargetCPU: 750 * time.Millisecond,
	}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"GET http://127.0.0.1:3063/proxy, 4 workers",
		"1000 answered, 2 errors in 1.5s",
		"666.7 req/s, 3.0 MiB/s",
		"p50 800µs  p90 2ms  p99 5ms  max 1.2s",
		"200: 990 401: 10",
		"2 × connection reset",
		"pid 42: rss 10.0 MiB before, 20.0 MiB after; peak 30.0 MiB",
		"target cpu  750µs per request, 50% of a core",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
}
