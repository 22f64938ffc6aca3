package load

import (
	"math/bits"
	"time"
)

// histogram counts latencies in log-linear buckets: exact below 256 ns,
// then 128 buckets per power of two, so a reported percentile is at most
// 1/128 (under 0.8 %) above the true value. Its size is fixed (34 KB) however
// long the run, where keeping every sample of a 10-minute run could take
// gigabytes. Latencies beyond maxTracked (18 minutes, longer than any
// allowed timeout) share the top bucket; min and max stay exact.
type histogram struct {
	counts   []uint64
	n        uint64
	min, max time.Duration
	sum      time.Duration
}

const (
	subBits    = 8
	subBuckets = 1 << subBits // exact values below this
	halfSub    = subBuckets / 2
	maxBits    = 40
	maxTracked = 1<<maxBits - 1
	numBuckets = subBuckets + (maxBits-subBits)*halfSub
)

func newHistogram() *histogram { return &histogram{counts: make([]uint64, numBuckets)} }

// bucketOf returns the bucket index of v.
func bucketOf(v uint64) int {
	if v < subBuckets {
		return int(v)
	}
	shift := bits.Len64(v) - subBits // >= 1
	m := v >> shift                  // in [halfSub, subBuckets)
	return subBuckets + (shift-1)*halfSub + int(m-halfSub)
}

// upperBound returns the largest value that falls in bucket i.
func upperBound(i int) uint64 {
	if i < subBuckets {
		return uint64(i)
	}
	shift := (i-subBuckets)/halfSub + 1
	m := uint64((i-subBuckets)%halfSub + halfSub)
	return (m+1)<<shift - 1
}

func (h *histogram) record(d time.Duration) {
	if d < 0 {
		d = 0
	}
	h.counts[bucketOf(min(uint64(d), maxTracked))]++
	if h.n == 0 || d < h.min {
		h.min = d
	}
	if d > h.max {
		h.max = d
	}
	h.n++
	h.sum += d
}

func (h *histogram) merge(o *histogram) {
	if o.n == 0 {
		return
	}
	for i, c := range o.counts {
		h.counts[i] += c
	}
	if h.n == 0 || o.min < h.min {
		h.min = o.min
	}
	if o.max > h.max {
		h.max = o.max
	}
	h.n += o.n
	h.sum += o.sum
}

// quantile returns the latency below or at which a fraction q of the
// samples lie (nearest-rank), as the upper bound of its bucket capped at the
// largest sample seen.
func (h *histogram) quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := uint64(q*float64(h.n) + 0.999999999)
	rank = max(1, min(rank, h.n))
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			if i == numBuckets-1 {
				// The top bucket also holds clamped values beyond its bound.
				return h.max
			}
			return min(time.Duration(upperBound(i)), h.max)
		}
	}
	return h.max
}
