package load

import "time"

// Result is what a run measured. Durations are in nanoseconds in JSON.
type Result struct {
	URL         string `json:"url"`
	Method      string `json:"method"`
	Concurrency int    `json:"concurrency"`
	// Requests counts answered requests (any status); Errors counts those
	// that got no answer (refused, reset, timed out). Requests still in
	// flight when the duration ends are in neither.
	Requests int64 `json:"requests"`
	Errors   int64 `json:"errors"`
	// ErrorCounts groups errors by message (at most maxErrorKinds kinds;
	// the rest are counted under "other").
	ErrorCounts map[string]int64 `json:"error_counts,omitempty"`
	// Status counts answers by HTTP status code.
	Status map[int]int64 `json:"status"`
	// Bytes is the total size of the response bodies as sent (compressed if
	// the server compressed them: the client does not ask for or undo gzip
	// unless a header says so).
	Bytes   int64         `json:"bytes"`
	Elapsed time.Duration `json:"elapsed_ns"`
	// RequestsPerSec is answered requests per second of Elapsed.
	RequestsPerSec float64 `json:"requests_per_sec"`
	BytesPerSec    float64 `json:"bytes_per_sec"`
	// Latency is measured over answered requests, from sending the request
	// to reading the last byte of the body.
	Latency Latency `json:"latency"`
	// Memory is the target's memory use, when Config.PID was set.
	Memory *Memory `json:"memory,omitempty"`
	// TargetCPU is the CPU time the target process used during the run,
	// when Config.PID was set (10 ms resolution). Per answered request it
	// is the target's cost of an answer, which moves much less from run to
	// run than requests per second: a generator or a machine slower for a
	// moment lowers the rate but not the work per request.
	TargetCPU time.Duration `json:"target_cpu_ns,omitempty"`
}

// CPUPerRequest is TargetCPU per answered request, 0 when either is unknown.
func (r Result) CPUPerRequest() time.Duration {
	if r.Requests == 0 {
		return 0
	}
	return r.TargetCPU / time.Duration(r.Requests)
}

// TargetCPUShare is the target's CPU time over the run's length: 1 means
// one core busy all along, so the target, not the generator, set the rate.
func (r Result) TargetCPUShare() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return r.TargetCPU.Seconds() / r.Elapsed.Seconds()
}

// Latency summarises the answered requests' latencies. Percentiles come from
// a histogram and are at most 0.8 % above the true value; Min, Max and Mean
// are exact.
type Latency struct {
	Min  time.Duration `json:"min_ns"`
	Mean time.Duration `json:"mean_ns"`
	P50  time.Duration `json:"p50_ns"`
	P90  time.Duration `json:"p90_ns"`
	P99  time.Duration `json:"p99_ns"`
	Max  time.Duration `json:"max_ns"`
}

// Memory is the target process's memory before and after the run.
type Memory struct {
	PID    int          `json:"pid"`
	Before MemorySample `json:"before"`
	After  MemorySample `json:"after"`
}

func latencyOf(h *histogram) Latency {
	if h.n == 0 {
		return Latency{}
	}
	return Latency{
		Min:  h.min,
		Mean: h.sum / time.Duration(h.n),
		P50:  h.quantile(0.50),
		P90:  h.quantile(0.90),
		P99:  h.quantile(0.99),
		Max:  h.max,
	}
}
