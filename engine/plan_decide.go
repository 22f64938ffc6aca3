package engine

import "math/bits"

// Steps is how many flags the plan evaluates, in the order of its
// positions.
func (p *Plan) Steps() int { return len(p.steps) }

// Decide writes the outcome of each of the plan's flags for ctx into out
// (one per step), as EvaluateOutcomes names them, -1 for a flag evaluated
// in full (see EvaluateFull), and reports true; or false when it cannot (a
// ctx without a userId, or one too long for a key), and out is then to be
// ignored.
//
// It gives what EvaluateOutcomes gives with fewer branches that go one way
// for one user and the other for the next: the user's hashes are summed
// first, all in one batch (hashBatch), every check of a flag is read and
// the first that is on chosen without a branch, and a variant is picked by
// counting. For a new user those branches, mispredicted about every other
// flag, cost more than the arithmetic this does in their stead
// (BenchmarkPlan).
func (p *Plan) Decide(ctx *Context, out []int32) bool {
	if ctx.UserID == "" || len(out) != len(p.steps) {
		return false
	}
	var key idKey
	if !newIDKey(ctx.UserID, &key) {
		return false
	}
	hp := hashesPool.Get().(*[]uint32)
	defer hashesPool.Put(hp)
	if cap(*hp) < p.hashes.slots() {
		*hp = make([]uint32, p.hashes.slots())
	}
	hashes := (*hp)[:p.hashes.slots()]
	p.hashes.sum(&key, hashes)
	var hits *userHits
	if p.users != nil {
		hits = &userHits{checks: p.users[ctx.UserID]}
	}
	for k := range p.steps {
		st := &p.steps[k]
		o := st.off
		if st.generic && !st.dependent {
			o = -1
		}
		// From the last check to the first, so that the first on wins.
		for i := st.to - 1; i >= st.from; i-- {
			c := &p.checks[i]
			on := false
			switch c.kind {
			case checkAlways:
				on = true
			case checkUserIn:
				on = c.userIn(i, ctx.UserID, hits)
			case checkRolloutDefault, checkRolloutUserID:
				on = c.live && hashes[c.slot]%100 < c.upTo
			case checkRolloutSession:
				on = c.bySession(ctx)
			}
			v := c.on
			if c.pick >= 0 {
				v += 1 + p.pickKey(&p.picks[c.pick], ctx, hashes)
			}
			if on {
				o = v
			}
		}
		out[k] = o
	}
	// A dependent flag whose parents do not let this user in is off.
	for i := range p.depends {
		d := &p.depends[i]
		if !d.met[out[d.parent]-d.first] {
			out[d.child] = p.steps[d.child].off
		}
	}
	return true
}

// EvaluateFull evaluates, in order, the flags that Decide leaves at -1,
// and yields each one's step and result, as EvaluateOutcomes does.
func (p *Plan) EvaluateFull(ctx *Context, yield func(step int, r *Result)) {
	if len(p.full) == 0 {
		return
	}
	s := p.snap
	var stack [stackSlots]slotValue
	e, borrowed := s.newRun(&stack)
	rs := s.borrowResults()
	e.all = rs // as EvaluateSome: for the remembered verdicts
	r := rs.current
	for _, k := range p.full {
		s.resultInto(r, p.steps[k].flag, ctx, &e)
		yield(int(k), r)
	}
	releaseSlots(borrowed)
	rs.release()
}

// pickKey is pickFor for a ctx with a userId, whose hashes are summed: the
// index of the variant, -1 for none.
func (p *Plan) pickKey(k *planPick, ctx *Context, hashes []uint32) int32 {
	if k.pinned != nil {
		v, _ := p.pickFor(k, ctx) // ok: ctx has a userId
		return v
	}
	if k.total == 0 {
		return -1
	}
	target := fastMod(hashes[k.slot], k.total, k.magic) + 1
	// The variant is the first whose running sum reaches the target: as
	// the sums never fall, it is the number of sums short of it (a
	// variant of weight 0 has the sum before it, short or not as that).
	var sum uint32
	n := int32(0)
	for _, w := range p.weights[k.from:k.to] {
		sum += w
		if sum < target {
			n++
		}
	}
	return n
}

// modMagic is the multiplier fastMod divides by d with.
func modMagic(d uint32) uint64 {
	if d == 0 {
		return 0
	}
	return ^uint64(0)/uint64(d) + 1
}

// fastMod is x % d by multiplying with magic = modMagic(d) (Lemire,
// Kaser and Kurz, "Faster remainder by direct computation"): a pick's
// modulus is its variants' total weight, known only at run time, and a
// division takes several times as long.
func fastMod(x, d uint32, magic uint64) uint32 {
	low := magic * uint64(x)
	hi, _ := bits.Mul64(low, uint64(d))
	return uint32(hi)
}
