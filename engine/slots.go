package engine

import (
	"net/netip"
	"sync"
)

// Context fields are resolved once per evaluation. Compile gives every
// distinct field that a constraint, a stickiness or an override reads a
// slot number; an evaluation keeps one slotValue per slot, filled on first
// use, so a payload whose flags test the same fields again and again reads
// each from the context (a map lookup for properties) and parses it as a
// number or a version at most once, however many flags test it.

// slotValue is one context field as resolved for one evaluation.
type slotValue struct {
	resolved bool
	present  bool
	numDone  bool // num and numOK are set
	numOK    bool
	verDone  bool // ver and verOK are set
	verOK    bool
	addrDone bool // addr and addrOK are set
	addrOK   bool
	value    string
	num      float64
	ver      version
	addr     netip.Addr
}

// slot returns the resolved value of f for ctx, the run's context. A
// scratch run (one flag evaluated alone, where little would be shared)
// resolves into its one slot each time.
func (e *run) slot(ctx *Context, f *field) *slotValue {
	var sv *slotValue
	if e.scratch {
		sv = &e.slots[0]
		sv.resolved, sv.numDone, sv.verDone, sv.addrDone = false, false, false, false
	} else {
		sv = &e.slots[f.slot]
	}
	if f.kind.perUser() {
		e.perUser = true
	}
	if !sv.resolved {
		sv.resolved = true
		sv.value, sv.present = ctx.value(*f)
	}
	return sv
}

// number is the slot's value parsed as a decimal.
func (sv *slotValue) number() (float64, bool) {
	if !sv.numDone {
		sv.numDone = true
		sv.num, sv.numOK = parseDecimal(sv.value)
	}
	return sv.num, sv.numOK
}

// version is the slot's value parsed as a semantic version.
func (sv *slotValue) version() (version, bool) {
	if !sv.verDone {
		sv.verDone = true
		sv.ver, sv.verOK = parseSemver(sv.value)
	}
	return sv.ver, sv.verOK
}

// ip is the slot's value parsed as an IP address: remoteAddress
// strategies and IN_CIDR constraints, hundreds in some payloads, then
// parse the context's address once per evaluation.
func (sv *slotValue) ip() (netip.Addr, bool) {
	if !sv.addrDone {
		sv.addrDone = true
		sv.addr, sv.addrOK = parseIP(sv.value)
	}
	return sv.addr, sv.addrOK
}

// scratchRun starts the evaluation of one flag, with one slot that is
// resolved again at every use.
func (s *Snapshot) scratchRun(slot *[1]slotValue) run {
	return run{env: s.env, slots: slot[:], scratch: true}
}

// stackSlots is how many slots an evaluation keeps on the stack; payloads
// that read more distinct fields borrow them from slotPool.
const stackSlots = 16

var slotPool = sync.Pool{New: func() any { return new([]slotValue) }}

// newRun starts an evaluation. stack is the caller's stack array, used
// when the snapshot's slots fit in it; otherwise slots are borrowed from
// slotPool, and borrowed must be handed to releaseSlots when done. (Neither
// the context nor the borrowed slice live in the run: escape analysis does
// not tell a struct's fields apart, and both escape, which would take the
// stack array with them.)
func (s *Snapshot) newRun(stack *[stackSlots]slotValue) (e run, borrowed *[]slotValue) {
	e = run{env: s.env}
	if s.slotCount <= stackSlots {
		e.slots = stack[:s.slotCount]
		return e, nil
	}
	p := slotPool.Get().(*[]slotValue)
	if cap(*p) < s.slotCount {
		*p = make([]slotValue, s.slotCount)
	}
	e.slots = (*p)[:s.slotCount]
	clear(e.slots)
	return e, p
}

// releaseSlots returns borrowed slots, if any, to the pool.
func releaseSlots(borrowed *[]slotValue) {
	if borrowed != nil {
		clear(*borrowed) // drop the context's strings
		slotPool.Put(borrowed)
	}
}

// assignSlots numbers the distinct fields that the compiled flags read.
func (s *Snapshot) assignSlots() {
	numbers := map[field]uint32{}
	assign := func(f *field) {
		key := field{kind: f.kind, name: f.name}
		n, ok := numbers[key]
		if !ok {
			n = uint32(len(numbers))
			numbers[key] = n
		}
		f.slot = n
	}
	variants := func(vs *variantSet) {
		if vs == nil {
			return
		}
		assign(&vs.sticky.field)
		for i := range vs.variants {
			for j := range vs.variants[i].overrides {
				assign(&vs.variants[i].overrides[j].field)
			}
		}
	}
	for i := range s.flags {
		f := &s.flags[i]
		variants(f.variants)
		for j := range f.strategies {
			st := &f.strategies[j]
			for k := range st.constraints {
				assign(&st.constraints[k].field)
			}
			assign(&st.sticky.field)
			if st.kind == stratRemoteAddress {
				assign(&st.more.remote)
			}
			variants(st.variants)
		}
	}
	s.slotCount = len(numbers)
}

var resultPool = sync.Pool{New: func() any { return new(runResults) }}

// runResults is what an evaluation of every flag keeps besides its slots
// (run.all): the results of the parent flags, by flag.parentSlot; the one
// result being evaluated; and the constraint verdicts met so far, by memo
// number (see memo.go). They come from resultPool: a result handed to a
// callback would escape from the stack anyway.
type runResults struct {
	parents []Result
	current *Result
	memo    []uint8
	results []Result // parents and current
}

// borrowResults returns room for an evaluation of every flag of s; hand it
// back with release.
func (s *Snapshot) borrowResults() *runResults {
	rs := resultPool.Get().(*runResults)
	if cap(rs.results) < s.parentCount+1 {
		rs.results = make([]Result, s.parentCount+1)
	}
	rs.results = rs.results[:s.parentCount+1]
	rs.parents, rs.current = rs.results[:s.parentCount], &rs.results[s.parentCount]
	if cap(rs.memo) < s.memoCount+1 {
		rs.memo = make([]uint8, s.memoCount+1)
	}
	rs.memo = rs.memo[:s.memoCount+1]
	return rs
}

func (rs *runResults) release() {
	clear(rs.results) // drop the names and payloads
	clear(rs.memo)
	rs.parents, rs.current = nil, nil
	resultPool.Put(rs)
}
