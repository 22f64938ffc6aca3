package engine

import (
	"net/netip"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/signalbox/signalbox/clientapi"
)

type operator uint8

const (
	opUnknown operator = iota
	opIn
	opNotIn
	opStrStartsWith
	opStrEndsWith
	opStrContains
	opNumEq
	opNumGt
	opNumGte
	opNumLt
	opNumLte
	opDateAfter
	opDateBefore
	opSemverEq
	opSemverGt
	opSemverGte
	opSemverLt
	opSemverLte
	opRegex
	opInCIDR
)

var operators = map[string]operator{
	"IN": opIn, "NOT_IN": opNotIn,
	"STR_STARTS_WITH": opStrStartsWith, "STR_ENDS_WITH": opStrEndsWith, "STR_CONTAINS": opStrContains,
	"NUM_EQ": opNumEq, "NUM_GT": opNumGt, "NUM_GTE": opNumGte, "NUM_LT": opNumLt, "NUM_LTE": opNumLte,
	"DATE_AFTER": opDateAfter, "DATE_BEFORE": opDateBefore,
	"SEMVER_EQ": opSemverEq, "SEMVER_GT": opSemverGt, "SEMVER_GTE": opSemverGte,
	"SEMVER_LT": opSemverLt, "SEMVER_LTE": opSemverLte,
	"REGEX": opRegex, "IN_CIDR": opInCIDR,
}

// Operators lists every constraint operator the engine understands.
func Operators() []string {
	out := make([]string, 0, len(operators))
	for name := range operators {
		out = append(out, name)
	}
	return out
}

// IsOperator reports whether name is a known constraint operator.
func IsOperator(name string) bool { _, ok := operators[name]; return ok }

// constraint is a compiled constraint: its value is parsed once, and a value
// that cannot be parsed is remembered as such (the constraint then never
// matches, before inversion).
//
// What every evaluation reads is kept inline, in 88 bytes (at thousands
// of flags constraints were the largest part of a snapshot, and waiting
// for them a large part of evaluating it); what the less common operators
// need lives behind more.
type constraint struct {
	field     field
	op        operator
	inverted  bool
	fold      bool // case-insensitive STR_*
	valid     bool // the constraint's own value parsed
	strsASCII bool // every entry of values is ASCII (STR_*)
	// memo numbers the constraint among the snapshot's distinct ones, 0
	// when its verdict is not remembered (see memo.go).
	memo uint16

	// values are the listed values: a set for IN and NOT_IN, and for
	// STR_* the strings in values.list (lower-cased when fold).
	values   stringSet
	num      float64 // NUM_*
	dateNano int64   // DATE_*: date in Unix nanoseconds, saturated
	more     *constraintMore
}

// constraintMore holds the parsed values of DATE_*, SEMVER_*, REGEX and
// IN_CIDR constraints.
type constraintMore struct {
	date     time.Time      // DATE_*
	ver      version        // SEMVER_*
	re       *regexp.Regexp // REGEX; nil when invalid
	prefixes []netip.Prefix // IN_CIDR
}

func compileConstraint(c clientapi.Constraint, k *keeper, warn func(string, ...any)) constraint {
	cc := constraint{field: k.field(c.ContextName), op: operators[c.Operator], inverted: c.Inverted, valid: true}
	switch cc.op {
	case opUnknown:
		warn("unknown constraint operator %q on %q", c.Operator, c.ContextName)
	case opIn, opNotIn:
		cc.values = newStringSet(k.list(c.Values))
	case opStrStartsWith, opStrEndsWith, opStrContains:
		cc.fold = c.CaseInsensitive
		strs := c.Values
		if cc.fold {
			strs = make([]string, len(c.Values))
			for i, v := range c.Values {
				strs[i] = strings.ToLower(v)
			}
		}
		cc.values = stringSet{list: k.list(strs)}
		cc.strsASCII = true
		for _, v := range strs {
			cc.strsASCII = cc.strsASCII && isASCII(v)
		}
	case opNumEq, opNumGt, opNumGte, opNumLt, opNumLte:
		cc.num, cc.valid = parseDecimal(c.Value)
	case opDateAfter, opDateBefore:
		cc.more = &constraintMore{}
		cc.more.date, cc.valid = parseDate(c.Value)
		cc.dateNano = unixNano(cc.more.date)
	case opSemverEq, opSemverGt, opSemverGte, opSemverLt, opSemverLte:
		// Strict: a leading "v" makes the value invalid, as the spec requires.
		cc.more = &constraintMore{}
		cc.more.ver, cc.valid = parseSemver(c.Value)
	case opRegex:
		pattern := c.Value
		if c.CaseInsensitive {
			pattern = "(?i)" + pattern
		}
		re, err := regexp.Compile(pattern)
		cc.more = &constraintMore{re: re}
		cc.valid = err == nil
		if err != nil {
			warn("invalid REGEX %q: %v", c.Value, err)
		}
	case opInCIDR:
		cc.more = &constraintMore{prefixes: parsePrefixes(c.Values)}
	}
	return cc
}

// parsePrefixes reads CIDR blocks and single addresses; entries that parse
// as neither are skipped so that one typo does not spoil the list.
func parsePrefixes(entries []string) []netip.Prefix {
	var out []netip.Prefix
	for _, e := range entries {
		e = strings.TrimSpace(e)
		if p, err := netip.ParsePrefix(e); err == nil {
			out = append(out, p.Masked())
		} else if a, err := netip.ParseAddr(e); err == nil {
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
		}
	}
	return out
}

// parseIP reads a context value as an IP address; a zone is dropped, as
// CIDR blocks have none.
func parseIP(value string) (netip.Addr, bool) {
	addr, err := netip.ParseAddr(strings.TrimSpace(value))
	if err != nil {
		return netip.Addr{}, false
	}
	return addr.WithZone(""), true
}

// inPrefixes reports whether addr, from parseIP, is in one of prefixes.
func inPrefixes(prefixes []netip.Prefix, addr netip.Addr) bool {
	for _, p := range prefixes {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// matches applies the constraint, inversion included. An unknown operator
// never matches, whatever inverted says.
func (c *constraint) matches(ctx *Context, env *run) bool {
	if c.op == opUnknown {
		return false
	}
	return c.test(ctx, env) != c.inverted
}

// test is the operator's verdict before inversion.
func (c *constraint) test(ctx *Context, env *run) bool {
	if c.op == opDateAfter || c.op == opDateBefore {
		return c.testDate(ctx, env)
	}
	sv := env.slot(ctx, &c.field)
	v, ok := sv.value, sv.present
	switch c.op {
	case opIn:
		return ok && c.values.has(v)
	case opNotIn:
		return !ok || !c.values.has(v)
	}
	if !ok || !c.valid {
		return false
	}
	switch c.op {
	case opStrStartsWith, opStrEndsWith, opStrContains:
		return c.testString(v)
	case opNumEq, opNumGt, opNumGte, opNumLt, opNumLte:
		n, ok := sv.number()
		return ok && compareNum(c.op, n, c.num)
	case opSemverEq, opSemverGt, opSemverGte, opSemverLt, opSemverLte:
		ver, ok := sv.version()
		return ok && compareOrder(c.op, ver.compare(c.more.ver))
	case opRegex:
		return c.more.re.MatchString(v)
	case opInCIDR:
		addr, ok := sv.ip()
		return ok && inPrefixes(c.more.prefixes, addr)
	}
	return false
}

func (c *constraint) testDate(ctx *Context, env *run) bool {
	if !c.valid {
		return false
	}
	var t time.Time
	if c.field.kind == fieldCurrentTime {
		// Read the context's instant directly; fall back to the clock,
		// and then remember for which readings this verdict holds.
		t = ctx.CurrentTime
		if t.IsZero() {
			t = env.now()
			on := c.compareDate(t)
			env.window.clockVerdict(c.op == opDateAfter, c.dateNano, on)
			return on
		}
	} else {
		sv := env.slot(ctx, &c.field)
		if !sv.present {
			return false
		}
		var ok bool
		if t, ok = parseDate(sv.value); !ok {
			return false
		}
	}
	return c.compareDate(t)
}

func (c *constraint) compareDate(t time.Time) bool {
	if c.op == opDateAfter {
		return t.After(c.more.date)
	}
	return t.Before(c.more.date)
}

func (c *constraint) testString(v string) bool {
	asciiFold := c.fold && c.strsASCII && isASCII(v)
	if c.fold && !asciiFold {
		// Unicode case folding can change lengths: lower-case a copy.
		v = strings.ToLower(v)
	}
	for _, s := range c.values.list {
		var hit bool
		switch {
		case asciiFold:
			hit = foldMatch(c.op, v, s)
		case c.op == opStrStartsWith:
			hit = strings.HasPrefix(v, s)
		case c.op == opStrEndsWith:
			hit = strings.HasSuffix(v, s)
		default:
			hit = strings.Contains(v, s)
		}
		if hit {
			return true
		}
	}
	return false
}

// foldMatch is the case-insensitive STR_* test for an ASCII value v and an
// ASCII, already lower-cased entry s, without allocating.
func foldMatch(op operator, v, s string) bool {
	if len(s) > len(v) {
		return false
	}
	switch op {
	case opStrStartsWith:
		return equalLowerASCII(v[:len(s)], s)
	case opStrEndsWith:
		return equalLowerASCII(v[len(v)-len(s):], s)
	}
	for i := 0; i+len(s) <= len(v); i++ {
		if equalLowerASCII(v[i:i+len(s)], s) {
			return true
		}
	}
	return false
}

// equalLowerASCII reports whether the ASCII a, lower-cased, equals the
// lower-case ASCII b (of the same length), eight bytes at a time.
func equalLowerASCII(a, b string) bool {
	i := 0
	for ; i+8 <= len(a); i += 8 {
		if lower8(load64(a, i)) != load64(b, i) {
			return false
		}
	}
	for ; i < len(a); i++ {
		c := a[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != b[i] {
			return false
		}
	}
	return true
}

func isASCII(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if load64(s, i)&(ones8*0x80) != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

const ones8 = 0x0101010101010101

// load64 reads s[i:i+8] little-endian (the compiler makes it one load).
func load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// lower8 lower-cases eight ASCII bytes at once: a byte's high bit is set
// by adding 0x80-'A' when it is at least 'A', and by adding 0x80-'Z'-1
// when it is above 'Z'; neither sum carries into the next byte, as every
// byte is below 0x80.
func lower8(x uint64) uint64 {
	atLeastA := x + ones8*(0x80-'A')
	aboveZ := x + ones8*(0x80-'Z'-1)
	upper := (atLeastA &^ aboveZ) & (ones8 * 0x80)
	return x | upper>>2
}

func compareNum(op operator, a, b float64) bool {
	switch op {
	case opNumEq:
		return a == b
	case opNumGt:
		return a > b
	case opNumGte:
		return a >= b
	case opNumLt:
		return a < b
	case opNumLte:
		return a <= b
	}
	return false
}

// compareOrder turns a three-way comparison into the SEMVER operator's verdict.
func compareOrder(op operator, cmp int) bool {
	switch op {
	case opSemverEq:
		return cmp == 0
	case opSemverGt:
		return cmp > 0
	case opSemverGte:
		return cmp >= 0
	case opSemverLt:
		return cmp < 0
	case opSemverLte:
		return cmp <= 0
	}
	return false
}
