package engine

import (
	"time"

	"github.com/signalbox/signalbox/clientapi"
)

// Explaining evaluation: the same decision as Evaluate, with the verdict of
// every strategy, constraint and segment that took part, for people who
// want to know why a flag is on or off. It calls the very functions
// evaluation calls (strategy.isOn, constraint.matches,
// Snapshot.dependenciesMet, Snapshot.variantFor), so an explanation cannot
// disagree with an evaluation; it allocates freely, and lives apart from
// the hot path, which it leaves untouched.

// Outcome is a verdict that may be unknown: a strategy the engine cannot
// evaluate (neither built in nor registered) is unknown when its
// constraints and segments pass. Its JSON form is true, false or "unknown".
type Outcome uint8

// The outcomes.
const (
	OutcomeFalse Outcome = iota
	OutcomeTrue
	OutcomeUnknown
)

func outcomeOf(b bool) Outcome {
	if b {
		return OutcomeTrue
	}
	return OutcomeFalse
}

// String is "true", "false" or "unknown".
func (o Outcome) String() string {
	switch o {
	case OutcomeTrue:
		return "true"
	case OutcomeUnknown:
		return "unknown"
	}
	return "false"
}

// MarshalJSON writes true, false or "unknown".
func (o Outcome) MarshalJSON() ([]byte, error) {
	if o == OutcomeUnknown {
		return []byte(`"unknown"`), nil
	}
	return []byte(o.String()), nil
}

// Explanation is the evaluation of one flag for one context, with its
// reasons. Enabled and Variant are what Evaluate answers for the same
// snapshot and context (for answers that are not Volatile).
type Explanation struct {
	Name string
	// Found is false for a flag the snapshot does not know; nothing else
	// is then set but the disabled variant.
	Found   bool
	Enabled bool
	Variant Variant
	// Feature is the flag as the payload defines it; callers must not
	// modify it.
	Feature *clientapi.Feature
	// FlagEnabled is the flag's own switch in the payload's environment.
	FlagEnabled bool
	// HasDependencies says the flag has parents; DependenciesMet whether
	// they are all satisfied for the context (true without parents).
	HasDependencies bool
	DependenciesMet bool
	// StrategiesResult combines the strategies: true when one is on,
	// unknown when none is on but one could not be evaluated, false
	// otherwise. A flag without strategies is on when enabled, so there it
	// is FlagEnabled.
	StrategiesResult Outcome
	// Strategies are explained in payload order, all of them (evaluation
	// stops at the first that is on).
	Strategies []StrategyExplanation
	// Volatile is set when any verdict of the explanation depended on a
	// random draw or a custom strategy (see Result.Volatile). It is set
	// whenever Evaluate's answer is volatile, and sometimes when it is not:
	// the explanation also evaluates what evaluation skips.
	Volatile bool
	// Window is when every verdict of the explanation holds (see
	// Result.Window); it lies within Evaluate's window for the same
	// instant, for the same reason.
	Window Window
}

// StrategyExplanation is the verdict of one strategy and of each of its
// constraints and segments. Result is the strategy's own verdict whether
// or not the flag is enabled in the environment.
type StrategyExplanation struct {
	// Strategy is the strategy as the payload defines it (id, name,
	// parameters, variants); callers must not modify it.
	Strategy *clientapi.Strategy
	Result   Outcome
	// Known is false for a strategy the engine can neither evaluate itself
	// nor hand to a registered custom strategy.
	Known       bool
	Constraints []ConstraintExplanation
	Segments    []SegmentExplanation
	// Variant is the strategy's variant when the strategy is on and has
	// variants of its own; nil otherwise.
	Variant *Variant
}

// ConstraintExplanation is one constraint and whether it matched, after
// inversion (the verdict evaluation used).
type ConstraintExplanation struct {
	// Constraint points into the payload; callers must not modify it.
	Constraint *clientapi.Constraint
	Result     bool
}

// SegmentExplanation is one segment a strategy refers to. A segment the
// payload does not define has Found false and fails.
type SegmentExplanation struct {
	ID          int
	Name        string
	Found       bool
	Result      bool
	Constraints []ConstraintExplanation
}

// explainIndex is what explanations need beyond the compiled flags: the
// payload's definitions, by name and by id. It is built on the first
// explanation so that Compile and evaluation pay nothing for it.
type explainIndex struct {
	features map[string]*clientapi.Feature
	segments map[int]*clientapi.Segment
}

func (s *Snapshot) explainIndex() *explainIndex {
	if x := s.explained.Load(); x != nil {
		return x
	}
	x := &explainIndex{features: map[string]*clientapi.Feature{}, segments: map[int]*clientapi.Segment{}}
	if p := s.source; p != nil {
		// Later duplicates win, as in Compile.
		for i := range p.Features {
			x.features[p.Features[i].Name] = &p.Features[i]
		}
		for i := range p.Segments {
			x.segments[p.Segments[i].ID] = &p.Segments[i]
		}
	}
	// Two first explanations may race; both indexes are equal.
	s.explained.CompareAndSwap(nil, x)
	return s.explained.Load()
}

// Explain evaluates a flag for ctx as Evaluate does and says why. The
// clock is read once for the whole explanation, so that every DATE
// constraint without currentTime sees the same instant.
func (s *Snapshot) Explain(name string, ctx *Context) Explanation {
	f, ok := s.byName[name]
	if !ok {
		return Explanation{Name: name, Variant: Variant{Name: DisabledVariant}}
	}
	idx := s.explainIndex()
	src := idx.features[name]
	frozen := *s.env
	now := s.env.now()
	frozen.now = func() time.Time { return now }
	e := run{env: &frozen, slots: make([]slotValue, 1), scratch: true}

	x := Explanation{Name: name, Found: true, Feature: src, FlagEnabled: f.enabled, HasDependencies: len(f.deps) > 0}
	x.DependenciesMet = s.dependenciesMet(f, ctx, &e)
	var winner *strategy
	anyUnknown := false
	x.Strategies = make([]StrategyExplanation, len(f.strategies))
	for i := range f.strategies {
		st := &f.strategies[i]
		var def *clientapi.Strategy
		if src != nil && i < len(src.Strategies) {
			def = &src.Strategies[i]
		}
		se := explainStrategy(st, def, idx, ctx, &e)
		if se.Result == OutcomeTrue && winner == nil {
			winner = st
		}
		anyUnknown = anyUnknown || se.Result == OutcomeUnknown
		x.Strategies[i] = se
	}
	switch {
	case len(f.strategies) == 0:
		x.StrategiesResult = outcomeOf(f.enabled)
	case winner != nil:
		x.StrategiesResult = OutcomeTrue
	case anyUnknown:
		x.StrategiesResult = OutcomeUnknown
	}
	x.Enabled = f.enabled && x.DependenciesMet && x.StrategiesResult == OutcomeTrue
	x.Variant = s.variantFor(f, winner, x.Enabled, ctx, &e)
	for i := range f.strategies {
		st, se := &f.strategies[i], &x.Strategies[i]
		if se.Result != OutcomeTrue || st.variants.empty() {
			continue
		}
		var v Variant
		if st == winner && x.Enabled {
			v = x.Variant
		} else {
			v = s.variantFor(f, st, true, ctx, &e)
		}
		se.Variant = &v
	}
	x.Volatile = e.volatile
	x.Window = e.window
	return x
}

// explainStrategy gives each constraint's and segment's verdict and the
// strategy's. def is the strategy as defined in the payload (nil only if
// the payload and the compiled flag disagree, which Compile rules out).
func explainStrategy(st *strategy, def *clientapi.Strategy, idx *explainIndex, ctx *Context, e *run) StrategyExplanation {
	se := StrategyExplanation{Strategy: def, Known: st.kind != stratUnknown}
	// The compiled constraints are the strategy's own, then those of each
	// segment found, in order.
	next := 0
	take := func(defs []clientapi.Constraint) ([]ConstraintExplanation, bool) {
		out := make([]ConstraintExplanation, 0, len(defs))
		all := true
		for j := range defs {
			r := false
			if next < len(st.constraints) {
				r = st.constraints[next].matches(ctx, e)
			}
			next++
			all = all && r
			out = append(out, ConstraintExplanation{Constraint: &defs[j], Result: r})
		}
		return out, all
	}
	passed := true
	if def != nil {
		var ok bool
		se.Constraints, ok = take(def.Constraints)
		passed = ok
		for _, id := range def.Segments {
			seg := SegmentExplanation{ID: id}
			if d, found := idx.segments[id]; found {
				seg.Name, seg.Found = d.Name, true
				seg.Constraints, seg.Result = take(d.Constraints)
			}
			passed = passed && seg.Result
			se.Segments = append(se.Segments, seg)
		}
	}
	switch {
	case !se.Known && passed && !st.off:
		// Nothing but the unknown strategy itself stands in the way.
		se.Result = OutcomeUnknown
	default:
		se.Result = outcomeOf(st.isOn(ctx, e))
	}
	return se
}
