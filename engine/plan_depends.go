package engine

// planDependency is one dependency of a dependent step on a parent the
// plan decides: met says, for each of the parent's outcomes (from its
// first), whether it meets the dependency.
type planDependency struct {
	child, parent int32 // steps
	first         int32 // the parent's first outcome
	met           []bool
}

// resolveDependencies keeps a step dependent (decided from its checks and
// its parents' outcomes) when each of its parents is either a step the
// plan decides from its checks, whose outcomes then say whether they meet
// the dependency, or a flag whose answer is the same for every user and
// meets it; any other is evaluated in full. A parent never has parents of
// its own (one that has is never met), so its outcome is known before its
// children's are needed.
func (p *Plan) resolveDependencies(base *Context, slots []slotValue) {
	stepOf := map[int32]int32{} // flag position -> step, of the steps decided from checks
	for k := range p.steps {
		if st := &p.steps[k]; !st.generic {
			stepOf[st.flag.index] = int32(k)
		}
	}
	for k := range p.steps {
		st := &p.steps[k]
		if !st.dependent {
			continue
		}
		kept := len(p.depends)
		ok := true
		for i := range st.flag.deps {
			if ok = p.addDependency(int32(k), &st.flag.deps[i], stepOf, base, slots); !ok {
				break
			}
		}
		if !ok {
			// Evaluated in full after all: its checks are left unread.
			st.dependent, st.to = false, st.from
			p.depends = p.depends[:kept]
		}
	}
}

// addDependency records d of step child, and reports false when a
// dependent step cannot stand for it.
func (p *Plan) addDependency(child int32, d *dependency, stepOf map[int32]int32, base *Context, slots []slotValue) bool {
	parent := d.parent
	if parent == nil || len(parent.deps) > 0 {
		return false
	}
	k, decided := stepOf[parent.index]
	if !decided {
		e := p.baseRun(slots)
		on, winner := p.snap.eval(parent, base, &e)
		v := p.snap.variantFor(parent, winner, on, base, &e)
		return e.sharedByUsers() && d.metBy(on, v.Name)
	}
	st := &p.steps[k]
	first := st.off
	if st.from < st.to {
		first = p.checks[st.from].on
	}
	met := make([]bool, st.off-first+1)
	for o := first; o <= st.off; o++ {
		r, _ := p.Outcome(o)
		met[o-first] = d.metBy(r.Enabled, r.Variant.Name)
	}
	p.depends = append(p.depends, planDependency{child: child, parent: k, first: first, met: met})
	return true
}

// metBy reports whether a parent's answer, on or off with the variant
// named, meets d (as Snapshot.dependenciesMet decides).
func (d *dependency) metBy(on bool, variant string) bool {
	return on == d.wantEnabled && (!on || d.anyVariant || d.variants.has(variant))
}

// dependsSize is about how many bytes p.depends holds.
func (p *Plan) dependsSize() int64 {
	n := int64(cap(p.depends)) * 48
	for i := range p.depends {
		n += int64(cap(p.depends[i].met))
	}
	return n
}
