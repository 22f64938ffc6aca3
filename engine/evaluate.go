package engine

import (
	"slices"
	"time"

	"github.com/signalbox/signalbox/clientapi"
)

// DisabledVariant is the name of the fallback variant.
const DisabledVariant = "disabled"

// Result is the evaluation of one flag for one context. (Fields are
// ordered so that the struct packs tightly: evaluating many flags is
// largely writing these.)
type Result struct {
	Name    string
	Variant Variant
	// Window is when the answer holds: DATE constraints evaluated against
	// the clock (a context without currentTime) give the same verdicts at
	// every instant of it. An answer may be kept only as long as its
	// window holds.
	Window Window
	// Index is the flag's position in payload order (as in Names), -1 for
	// a flag the snapshot does not know: callers that keep something per
	// flag, like pre-encoded answer pieces, find it without a lookup by name.
	Index int32
	// Found is false for a flag the snapshot does not know.
	Found          bool
	Enabled        bool
	ImpressionData bool
	// Volatile is set when the answer depended on more than the snapshot,
	// the context and the clock: a random draw (random stickiness, a
	// missing stickiness value, gradualRolloutRandom) or a custom strategy.
	// Only answers without it may be cached.
	Volatile bool
	// PerUser is set when the answer read the context's userId, sessionId
	// or remoteAddress (directly, through a stickiness, a constraint or an
	// override, or through a parent flag): the fields that tell users
	// apart. An answer without it is the same for every context that
	// differs from this one in those three fields alone.
	PerUser bool
}

// Variant is the variant picked for a context. The fallback has the name
// "disabled", Enabled false and no payload.
type Variant struct {
	Name string
	// Payload points into the snapshot; callers must not modify it.
	Payload        *clientapi.Payload
	Enabled        bool
	FeatureEnabled bool
	// FromStrategy is set for a variant of the winning strategy's
	// variants, not the flag's own: the reference writes the two in
	// different member orders (name, enabled, payload for a strategy's;
	// name, payload, enabled for the flag's).
	FromStrategy bool
}

// IsEnabled reports whether a flag is on for ctx. Unknown flags are off.
func (s *Snapshot) IsEnabled(name string, ctx *Context) bool {
	f, ok := s.byName[name]
	if !ok {
		return false
	}
	var slot [1]slotValue
	e := s.scratchRun(&slot)
	on, _ := s.eval(f, ctx, &e)
	return on
}

// Evaluate returns whether a flag is on for ctx and which variant it gives,
// from one pass over its strategies (so random stickiness cannot give the
// two answers from different draws).
func (s *Snapshot) Evaluate(name string, ctx *Context) (r Result) {
	f, ok := s.byName[name]
	if !ok {
		return Result{Name: name, Index: -1, Variant: Variant{Name: DisabledVariant}}
	}
	var slot [1]slotValue
	e := s.scratchRun(&slot)
	s.resultInto(&r, f, ctx, &e)
	return r
}

// EvaluateAll appends the result of every flag, in payload order, to dst.
func (s *Snapshot) EvaluateAll(ctx *Context, dst []Result) []Result {
	n := len(dst)
	dst = slices.Grow(dst, len(s.flags))[:n+len(s.flags)]
	out := dst[n:]
	var stack [stackSlots]slotValue
	e, borrowed := s.newRun(&stack)
	rs := s.borrowResults()
	e.all = rs
	for i := range out {
		if r := s.step(i, ctx, &e, &out[i]); r != &out[i] {
			out[i] = *r
		}
	}
	releaseSlots(borrowed)
	rs.release()
	return dst
}

// EvaluateEach evaluates every flag, in payload order, and hands each
// result to yield. r is valid only during the call and must not be
// modified. Context fields are resolved once for all flags, and a parent
// flag already evaluated is not evaluated again for its children.
//
// Answers that encode each result as it comes need no array of results:
// at 5,000 flags writing one and reading it back cost a twentieth of a
// new-context answer, and the array (360 KB) was most of a request's
// memory.
func (s *Snapshot) EvaluateEach(ctx *Context, yield func(r *Result)) {
	var stack [stackSlots]slotValue
	e, borrowed := s.newRun(&stack)
	rs := s.borrowResults()
	e.all = rs
	for i := range s.flags {
		yield(s.step(i, ctx, &e, rs.current))
	}
	releaseSlots(borrowed)
	rs.release()
}

// EvaluateSome is EvaluateEach for the flags at the given positions (as
// in Names and Result.Index), in ascending order: answers that keep what
// is the same for every user (see Result.PerUser) evaluate the rest with
// it. A parent flag is evaluated again for each child that depends on it,
// as when evaluating one flag alone, since it need not be among them.
func (s *Snapshot) EvaluateSome(ctx *Context, positions []int32, yield func(r *Result)) {
	var stack [stackSlots]slotValue
	e, borrowed := s.newRun(&stack)
	rs := s.borrowResults()
	e.all = rs // for the remembered verdicts; e.evaluated stays 0
	for _, i := range positions {
		if i < 0 || int(i) >= len(s.flags) {
			continue
		}
		f := &s.flags[i]
		r := f.fixed
		if r == nil {
			r = rs.current
			s.resultInto(r, f, ctx, &e)
		}
		yield(r)
	}
	releaseSlots(borrowed)
	rs.release()
}

// step evaluates flag i within e, a run over every flag in payload order,
// into into, and returns the result: into, or the flag's fixed result.
// It keeps the result when other flags depend on the flag.
func (s *Snapshot) step(i int, ctx *Context, e *run, into *Result) *Result {
	f := &s.flags[i]
	e.evaluated = i
	r := f.fixed
	if r == nil {
		r = into
		s.resultInto(r, f, ctx, e)
	}
	if f.parentSlot >= 0 {
		e.all.parents[f.parentSlot] = *r
	}
	return r
}

// EvaluateEnabled appends the result of every flag that is on for ctx, in
// payload order, to dst. volatile reports whether any flag, listed or not,
// was volatile (see Result.Volatile), and window is the span in which
// every flag's answer, listed or not, holds (see Result.Window): a flag
// left out by a random draw or by a date makes the list itself depend on
// them.
func (s *Snapshot) EvaluateEnabled(ctx *Context, dst []Result) (results []Result, volatile bool, window Window) {
	dst = slices.Grow(dst, len(s.flags)) // grown once, as every flag may be on
	s.EvaluateEach(ctx, func(r *Result) {
		volatile = volatile || r.Volatile
		window = window.Intersect(r.Window)
		if r.Enabled {
			dst = append(dst, *r)
		}
	})
	return dst, volatile, window
}

// Now reads the clock the snapshot evaluates DATE constraints with
// (Options.Now), for callers that keep answers as long as their Window
// holds.
func (s *Snapshot) Now() time.Time { return s.env.now() }

// resultInto evaluates one flag into r within the run e, which may span
// many flags (their context fields are then resolved once). It writes in
// place: results are large enough for copies to count.
func (s *Snapshot) resultInto(r *Result, f *flag, ctx *Context, e *run) {
	if f.fixed != nil {
		*r = *f.fixed
		return
	}
	e.volatile, e.window, e.perUser = false, Window{}, false
	on, winner := s.eval(f, ctx, e)
	r.Name, r.Index, r.Found, r.Enabled, r.ImpressionData = f.name, f.index, true, on, f.impressionData
	r.Variant = s.variantFor(f, winner, on, ctx, e)
	r.Volatile = e.volatile
	r.PerUser = e.perUser
	r.Window = e.window
}

// variantFor is the variant a flag answers with: from the winning
// strategy's variants when it has some, else the flag's. Most flags have
// none to pick and are answered without pickVariant.
func (s *Snapshot) variantFor(f *flag, winner *strategy, on bool, ctx *Context, e *run) Variant {
	vs := f.variants // never empty when not nil (see compileVariants)
	if winner != nil && winner.variants != nil {
		vs = winner.variants
	}
	if !on || vs == nil {
		return Variant{Name: DisabledVariant, FeatureEnabled: on}
	}
	return pickVariant(vs, ctx, e)
}

func pickVariant(vs *variantSet, ctx *Context, e *run) Variant {
	v := vs.pick(ctx, e)
	if v == nil {
		return Variant{Name: DisabledVariant, FeatureEnabled: true}
	}
	return v.result()
}

// eval decides a flag and returns the first strategy that switched it on
// (nil when the flag is on because it has no strategies).
func (s *Snapshot) eval(f *flag, ctx *Context, e *run) (bool, *strategy) {
	if !f.enabled || len(f.deps) > 0 && !s.dependenciesMet(f, ctx, e) {
		return false, nil
	}
	if len(f.strategies) == 0 {
		return true, nil
	}
	for i := range f.strategies {
		if f.strategies[i].isOn(ctx, e) {
			return true, &f.strategies[i]
		}
	}
	return false, nil
}

// dependenciesMet checks every parent with the same context. Only one level
// is allowed: a parent that itself has dependencies never satisfies, which
// also defuses cycles.
func (s *Snapshot) dependenciesMet(f *flag, ctx *Context, e *run) bool {
	for i := range f.deps {
		d := &f.deps[i]
		p := d.parent
		if p == nil || len(p.deps) > 0 {
			return false
		}
		if d.parentIndex < e.evaluated {
			// Evaluated already in this run: take its answer and what it
			// depended on.
			r := &e.all.parents[d.parentSlot]
			e.volatile = e.volatile || r.Volatile
			e.perUser = e.perUser || r.PerUser
			e.window = e.window.Intersect(r.Window)
			if r.Enabled != d.wantEnabled || (r.Enabled && !d.anyVariant && !d.variants.has(r.Variant.Name)) {
				return false
			}
			continue
		}
		// The parent's whole answer, its variant included, counts as when
		// it is taken from the run above: what it read and drew (PerUser,
		// Volatile) is the same either way.
		on, winner := s.eval(p, ctx, e)
		v := s.variantFor(p, winner, on, ctx, e)
		if on != d.wantEnabled || (on && !d.anyVariant && !d.variants.has(v.Name)) {
			return false
		}
	}
	return true
}
