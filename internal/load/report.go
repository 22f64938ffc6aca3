package load

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// WriteText writes r for people to read.
func (r Result) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "target      %s %s, %d workers\n", r.Method, r.URL, r.Concurrency)
	fmt.Fprintf(&b, "requests    %d answered, %d errors in %s\n", r.Requests, r.Errors, r.Elapsed.Round(time.Millisecond))
	fmt.Fprintf(&b, "throughput  %.1f req/s, %s/s\n", r.RequestsPerSec, sizeText(r.BytesPerSec))
	l := r.Latency
	fmt.Fprintf(&b, "latency     p50 %s  p90 %s  p99 %s  max %s  (min %s, mean %s)\n",
		durText(l.P50), durText(l.P90), durText(l.P99), durText(l.Max), durText(l.Min), durText(l.Mean))
	codes := make([]int, 0, len(r.Status))
	for c := range r.Status {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	b.WriteString("status     ")
	for _, c := range codes {
		fmt.Fprintf(&b, " %d: %d", c, r.Status[c])
	}
	b.WriteString("\n")
	msgs := make([]string, 0, len(r.ErrorCounts))
	for m := range r.ErrorCounts {
		msgs = append(msgs, m)
	}
	slices.Sort(msgs)
	for _, m := range msgs {
		fmt.Fprintf(&b, "error       %d × %s\n", r.ErrorCounts[m], m)
	}
	if m := r.Memory; m != nil {
		fmt.Fprintf(&b, "memory      pid %d: rss %s before, %s after; peak %s\n",
			m.PID, sizeText(float64(m.Before.RSS)), sizeText(float64(m.After.RSS)), sizeText(float64(m.After.Peak)))
	}
	if r.TargetCPU > 0 {
		fmt.Fprintf(&b, "target cpu  %s per request, %.0f%% of a core\n", durText(r.CPUPerRequest()), 100*r.TargetCPUShare())
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// durText rounds to three significant digits or so, enough for latencies.
func durText(d time.Duration) string {
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	default:
		return d.Round(100 * time.Nanosecond).String()
	}
}

func sizeText(n float64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%.0f B", n)
	}
	div, exp := float64(unit), 0
	for x := n / unit; x >= unit && exp < 3; x /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", n/div, "KMGT"[exp])
}
