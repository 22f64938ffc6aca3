package engine

import "github.com/signalbox/signalbox/clientapi"

// DisabledVariant is the name of the fallback variant.
const DisabledVariant = "disabled"

// Result is the evaluation of one flag for one context.
type Result struct {
	Name string
	// Found is false for a flag the snapshot does not know.
	Found          bool
	Enabled        bool
	ImpressionData bool
	Variant        Variant
}

// Variant is the variant picked for a context. The fallback has the name
// "disabled", Enabled false and no payload.
type Variant struct {
	Name    string
	Enabled bool
	// Payload points into the snapshot; callers must not modify it.
	Payload        *clientapi.Payload
	FeatureEnabled bool
}

// IsEnabled reports whether a flag is on for ctx. Unknown flags are off.
func (s *Snapshot) IsEnabled(name string, ctx *Context) bool {
	f, ok := s.byName[name]
	if !ok {
		return false
	}
	on, _ := s.eval(f, ctx)
	return on
}

// Evaluate returns whether a flag is on for ctx and which variant it gives,
// from one pass over its strategies (so random stickiness cannot give the
// two answers from different draws).
func (s *Snapshot) Evaluate(name string, ctx *Context) Result {
	f, ok := s.byName[name]
	if !ok {
		return Result{Name: name, Variant: Variant{Name: DisabledVariant}}
	}
	return s.result(f, ctx)
}

// EvaluateAll appends the result of every flag, in payload order, to dst.
func (s *Snapshot) EvaluateAll(ctx *Context, dst []Result) []Result {
	for i := range s.flags {
		dst = append(dst, s.result(&s.flags[i], ctx))
	}
	return dst
}

// EvaluateEnabled appends the result of every flag that is on for ctx, in
// payload order, to dst.
func (s *Snapshot) EvaluateEnabled(ctx *Context, dst []Result) []Result {
	for i := range s.flags {
		if r := s.result(&s.flags[i], ctx); r.Enabled {
			dst = append(dst, r)
		}
	}
	return dst
}

func (s *Snapshot) result(f *flag, ctx *Context) Result {
	on, winner := s.eval(f, ctx)
	r := Result{Name: f.name, Found: true, Enabled: on, ImpressionData: f.impressionData}
	r.Variant = s.variantFor(f, winner, on, ctx)
	return r
}

func (s *Snapshot) variantFor(f *flag, winner *strategy, on bool, ctx *Context) Variant {
	if !on {
		return Variant{Name: DisabledVariant}
	}
	vs := &f.variants
	if winner != nil && len(winner.variants.variants) > 0 {
		vs = &winner.variants
	}
	v := vs.pick(ctx, s.env)
	if v == nil {
		return Variant{Name: DisabledVariant, FeatureEnabled: true}
	}
	return Variant{Name: v.name, Enabled: true, Payload: v.payload, FeatureEnabled: true}
}

// eval decides a flag and returns the first strategy that switched it on
// (nil when the flag is on because it has no strategies).
func (s *Snapshot) eval(f *flag, ctx *Context) (bool, *strategy) {
	if !f.enabled || !s.dependenciesMet(f, ctx) {
		return false, nil
	}
	if len(f.strategies) == 0 {
		return true, nil
	}
	for i := range f.strategies {
		if f.strategies[i].isOn(ctx, s.env) {
			return true, &f.strategies[i]
		}
	}
	return false, nil
}

// dependenciesMet checks every parent with the same context. Only one level
// is allowed: a parent that itself has dependencies never satisfies, which
// also defuses cycles.
func (s *Snapshot) dependenciesMet(f *flag, ctx *Context) bool {
	for i := range f.deps {
		d := &f.deps[i]
		p := d.parent
		if p == nil || len(p.deps) > 0 {
			return false
		}
		on, winner := s.eval(p, ctx)
		if !d.wantEnabled {
			if on {
				return false
			}
			continue
		}
		if !on {
			return false
		}
		if !d.anyVariant && !d.variants.has(s.variantFor(p, winner, on, ctx).Name) {
			return false
		}
	}
	return true
}
