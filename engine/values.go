package engine

import (
	"iter"
	"strconv"
	"strings"
	"time"
)

// stringSet answers membership for the value lists of IN, NOT_IN, userWithId
// and overrides. Short lists are scanned, long ones use a map (see
// stringSetMapThreshold).
type stringSet struct {
	list []string
	set  map[string]struct{}
}

// stringSetMapThreshold is the longest list that is scanned.
// BenchmarkStringSet, with ids of one length that differ only at the end
// (the worst case for a scan), has a warm map ahead from about 6 entries
// (8 entries: 8 ns against 12-17 ns). Lists are kept up to 12 anyway: a
// list needs no allocation of its own, and at thousands of flags, where
// sets are rarely in the cache, GET /proxy measured no difference between
// scanning lists of 20 and looking them up in maps.
const stringSetMapThreshold = 12

func newStringSet(values []string) stringSet {
	if len(values) <= stringSetMapThreshold {
		return stringSet{list: values}
	}
	m := make(map[string]struct{}, len(values))
	for _, v := range values {
		m[v] = struct{}{}
	}
	return stringSet{set: m}
}

func (s stringSet) has(v string) bool {
	if s.set != nil {
		_, ok := s.set[v]
		return ok
	}
	for _, x := range s.list {
		if x == v {
			return true
		}
	}
	return false
}

// len is how many values s holds.
func (s stringSet) len() int { return len(s.list) + len(s.set) }

// all yields the values of s.
func (s stringSet) all() iter.Seq[string] {
	return func(yield func(string) bool) {
		for _, v := range s.list {
			if !yield(v) {
				return
			}
		}
		for v := range s.set {
			if !yield(v) {
				return
			}
		}
	}
}

// splitList splits a comma-separated parameter, trimming entries and
// dropping empty ones, as the reference SDKs do for userIds, IPs and
// hostNames.
func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// parseDecimal parses a number written in decimal notation: an optional
// sign, digits with an optional fraction, and an optional exponent. It
// rejects what strconv.ParseFloat would also take but no other SDK does:
// Inf, NaN, hex floats and underscores.
func parseDecimal(s string) (float64, bool) {
	// Fast path: short unsigned integers, the common case of ages, counts
	// and ids, need none of the checks below.
	if n := len(s); n > 0 && n <= 15 {
		var v uint64
		i := 0
		for ; i < n && s[i] >= '0' && s[i] <= '9'; i++ {
			v = v*10 + uint64(s[i]-'0')
		}
		if i == n {
			return float64(v), true
		}
	}
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 64 {
		return 0, false
	}
	i := 0
	if s[i] == '+' || s[i] == '-' {
		i++
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			digits++
		}
	}
	if digits == 0 {
		return 0, false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			exp++
		}
		if exp == 0 {
			return 0, false
		}
	}
	if i != len(s) {
		return 0, false
	}
	if f, ok := fastDecimal(s); ok {
		return f, true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false
	}
	return f, true
}

// parsePercentage reads a rollout percentage parameter ("50", "33.3").
func parsePercentage(s string) (float64, bool) {
	p, ok := parseDecimal(s)
	if !ok || p < 0 {
		return 0, false
	}
	return p, true
}

// dateLayouts are tried in order. RFC 3339 (with or without a fraction) is
// what Unleash sends; the others are what JavaScript's Date also accepts and
// are read as UTC.
var dateLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04", "2006-01-02"}

func parseDate(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, layout := range dateLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// fastDecimal converts an already validated decimal without an exponent
// and with at most 15 significant digits. The mantissa and the power of ten
// are then both exact, so one division is correctly rounded and gives the
// same float64 as strconv.ParseFloat (Clinger's fast path), at a fraction
// of the cost.
func fastDecimal(s string) (float64, bool) {
	neg := false
	if s[0] == '+' || s[0] == '-' {
		neg = s[0] == '-'
		s = s[1:]
	}
	var mant uint64
	digits, frac, seenDot := 0, 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '.':
			seenDot = true
		case c >= '0' && c <= '9':
			if mant == 0 && c == '0' {
				if seenDot {
					frac++
				}
				continue // leading zeros are not significant
			}
			digits++
			if digits > 15 {
				return 0, false
			}
			mant = mant*10 + uint64(c-'0')
			if seenDot {
				frac++
			}
		default:
			return 0, false // an exponent: leave it to ParseFloat
		}
	}
	if frac >= len(pow10) {
		return 0, false
	}
	f := float64(mant) / pow10[frac]
	if neg {
		f = -f
	}
	return f, true
}
