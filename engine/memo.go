package engine

import (
	"math"
	"slices"
	"strconv"
)

// Constraint verdicts are remembered within one evaluation of every flag:
// configurations repeat the same constraints across many flags (a segment
// in every strategy that uses it, "region IN …" or "appVersion SEMVER_GTE …"
// copied from flag to flag), and a context gives each the same verdict
// wherever it appears. Each distinct constraint gets a number at compile
// time; a run keeps one byte per number (memoUnknown, memoFalse, memoTrue).
//
// DATE constraints are left out: a verdict read from the clock also narrows
// the answer's window (see Window), once per flag that reads it.

const (
	memoUnknown uint8 = iota
	memoFalse
	memoTrue
)

// maxMemo is the most distinct constraints that get a number (they are
// numbered in 16 bits); the rest are evaluated every time.
const maxMemo = math.MaxUint16

// numberConstraints gives equal constraints of the packed strategies the
// same memo number, from 1; 0 means "not remembered".
func (s *Snapshot) numberConstraints() {
	numbers := map[string]uint16{}
	var key []byte
	for i := range s.flags {
		for j := range s.flags[i].strategies {
			cs := s.flags[i].strategies[j].constraints
			for k := range cs {
				c := &cs[k]
				if !memoizable(c) {
					continue
				}
				key = appendMemoKey(key[:0], c)
				n, ok := numbers[string(key)]
				if !ok {
					if len(numbers) >= maxMemo {
						continue
					}
					n = uint16(len(numbers) + 1)
					numbers[string(key)] = n
				}
				c.memo = n
			}
		}
	}
	s.memoCount = len(numbers)
}

func memoizable(c *constraint) bool {
	return c.op != opUnknown && c.op != opDateAfter && c.op != opDateBefore
}

// appendMemoKey appends what decides a constraint's verdict: two
// constraints with the same key give every context the same verdict.
func appendMemoKey(b []byte, c *constraint) []byte {
	b = append(b, byte(c.op), b2c(c.inverted), b2c(c.fold), b2c(c.valid), byte(c.field.kind))
	b = strconv.AppendQuote(b, c.field.name)
	if c.values.set != nil {
		list := make([]string, 0, len(c.values.set))
		for v := range c.values.set {
			list = append(list, v)
		}
		slices.Sort(list)
		b = appendQuoted(b, list)
	} else {
		b = appendQuoted(b, c.values.list)
	}
	b = strconv.AppendFloat(append(b, ' '), c.num, 'g', -1, 64)
	if m := c.more; m != nil {
		b = strconv.AppendUint(append(b, ' '), m.ver.major, 10)
		b = strconv.AppendUint(append(b, '.'), m.ver.minor, 10)
		b = strconv.AppendUint(append(b, '.'), m.ver.patch, 10)
		b = strconv.AppendQuote(append(b, '-'), m.ver.pre)
		if m.re != nil {
			b = strconv.AppendQuote(b, m.re.String())
		}
		for _, p := range m.prefixes {
			b = append(p.AppendTo(append(b, ' ')), ',')
		}
	}
	return b
}

func appendQuoted(b []byte, list []string) []byte {
	for _, v := range list {
		b = strconv.AppendQuote(append(b, ' '), v)
	}
	return b
}

func b2c(v bool) byte {
	if v {
		return '1'
	}
	return '0'
}

// remembered returns the verdict of c within e, evaluating it only the
// first time the run meets it.
func (c *constraint) remembered(ctx *Context, e *run) bool {
	memo := e.all.memo
	switch memo[c.memo] {
	case memoTrue:
		return true
	case memoFalse:
		return false
	}
	ok := c.test(ctx, e) != c.inverted
	if ok {
		memo[c.memo] = memoTrue
	} else {
		memo[c.memo] = memoFalse
	}
	return ok
}
