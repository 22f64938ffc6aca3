package proxy

import (
	"sync"
	"time"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/engine"
)

// Bounds of the usage metrics kept in memory. Browser SDKs may post any
// flag and variant names, and the upstream may be away for hours, so every
// dimension is capped: what does not fit is dropped and counted.
const (
	maxToggleNames   = 20000 // distinct flag names in one bucket
	maxUnknownNames  = 1000  // of which the configuration does not know
	maxVariantNames  = 32    // distinct variant names of one flag
	maxNameLen       = 200   // longer flag or variant names are not counted
	maxPendingBucket = 10    // unsent buckets; the oldest are merged beyond it
)

// usage aggregates evaluation counts into buckets that the metrics loop
// sends upstream. One lock per request, not per flag.
type usage struct {
	mu      sync.Mutex
	start   time.Time
	toggles map[string]*clientapi.ToggleCount
	unknown int                       // names in toggles that the configuration does not know
	pending []clientapi.MetricsBucket // oldest first, all unsent
	dropped uint64                    // counts lost to the bounds
	now     func() time.Time
}

func newUsage(now func() time.Time) *usage {
	return &usage{start: now(), toggles: map[string]*clientapi.ToggleCount{}, now: now}
}

// countResults counts the evaluations of a POST /proxy toggles list.
// Unknown flags count as "no", as the reference does.
func (u *usage) countResults(results []engine.Result) {
	u.mu.Lock()
	defer u.mu.Unlock()
	for i := range results {
		r := &results[i]
		tc := u.counter(r.Name, r.Found)
		if tc == nil {
			continue
		}
		if r.Enabled {
			tc.Yes++
		} else {
			tc.No++
		}
		u.addVariant(tc, r.Variant.Name, 1)
	}
}

// addBucket merges a bucket that a browser SDK posted; known reports
// whether the configuration has a flag.
func (u *usage) addBucket(b clientapi.MetricsBucket, known func(string) bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	for name, c := range b.Toggles {
		tc := u.counter(name, known(name))
		if tc == nil {
			continue
		}
		tc.Yes += c.Yes
		tc.No += c.No
		for v, n := range c.Variants {
			u.addVariant(tc, v, n)
		}
	}
}

// counter returns the count of name in the current bucket, or nil when the
// bucket is full. Names the configuration does not know (callers may send
// anything) have a much smaller share. Called with mu held.
func (u *usage) counter(name string, known bool) *clientapi.ToggleCount {
	if tc, ok := u.toggles[name]; ok {
		return tc
	}
	if len(u.toggles) >= maxToggleNames || len(name) > maxNameLen || (!known && u.unknown >= maxUnknownNames) {
		u.dropped++
		return nil
	}
	if !known {
		u.unknown++
	}
	tc := &clientapi.ToggleCount{}
	u.toggles[name] = tc
	return tc
}

// addVariant counts n hand-outs of variant v. Called with mu held.
func (u *usage) addVariant(tc *clientapi.ToggleCount, v string, n int64) {
	if tc.Variants == nil {
		tc.Variants = make(map[string]int64, 2)
	}
	if _, ok := tc.Variants[v]; !ok && (len(tc.Variants) >= maxVariantNames || len(v) > maxNameLen) {
		u.dropped++
		return
	}
	tc.Variants[v] += n
}

// take closes the current bucket (when it has counts) and hands out every
// unsent bucket, oldest first. The caller sends them and gives back the
// ones it could not send with giveBack.
func (u *usage) take() []clientapi.MetricsBucket {
	u.mu.Lock()
	defer u.mu.Unlock()
	now := u.now()
	if len(u.toggles) > 0 {
		b := clientapi.MetricsBucket{Start: u.start, Stop: now, Toggles: make(map[string]clientapi.ToggleCount, len(u.toggles))}
		for name, tc := range u.toggles {
			b.Toggles[name] = *tc
		}
		u.pending = append(u.pending, b)
		u.toggles = make(map[string]*clientapi.ToggleCount, len(u.toggles))
		u.unknown = 0
	}
	u.start = now
	out := u.pending
	u.pending = nil
	return out
}

// giveBack returns unsent buckets (oldest first) to the front of the queue
// and merges the oldest until the queue fits its bound again.
func (u *usage) giveBack(unsent []clientapi.MetricsBucket) {
	if len(unsent) == 0 {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	u.pending = append(unsent, u.pending...)
	for len(u.pending) > maxPendingBucket {
		merged := u.merge(u.pending[0], u.pending[1])
		u.pending = append([]clientapi.MetricsBucket{merged}, u.pending[2:]...)
	}
}

// merge folds newer into older: the merged bucket spans both. Called with
// mu held; the name bounds apply to the result as well.
func (u *usage) merge(older, newer clientapi.MetricsBucket) clientapi.MetricsBucket {
	out := clientapi.MetricsBucket{Start: older.Start, Stop: newer.Stop, Toggles: older.Toggles}
	if out.Toggles == nil {
		out.Toggles = map[string]clientapi.ToggleCount{}
	}
	for name, c := range newer.Toggles {
		tc, ok := out.Toggles[name]
		if !ok && len(out.Toggles) >= maxToggleNames {
			u.dropped++
			continue
		}
		tc.Yes += c.Yes
		tc.No += c.No
		for v, n := range c.Variants {
			if tc.Variants == nil {
				tc.Variants = map[string]int64{}
			}
			if _, ok := tc.Variants[v]; !ok && len(tc.Variants) >= maxVariantNames {
				u.dropped++
				continue
			}
			tc.Variants[v] += n
		}
		out.Toggles[name] = tc
	}
	return out
}

// pendingLen is the number of unsent buckets (for tests and the gauge).
func (u *usage) pendingLen() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.pending)
}

// droppedCount is how many counts the bounds have dropped so far.
func (u *usage) droppedCount() uint64 {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.dropped
}
