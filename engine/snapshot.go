package engine

import (
	"fmt"
	"iter"
	"sync/atomic"

	"github.com/signalbox/signalbox/clientapi"
)

// Snapshot is a compiled, immutable flag configuration. It is safe for
// concurrent use by any number of goroutines.
type Snapshot struct {
	flags    []flag // in payload order
	byName   map[string]*flag
	env      *env
	source   *clientapi.Features
	warnings []string
	// slotCount is how many distinct context fields the flags read.
	slotCount int
	// parentCount is how many flags other flags depend on (see
	// flag.parentSlot).
	parentCount int
	// memoCount is how many distinct constraints have a memo number.
	memoCount int
	// explained is built by the first Explain (see explain.go).
	explained atomic.Pointer[explainIndex]
}

type flag struct {
	// fixed is the flag's result for every context, when it cannot depend
	// on one: the flag is off, or on by a first strategy that is a plain
	// default (or by having none) without parents or variants to pick.
	fixed *Result
	name  string
	index int32 // position in Snapshot.flags
	// parentSlot numbers the flags that others depend on, -1 for the rest:
	// evaluating every flag keeps the results of those alone, for their
	// children to read (see runResults).
	parentSlot     int32
	enabled        bool
	impressionData bool
	strategies     []strategy
	deps           []dependency
	variants       *variantSet // nil when the flag has none, as most do
}

type dependency struct {
	parent      *flag // nil when the parent does not exist
	parentIndex int   // the parent's position in Snapshot.flags
	parentSlot  int32 // the parent's flag.parentSlot
	wantEnabled bool
	variants    stringSet
	anyVariant  bool
}

// Compile builds a snapshot from a client-API payload. It never fails: what
// cannot be understood (an unknown operator or strategy, a bad regular
// expression, a missing segment) switches off the affected strategy and is
// reported by Warnings. A nil payload compiles to an empty snapshot.
func Compile(payload *clientapi.Features, opts Options) *Snapshot {
	s := &Snapshot{env: newEnv(opts), source: payload}
	if opts.DropSource {
		s.source = nil
	}
	if payload == nil {
		s.byName = map[string]*flag{}
		return s
	}
	warn := func(format string, args ...any) { s.warnings = append(s.warnings, fmt.Sprintf(format, args...)) }
	k := &keeper{}

	segments := make(map[int][]constraint, len(payload.Segments))
	for _, seg := range payload.Segments {
		cs := make([]constraint, 0, len(seg.Constraints))
		for _, c := range seg.Constraints {
			cs = append(cs, compileConstraint(c, k, warn))
		}
		segments[seg.ID] = cs
	}

	s.flags = make([]flag, 0, len(payload.Features))
	index := make(map[string]int, len(payload.Features))
	for _, f := range payload.Features {
		cf := compileFlag(f, segments, s.env, k, warn)
		if i, dup := index[f.Name]; dup {
			s.flags[i] = cf // a later duplicate replaces the earlier one in place
			continue
		}
		index[f.Name] = len(s.flags)
		s.flags = append(s.flags, cf)
	}
	s.byName = make(map[string]*flag, len(s.flags))
	for i := range s.flags {
		s.flags[i].index = int32(i)
		s.flags[i].parentSlot = -1
		s.byName[s.flags[i].name] = &s.flags[i]
	}
	// Dependencies are resolved once all flags exist. With duplicate names
	// the last occurrence wins, as it did above.
	resolved := make(map[string]bool, len(s.flags))
	for i := len(payload.Features) - 1; i >= 0; i-- {
		f := payload.Features[i]
		if resolved[f.Name] {
			continue
		}
		resolved[f.Name] = true
		cf := s.byName[f.Name]
		for _, d := range f.Dependencies {
			pi, ok := index[d.Feature]
			if !ok {
				pi = len(s.flags)
			}
			cf.deps = append(cf.deps, dependency{
				parentIndex: pi,
				parent:      s.byName[d.Feature],
				wantEnabled: d.WantsEnabled(),
				variants:    newStringSet(k.list(d.Variants)),
				anyVariant:  len(d.Variants) == 0,
			})
		}
	}
	s.numberParents()
	s.packStrategies()
	s.numberConstraints()
	s.assignSlots()
	// The fixed results share one allocation.
	count := 0
	for i := range s.flags {
		if _, ok := fixedResult(&s.flags[i]); ok {
			count++
		}
	}
	fixed := make([]Result, 0, count)
	for i := range s.flags {
		if r, ok := fixedResult(&s.flags[i]); ok {
			fixed = append(fixed, r)
			s.flags[i].fixed = &fixed[len(fixed)-1]
		}
	}
	return s
}

// numberParents gives every flag that another depends on a parentSlot,
// and every dependency its parent's.
func (s *Snapshot) numberParents() {
	for i := range s.flags {
		for j := range s.flags[i].deps {
			d := &s.flags[i].deps[j]
			if d.parent == nil {
				continue
			}
			if d.parent.parentSlot < 0 {
				d.parent.parentSlot = int32(s.parentCount)
				s.parentCount++
			}
			d.parentSlot = d.parent.parentSlot
		}
	}
}

// packStrategies moves every flag's strategies into one array, in flag
// order, and their constraints into another. Evaluating all flags then
// reads both from front to back, which the processor prefetches; compiled
// one by one they lay scattered over the heap, and at thousands of flags
// waiting for them was the largest single cost of an evaluation.
func (s *Snapshot) packStrategies() {
	nStrategies, nConstraints := 0, 0
	for i := range s.flags {
		nStrategies += len(s.flags[i].strategies)
		for j := range s.flags[i].strategies {
			nConstraints += len(s.flags[i].strategies[j].constraints)
		}
	}
	strategies := make([]strategy, 0, nStrategies)
	constraints := make([]constraint, 0, nConstraints)
	for i := range s.flags {
		f := &s.flags[i]
		from := len(strategies)
		for _, st := range f.strategies {
			c := len(constraints)
			constraints = append(constraints, st.constraints...)
			st.constraints = constraints[c:len(constraints):len(constraints)]
			strategies = append(strategies, st)
		}
		f.strategies = strategies[from:len(strategies):len(strategies)]
	}
}

func compileFlag(f clientapi.Feature, segments map[int][]constraint, e *env, k *keeper, warn func(string, ...any)) flag {
	cf := flag{name: k.str(f.Name), enabled: f.Enabled, impressionData: f.ImpressionData}
	for _, st := range f.Strategies {
		cf.strategies = append(cf.strategies, compileStrategy(f.Name, st, segments, e, k, warn))
	}
	// Flag-level variants hash with the first variant's stickiness.
	sticky := stickiness{}
	if len(f.Variants) > 0 {
		sticky = k.stickiness(f.Variants[0].Stickiness)
	}
	cf.variants = compileVariants(f.Variants, f.Name, sticky, false, k)
	return cf
}

// Warnings lists what Compile could not understand, one sentence each.
func (s *Snapshot) Warnings() []string { return s.warnings }

// Source is the payload the snapshot was compiled from (nil when compiled
// with Options.DropSource).
func (s *Snapshot) Source() *clientapi.Features { return s.source }

// Len is the number of flags.
func (s *Snapshot) Len() int { return len(s.flags) }

// Has reports whether the snapshot knows a flag.
func (s *Snapshot) Has(name string) bool { _, ok := s.byName[name]; return ok }

// Names lists the flags in payload order.
func (s *Snapshot) Names() []string {
	out := make([]string, len(s.flags))
	for i := range s.flags {
		out[i] = s.flags[i].name
	}
	return out
}

// Variants yields the variants that the flag at index i (as in Names) can
// answer with, its own and then each strategy's in payload order, as its
// results carry them: with the same payload pointers (callers must not
// modify them) and FromStrategy.
func (s *Snapshot) Variants(i int) iter.Seq[Variant] {
	return func(yield func(Variant) bool) {
		if i < 0 || i >= len(s.flags) {
			return
		}
		f := &s.flags[i]
		each := func(vs *variantSet) bool {
			if vs == nil {
				return true
			}
			for k := range vs.variants {
				if !yield(vs.variants[k].result()) {
					return false
				}
			}
			return true
		}
		if !each(f.variants) {
			return
		}
		for j := range f.strategies {
			if !each(f.strategies[j].variants) {
				return
			}
		}
	}
}

// fixedResult is f's result when no context can change it.
func fixedResult(f *flag) (Result, bool) {
	r := Result{Name: f.name, Index: f.index, Found: true, ImpressionData: f.impressionData, Variant: Variant{Name: DisabledVariant}}
	if !f.enabled {
		return r, true
	}
	if len(f.deps) > 0 {
		return r, false
	}
	variants := f.variants
	if len(f.strategies) > 0 {
		first := &f.strategies[0]
		if first.kind != stratDefault || first.off || len(first.constraints) > 0 {
			return r, false
		}
		if !first.variants.empty() {
			variants = first.variants
		}
	}
	if !variants.empty() {
		return r, false
	}
	r.Enabled, r.Variant.FeatureEnabled = true, true
	return r, true
}
