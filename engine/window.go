package engine

import (
	"math"
	"time"
)

// Window is the span of clock readings over which an answer holds: the
// DATE constraints that compared against the clock (a context without
// currentTime) give the same verdicts for every reading inside it, so
// evaluating again at any instant in it gives the same answer. The zero
// Window holds at every instant: the answer did not read the clock.
//
// A reading is compared with nanosecond precision, so the bounds are
// exact: a DATE_AFTER d that was false holds until d+1ns, one that was
// true holds from d+1ns on; a DATE_BEFORE d that was true holds until d,
// one that was false from d on.
type Window struct {
	// The span is [from, until) in Unix nanoseconds, stored as distances
	// from the widest span so that the zero value is unbounded:
	// from = math.MinInt64 + fromOff, until = math.MaxInt64 - untilOff.
	fromOff, untilOff uint64
}

// Always reports whether the window holds at every instant.
func (w Window) Always() bool { return w.fromOff == 0 && w.untilOff == 0 }

// Holds reports whether an answer with this window is still exact at t.
func (w Window) Holds(t time.Time) bool {
	if w.Always() {
		return true
	}
	n := unixNano(t)
	return w.from() <= n && n < w.until()
}

// Until is the first instant at which the answer may no longer hold, and
// false when no later instant can end it.
func (w Window) Until() (time.Time, bool) {
	if w.untilOff == 0 {
		return time.Time{}, false
	}
	return time.Unix(0, w.until()).UTC(), true
}

// From is the earliest instant at which the answer holds, and false when
// it holds at every earlier instant too.
func (w Window) From() (time.Time, bool) {
	if w.fromOff == 0 {
		return time.Time{}, false
	}
	return time.Unix(0, w.from()).UTC(), true
}

// Intersect is the span over which answers with windows w and o both hold.
func (w Window) Intersect(o Window) Window {
	return Window{fromOff: max(w.fromOff, o.fromOff), untilOff: max(w.untilOff, o.untilOff)}
}

func (w Window) from() int64  { return int64(minBits + w.fromOff) }
func (w Window) until() int64 { return int64(maxBits - w.untilOff) }

// notBefore narrows the window to readings at or after n.
func (w *Window) notBefore(n int64) {
	w.fromOff = max(w.fromOff, uint64(n)-minBits)
}

// before narrows the window to readings before n.
func (w *Window) before(n int64) {
	w.untilOff = max(w.untilOff, maxBits-uint64(n))
}

// unixNano is t in Unix nanoseconds, saturated to the int64 range (years
// 1678 to 2262) instead of overflowing as time.Time.UnixNano does.
func unixNano(t time.Time) int64 {
	switch {
	case t.Before(minNano):
		return math.MinInt64
	case t.After(maxNano):
		return math.MaxInt64
	}
	return t.UnixNano()
}

// minBits and maxBits are math.MinInt64 and math.MaxInt64 as uint64 bits.
const (
	minBits uint64 = 1 << 63
	maxBits uint64 = 1<<63 - 1
)

var (
	minNano = time.Unix(0, math.MinInt64)
	maxNano = time.Unix(0, math.MaxInt64)
)

// clockVerdict narrows e's window to the readings for which a DATE
// constraint on the clock gives the verdict it just gave: after says
// DATE_AFTER (else DATE_BEFORE), date is the constraint's instant in Unix
// nanoseconds and on its verdict before inversion.
func (w *Window) clockVerdict(after bool, date int64, on bool) {
	// DATE_AFTER d is true exactly from d+1ns on; DATE_BEFORE d exactly
	// before d.
	flip := date
	if after && date < math.MaxInt64 {
		flip = date + 1
	}
	if on == after {
		w.notBefore(flip)
	} else {
		w.before(flip)
	}
}

// String shows the window as [from, until) in RFC 3339, "always" when it is
// unbounded and "…" for an open side.
func (w Window) String() string {
	if w.Always() {
		return "always"
	}
	side := func(t time.Time, ok bool) string {
		if !ok {
			return "…"
		}
		return t.Format(time.RFC3339Nano)
	}
	from, hasFrom := w.From()
	until, hasUntil := w.Until()
	return "[" + side(from, hasFrom) + ", " + side(until, hasUntil) + ")"
}
