package engine

import "unsafe"

// A Plan is EvaluateSome made ready for one context's users: everything
// about the chosen flags that does not depend on userId, sessionId or
// remoteAddress is decided once, from a base context, and what is left of
// each flag is a short list of checks on those fields. An answer shared by
// many users of one application (see the answer package's templates) then
// evaluates its per-user flags for each new user without walking their
// constraints, segments and parents again: at thousands of flags that walk,
// scattered over the snapshot's memory, was most of the cost.
//
// Exactness: a check stands for a strategy only when deciding the
// strategy's constraints (and the flag's parents) for the base context read
// none of the three fields, drew nothing at random and did not read the
// clock. Such a decision took the same path, and gives the same verdict,
// for every context that differs from the base in those fields alone. Any
// other flag, and any check that would need a random draw for a context
// without the fields, is evaluated as EvaluateSome does (TestPlanMatches).
type Plan struct {
	snap   *Snapshot
	steps  []planStep
	checks []planCheck // the steps' checks, in step order
}

type planStep struct {
	flag *flag
	// name, index and impressionData are the flag's, kept here so that a
	// flag answered from its checks is not read from the snapshot.
	name           string
	index          int32
	impressionData bool
	// checks are the flag's strategies that can switch it on, in order:
	// checks[from:to]. generic says the flag is evaluated in full instead.
	from, to int32
	generic  bool
}

type checkKind uint8

const (
	checkAlways         checkKind = iota // a strategy on for every user
	checkUserIn                          // userWithId
	checkRolloutDefault                  // userId, else sessionId, else random
	checkRolloutUserID                   // gradualRolloutUserId
	checkRolloutSession                  // gradualRolloutSessionId
)

// planCheck is one strategy as it is left for a user: which field it
// reads and how, and the variants the flag answers with when it is on.
type planCheck struct {
	kind checkKind
	// live is false for a rollout that is off whatever the bucket (no
	// percentage, or none above 0); upTo is the highest 1..100 bucket that
	// is on.
	live     bool
	upTo     uint32
	hash     hashPrefix
	ids      *stringSet
	variants *variantSet // nil when the flag answers without a variant
}

// Plan prepares EvaluateSome(ctx, positions, …) for every ctx that differs
// from base in userId, sessionId and remoteAddress alone. Positions are as
// for EvaluateSome.
func (s *Snapshot) Plan(base *Context, positions []int32) *Plan {
	p := &Plan{snap: s, steps: make([]planStep, 0, len(positions))}
	slots := make([]slotValue, s.slotCount) // for deciding things about base
	for _, i := range positions {
		if i < 0 || int(i) >= len(s.flags) {
			continue
		}
		f := &s.flags[i]
		from := int32(len(p.checks))
		ok := p.addChecks(f, base, slots)
		if !ok {
			p.checks = p.checks[:from]
		}
		p.steps = append(p.steps, planStep{flag: f, name: f.name, index: f.index, impressionData: f.impressionData, from: from, to: int32(len(p.checks)), generic: !ok})
	}
	return p
}

// Size is about how many bytes the plan holds, for caches that bound it.
func (p *Plan) Size() int64 {
	return int64(unsafe.Sizeof(*p)) + int64(cap(p.steps))*int64(unsafe.Sizeof(planStep{})) +
		int64(cap(p.checks))*int64(unsafe.Sizeof(planCheck{}))
}

// addChecks appends the checks f is left with for base's users, and
// reports false when f must be evaluated in full. slots are scratch for
// the runs that decide f's parents and constraints for base.
func (p *Plan) addChecks(f *flag, base *Context, slots []slotValue) bool {
	if f.fixed != nil || !f.enabled {
		return false // nothing per user to plan
	}
	if len(f.deps) > 0 {
		e := p.baseRun(slots)
		if !p.snap.dependenciesMet(f, base, &e) || !e.sharedByUsers() {
			return false
		}
	}
	if len(f.strategies) == 0 {
		return false
	}
	for i := range f.strategies {
		st := &f.strategies[i]
		if st.off {
			continue
		}
		e := p.baseRun(slots)
		matched := len(st.constraints) == 0 || st.constraintsMatch(base, &e)
		if !e.sharedByUsers() {
			return false
		}
		if !matched {
			continue
		}
		c, ok := newCheck(st, f)
		if !ok {
			return false
		}
		p.checks = append(p.checks, c)
		if c.kind == checkAlways {
			return true // the strategies after it are never reached
		}
	}
	return true
}

// baseRun is a run for deciding one thing about the base context, in
// slots cleared for it.
func (p *Plan) baseRun(slots []slotValue) run {
	clear(slots)
	return run{env: p.snap.env, slots: slots}
}

// sharedByUsers reports whether what the run decided holds for every
// context that differs from its own in the fields that tell users apart.
func (e *run) sharedByUsers() bool { return !e.perUser && !e.volatile && e.window.Always() }

// newCheck is st left for a user once its constraints matched, and false
// for a strategy kind or variant list a check cannot stand for.
func newCheck(st *strategy, f *flag) (planCheck, bool) {
	vs := f.variants
	if st.variants != nil {
		vs = st.variants
	}
	if !plannableVariants(vs) {
		return planCheck{}, false
	}
	c := planCheck{hash: st.groupHash, variants: vs}
	if st.pctOK && st.percentage > 0 {
		c.live, c.upTo = true, uint32(min(st.percentage, 100)) // buckets are whole: 25.5 lets 1..25 in
	}
	switch st.kind {
	case stratDefault:
		c.kind = checkAlways
	case stratUserWithID:
		c.kind, c.ids = checkUserIn, &st.ids
	case stratGradualUserID:
		c.kind = checkRolloutUserID
	case stratGradualSessionID:
		c.kind = checkRolloutSession
	case stratFlexibleRollout:
		if st.sticky.mode != stickyDefault {
			return planCheck{}, false
		}
		c.kind = checkRolloutDefault
	default:
		return planCheck{}, false
	}
	return c, true
}

// plannableVariants reports whether a pick from vs depends on nothing but
// the user's identifiers: the default stickiness, and overrides (if any) of
// those identifiers alone.
func plannableVariants(vs *variantSet) bool {
	if vs.empty() {
		return true
	}
	if vs.sticky.mode != stickyDefault {
		return false
	}
	for i := range vs.variants {
		for _, o := range vs.variants[i].overrides {
			if !o.field.kind.perUser() {
				return false
			}
		}
	}
	return true
}

// Evaluate is EvaluateSome(ctx, positions, yield) for the plan's positions
// and a ctx that differs from the base context in userId, sessionId and
// remoteAddress alone (for any other, results may be wrong).
func (p *Plan) Evaluate(ctx *Context, yield func(r *Result)) {
	s := p.snap
	var stack [stackSlots]slotValue
	e, borrowed := s.newRun(&stack)
	rs := s.borrowResults()
	e.all = rs // as EvaluateSome: for the remembered verdicts
	r := rs.current
	for k := range p.steps {
		st := &p.steps[k]
		if st.generic || !p.evalChecks(r, st, ctx) {
			s.resultInto(r, st.flag, ctx, &e)
		}
		yield(r)
	}
	releaseSlots(borrowed)
	rs.release()
}

// evalChecks writes the result of st's flag for ctx from its checks, and
// reports false when it needs a random draw (a context without the
// identifier a check or variant hashes), which resultInto makes.
func (p *Plan) evalChecks(r *Result, st *planStep, ctx *Context) bool {
	on, perUser := false, false
	var winner *planCheck
	for i := st.from; i < st.to; i++ {
		c := &p.checks[i]
		switch c.kind {
		case checkAlways:
			on = true
		case checkUserIn:
			perUser = true
			on = ctx.UserID != "" && c.ids.has(ctx.UserID)
		case checkRolloutDefault:
			perUser = true
			id := ctx.UserID
			if id == "" {
				id = ctx.SessionID
			}
			if !c.live {
				on = false
			} else if id == "" {
				return false
			} else {
				on = c.hash.bucket(id, 100) <= c.upTo
			}
		case checkRolloutUserID:
			perUser = true
			on = c.live && ctx.UserID != "" && c.hash.bucket(ctx.UserID, 100) <= c.upTo
		case checkRolloutSession:
			perUser = true
			on = c.live && ctx.SessionID != "" && c.hash.bucket(ctx.SessionID, 100) <= c.upTo
		}
		if on {
			winner = c
			break
		}
	}
	r.Variant = Variant{Name: DisabledVariant, FeatureEnabled: on}
	if winner != nil && winner.variants != nil {
		v, read, ok := winner.variants.pickFor(ctx)
		if !ok {
			return false
		}
		perUser = perUser || read
		if v != nil {
			r.Variant = Variant{Name: v.name, Enabled: true, Payload: v.payload, FeatureEnabled: true}
		}
	}
	r.Name, r.Index, r.Found, r.Enabled, r.ImpressionData = st.name, st.index, true, on, st.impressionData
	r.Volatile, r.PerUser, r.Window = false, perUser, Window{}
	return true
}

// pickFor is pick for a set that plannableVariants accepts: the variant
// (nil for none), whether the pick read the user's identifiers, and false
// when it needs a random draw, ctx having none of the identifiers it
// hashes.
func (vs *variantSet) pickFor(ctx *Context) (_ *variant, read, ok bool) {
	for i := range vs.variants {
		v := &vs.variants[i]
		for _, o := range v.overrides {
			read = true
			if id := ctx.identifier(o.field.kind); id != "" && o.values.has(id) {
				return v, true, true
			}
		}
	}
	if vs.total == 0 {
		return nil, read, true
	}
	id := ctx.UserID
	if id == "" {
		id = ctx.SessionID
	}
	if id == "" {
		id = ctx.RemoteAddress
	}
	if id == "" {
		return nil, true, false
	}
	target := vs.hash.bucket(id, vs.total)
	var sum uint32
	for i := range vs.variants {
		v := &vs.variants[i]
		sum += v.weight
		if v.weight > 0 && sum >= target {
			return v, true, true
		}
	}
	return nil, true, true // unreachable: the weights add up to total
}

// identifier is the value of one of the fields that tell users apart.
func (c *Context) identifier(k fieldKind) string {
	switch k {
	case fieldUserID:
		return c.UserID
	case fieldSessionID:
		return c.SessionID
	}
	return c.RemoteAddress
}
