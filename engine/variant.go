package engine

import "github.com/signalbox/signalbox/clientapi"

// variantSet is a compiled list of variants with the group and stickiness
// their buckets are hashed with.
type variantSet struct {
	variants []variant
	total    uint32
	hash     hashPrefix // "group:" hashed with the variant seed
	sticky   stickiness
}

type variant struct {
	name      string
	weight    uint32
	payload   *clientapi.Payload
	overrides []override
	// fromStrategy marks a strategy's variant (not the flag's), which
	// answers write in another member order.
	fromStrategy bool
}

type override struct {
	field  field
	values stringSet
}

// compileVariants compiles a list of variants; an empty list gives nil.
// (Most flags and strategies have none, and evaluation streams through
// them: a pointer keeps them small.)
func compileVariants(list []clientapi.Variant, group string, sticky stickiness, fromStrategy bool, k *keeper) *variantSet {
	if len(list) == 0 {
		return nil
	}
	vs := &variantSet{hash: newHashPrefix(group, variantSeed), sticky: sticky}
	for _, v := range list {
		cv := variant{name: k.str(v.Name), payload: k.payload(v.Payload), fromStrategy: fromStrategy}
		if v.Weight > 0 {
			cv.weight = uint32(v.Weight)
		}
		for _, o := range v.Overrides {
			cv.overrides = append(cv.overrides, override{field: k.field(o.ContextName), values: newStringSet(k.list(o.Values))})
		}
		vs.total += cv.weight
		vs.variants = append(vs.variants, cv)
	}
	return vs
}

// result is the Variant of a flag that answers with v.
func (v *variant) result() Variant {
	return Variant{Name: v.name, Enabled: true, Payload: v.payload, FeatureEnabled: true, FromStrategy: v.fromStrategy}
}

// empty reports whether the set offers no variant (nil included).
func (vs *variantSet) empty() bool { return vs == nil || len(vs.variants) == 0 }

// pick returns the variant for ctx, or nil when the list offers none.
// Overrides win over weights and are checked first, as in the reference
// engine, so a pinned variant works even when all weights are zero.
func (vs *variantSet) pick(ctx *Context, e *run) *variant {
	if vs.empty() {
		return nil
	}
	for i := range vs.variants {
		v := &vs.variants[i]
		for _, o := range v.overrides {
			if sv := e.slot(ctx, &o.field); sv.present && o.values.has(sv.value) {
				return v
			}
		}
	}
	if vs.total == 0 {
		return nil
	}
	target := vs.target(ctx, e)
	var sum uint32
	for i := range vs.variants {
		v := &vs.variants[i]
		sum += v.weight
		if v.weight > 0 && sum >= target {
			return v
		}
	}
	return nil
}

// target is the 1..total bucket for ctx. The default stickiness tries
// userId, sessionId and remoteAddress in that order (as the Node SDK and
// the reference proxy do) before falling back to a random bucket; a named
// field that is missing also means random.
func (vs *variantSet) target(ctx *Context, e *run) uint32 {
	var id string
	switch vs.sticky.mode {
	case stickyDefault:
		e.perUser = true
		id = ctx.variantID()
	case stickyField:
		id = e.slot(ctx, &vs.sticky.field).value
	}
	if id == "" {
		return e.randomIn(vs.total)
	}
	return vs.hash.bucket(id, vs.total)
}

// variantID is what the default variant stickiness hashes: userId, else
// sessionId, else remoteAddress ("" when the context has none).
func (c *Context) variantID() string {
	switch {
	case c.UserID != "":
		return c.UserID
	case c.SessionID != "":
		return c.SessionID
	}
	return c.RemoteAddress
}
