package engine

// planOutcome is one result a step can give (see Outcome).
type planOutcome struct {
	variant  *variant // nil for none
	step     int32
	on       bool
	perUser  bool
	possible bool // false for "on without a variant" from weighted variants
}

// addOutcomes lists the results st can give, as decide names them: for
// each check, on without a variant and on with each of its variants, and
// then off, after every check was read. A result read the user when a
// check up to the deciding one did (any but checkAlways), or the variants
// did (an override, or a pick by hash: every pick that finds a variant), or
// its parents did (a dependent step).
func (p *Plan) addOutcomes(st *planStep, step int32) {
	perUser := st.dependent // its parents read the user
	for i := st.from; i < st.to; i++ {
		c := &p.checks[i]
		perUser = perUser || c.kind != checkAlways
		c.on = int32(len(p.outcomes))
		none := planOutcome{step: step, on: true, perUser: perUser, possible: true}
		if vs := c.variants; vs != nil {
			none.perUser = none.perUser || vs.hasOverrides()
			// Weighted variants always give one to a user who gets a pick.
			none.possible = vs.total == 0
		}
		p.outcomes = append(p.outcomes, none)
		if c.variants != nil {
			for j := range c.variants.variants {
				v := &c.variants.variants[j]
				p.outcomes = append(p.outcomes, planOutcome{variant: v, step: step, on: true, perUser: true,
					possible: v.weight > 0 || len(v.overrides) > 0})
			}
		}
	}
	st.off = int32(len(p.outcomes))
	p.outcomes = append(p.outcomes, planOutcome{step: step, perUser: perUser, possible: true})
}

// Outcomes is how many outcomes EvaluateOutcomes can name.
func (p *Plan) Outcomes() int { return len(p.outcomes) }

// OutcomeStep is the step (the index among the plan's flags) whose
// result outcome is; a step's outcomes are consecutive.
func (p *Plan) OutcomeStep(outcome int32) int { return int(p.outcomes[outcome].step) }

// Outcome is the result named by outcome, and false when no user can get
// it (an outcome that EvaluateOutcomes never names).
func (p *Plan) Outcome(outcome int32) (Result, bool) {
	o := &p.outcomes[outcome]
	f := p.steps[o.step].flag
	r := Result{Name: f.name, Index: f.index, Found: true, Enabled: o.on, ImpressionData: f.impressionData, PerUser: o.perUser,
		Variant: Variant{Name: DisabledVariant, FeatureEnabled: o.on}}
	if o.variant != nil {
		r.Variant = o.variant.result()
	}
	return r, o.possible
}
