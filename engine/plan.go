package engine

import (
	"slices"
	"unsafe"
)

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
	// outcomes are every result a step answered from its checks can give:
	// a user's answer is one of them, named by its index (see
	// EvaluateOutcomes).
	outcomes []planOutcome
	users    userIndex // nil: each userWithId check reads its own list
	picks    []planPick
	weights  []uint32 // the picks' variants' weights
	// full is the steps evaluated in full, ascending (see EvaluateFull).
	full []int32
	// depends is, for the dependent steps, which of their parents' outcomes
	// meet their dependencies.
	depends []planDependency
	// hashes are the prefixes of the hashes of a userId that Decide reads:
	// the rollout checks' by userId and the picks'.
	hashes hashBatch
}

type planStep struct {
	flag *flag
	// checks are the flag's strategies that can switch it on, in order:
	// checks[from:to]. generic says the flag is evaluated in full instead.
	from, to int32
	// off is the outcome when no check switches the flag on.
	off     int32
	generic bool
	// dependent says that the flag's parents read the user: EvaluateOutcomes
	// evaluates it in full (generic), Decide from its checks and its
	// parents' outcomes (see Plan.depends).
	dependent bool
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
	// pick is the variants' index in the plan's picks, -1 for none.
	pick int32
	// slot is a rollout by userId's hash in the plan's hashes.
	slot int32
	// on is the outcome when this check switches the flag on and no
	// variant is picked; variant i is outcome on+1+i.
	on int32
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
		ok, dependent := p.addChecks(f, base, slots)
		if !ok {
			p.checks = p.checks[:from]
		}
		st := planStep{flag: f, from: from, to: int32(len(p.checks)), generic: !ok || dependent, dependent: dependent}
		if ok {
			p.addOutcomes(&st, int32(len(p.steps)))
			for i := st.from; i < st.to; i++ {
				p.checks[i].pick = p.addPick(p.checks[i].variants)
			}
		}
		p.steps = append(p.steps, st)
	}
	p.resolveDependencies(base, slots)
	p.users = p.indexUsers()
	for k := range p.steps {
		if st := &p.steps[k]; st.generic && !st.dependent {
			p.full = append(p.full, int32(k))
		}
	}
	// Copies of the exact size: a plan is kept with its template, whose
	// cache counts what it holds, and appending left up to half unused.
	p.checks, p.outcomes = slices.Clone(p.checks), slices.Clone(p.outcomes)
	p.picks, p.weights = slices.Clone(p.picks), slices.Clone(p.weights)
	p.hashes = newHashBatch(func(yield func(*hashPrefix, *int32)) {
		for i := range p.checks {
			if c := &p.checks[i]; c.kind == checkRolloutDefault || c.kind == checkRolloutUserID {
				yield(&c.hash, &c.slot)
			}
		}
		for i := range p.picks {
			yield(&p.picks[i].hash, &p.picks[i].slot)
		}
	})
	return p
}

// Size is about how many bytes the plan holds, for caches that bound it.
func (p *Plan) Size() int64 {
	return int64(unsafe.Sizeof(*p)) + int64(cap(p.steps))*int64(unsafe.Sizeof(planStep{})) +
		int64(cap(p.checks))*int64(unsafe.Sizeof(planCheck{})) + int64(cap(p.outcomes))*int64(unsafe.Sizeof(planOutcome{})) + p.users.size() +
		int64(cap(p.picks))*int64(unsafe.Sizeof(planPick{})) + 4*int64(cap(p.weights)) + 4*int64(cap(p.full)) + p.hashes.size() +
		p.dependsSize()
}

// addChecks appends the checks f is left with for base's users, and
// reports false when f must be evaluated in full; dependent when its
// parents read the user (see resolveDependencies). slots are scratch for
// the runs that decide f's parents and constraints for base.
func (p *Plan) addChecks(f *flag, base *Context, slots []slotValue) (ok, dependent bool) {
	if f.fixed != nil || !f.enabled {
		return false, false // nothing per user to plan
	}
	if len(f.deps) > 0 {
		e := p.baseRun(slots)
		met := p.snap.dependenciesMet(f, base, &e)
		switch {
		case e.sharedByUsers():
			if !met {
				return false, false
			}
		case !e.volatile && e.window.Always():
			dependent = true // read the user: for each user, from the parents' outcomes
		default:
			return false, false
		}
	}
	if len(f.strategies) == 0 {
		// On for everyone its parents let in: a check that is always on.
		if !dependent || !plannableVariants(f.variants) {
			return false, false
		}
		p.checks = append(p.checks, planCheck{kind: checkAlways, variants: f.variants})
		return true, true
	}
	ok = p.addStrategies(f, base, slots)
	return ok, dependent && ok
}

// addStrategies appends the checks of f's strategies for base's users,
// and reports false when f must be evaluated in full.
func (p *Plan) addStrategies(f *flag, base *Context, slots []slotValue) bool {
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
	p.evaluate(ctx, nil, nil, yield)
}

// EvaluateOutcomes is Evaluate naming each flag's result instead of
// writing it out, when the flag was answered from its checks: yield gets
// the flag's step (its index among the plan's flags), its outcome (see
// Outcome) and a nil result, unless quiet (nil, or one per outcome) says
// the caller has nothing to do for that outcome. A flag evaluated in full
// yields -1 and its result. A caller that prepared something per outcome,
// such as its encoding, then reads no result at all, and hears nothing of
// the outcomes that add nothing to its answer.
func (p *Plan) EvaluateOutcomes(ctx *Context, quiet []bool, yield func(step int, outcome int32, full *Result)) {
	p.evaluate(ctx, quiet, yield, nil)
}

// evaluate is EvaluateOutcomes when named is set, else Evaluate with each.
func (p *Plan) evaluate(ctx *Context, quiet []bool, named func(int, int32, *Result), each func(*Result)) {
	s := p.snap
	var stack [stackSlots]slotValue
	e, borrowed := s.newRun(&stack)
	rs := s.borrowResults()
	e.all = rs // as EvaluateSome: for the remembered verdicts
	r := rs.current
	var hits *userHits
	if p.users != nil {
		hits = &userHits{checks: p.users[ctx.UserID]}
	}
	for k := range p.steps {
		st := &p.steps[k]
		o := int32(-1)
		if !st.generic {
			o = p.decide(st, ctx, hits)
		}
		switch {
		case o >= 0 && named != nil:
			if quiet == nil || !quiet[o] {
				named(k, o, nil)
			}
		case o >= 0:
			*r, _ = p.Outcome(o)
			each(r)
		case named != nil:
			s.resultInto(r, st.flag, ctx, &e)
			named(k, -1, r)
		default:
			s.resultInto(r, st.flag, ctx, &e)
			each(r)
		}
	}
	releaseSlots(borrowed)
	rs.release()
}

// decide is the outcome of st's flag for ctx from its checks, or -1 when
// it needs a random draw (a context without the identifier a check or
// variant hashes), which resultInto makes. hits, when the plan indexes its
// user lists, are ctx's, walked in step order.
func (p *Plan) decide(st *planStep, ctx *Context, hits *userHits) int32 {
	for i := st.from; i < st.to; i++ {
		c := &p.checks[i]
		on := false
		switch c.kind {
		case checkAlways:
			on = true
		case checkUserIn:
			on = c.userIn(i, ctx.UserID, hits)
		case checkRolloutDefault:
			id := ctx.UserID
			if id == "" {
				id = ctx.SessionID
			}
			if !c.live {
				on = false
			} else if id == "" {
				return -1
			} else {
				on = c.hash.bucket(id, 100) <= c.upTo
			}
		case checkRolloutUserID:
			on = c.live && ctx.UserID != "" && c.hash.bucket(ctx.UserID, 100) <= c.upTo
		case checkRolloutSession:
			on = c.bySession(ctx)
		}
		if !on {
			continue
		}
		if c.pick < 0 {
			return c.on
		}
		v, ok := p.pickFor(&p.picks[c.pick], ctx)
		if !ok {
			return -1
		}
		return c.on + 1 + v // v is -1 for no variant
	}
	return st.off
}

// userIn is a checkUserIn check, the i-th, for a userId: whether its
// list holds it (lists hold no empty id). hits, when the plan indexes its
// user lists, are the userId's, walked in check order.
func (c *planCheck) userIn(i int32, id string, hits *userHits) bool {
	if hits != nil {
		return hits.has(i)
	}
	return c.ids.has(id)
}

// bySession is a checkRolloutSession check for ctx.
func (c *planCheck) bySession(ctx *Context) bool {
	return c.live && ctx.SessionID != "" && c.hash.bucket(ctx.SessionID, 100) <= c.upTo
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
