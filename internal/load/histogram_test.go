package load

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestBuckets(t *testing.T) {
	// Every bucket holds exactly the values from the previous bucket's
	// upper bound + 1 to its own.
	for i := range numBuckets - 1 {
		ub := upperBound(i)
		if bucketOf(ub) != i || bucketOf(ub+1) != i+1 {
			t.Fatalf("bucket %d: upper bound %d maps to %d, next value to %d", i, ub, bucketOf(ub), bucketOf(ub+1))
		}
	}
	if got := bucketOf(maxTracked); got != numBuckets-1 {
		t.Errorf("bucketOf(maxTracked) = %d, want the last bucket %d", got, numBuckets-1)
	}
}

func TestQuantileAccuracy(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tests := []struct {
		name string
		gen  func() time.Duration
	}{
		{"uniform µs", func() time.Duration { return time.Duration(rng.IntN(1_000_000)) }},
		{"exponential", func() time.Duration { return time.Duration(rng.ExpFloat64() * float64(200*time.Microsecond)) }},
		{"tiny", func() time.Duration { return time.Duration(rng.IntN(300)) }},
		{"huge", func() time.Duration { return time.Hour }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHistogram()
			a, b := newHistogram(), newHistogram()
			var all []time.Duration
			for i := range 10_000 {
				d := tt.gen()
				all = append(all, d)
				h.record(d)
				if i%3 == 0 {
					a.record(d)
				} else {
					b.record(d)
				}
			}
			a.merge(b)
			slices.Sort(all)
			for _, q := range []float64{0.5, 0.9, 0.99, 1} {
				exact := all[max(0, int(q*float64(len(all))+0.999999999)-1)]
				got := h.quantile(q)
				if got < exact || float64(got-exact) > float64(exact)/128+1 {
					t.Errorf("q%.2f = %s, exact %s: more than 1/128 off", q, got, exact)
				}
				if m := a.quantile(q); m != got {
					t.Errorf("merged q%.2f = %s, want %s", q, m, got)
				}
			}
			if h.min != all[0] || h.max != all[len(all)-1] || a.n != h.n || a.sum != h.sum {
				t.Errorf("min/max/n/sum wrong: %v %v %v", h.min, h.max, h.n)
			}
		})
	}
	if got := newHistogram().quantile(0.5); got != 0 {
		t.Errorf("empty quantile = %s", got)
	}
}
