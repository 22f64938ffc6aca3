package engine

// planPick is a check's variants as a pick for a user reads them, kept in
// the plan with the other checks' (their weights in one array): a pick
// then reads the plan's memory in order, not each flag's variant list
// where the snapshot put it.
type planPick struct {
	hash     hashPrefix
	total    uint32
	magic    uint64 // modMagic(total)
	from, to int32  // the variants' weights in the plan's weights
	slot     int32  // the hash's in the plan's hashes
	// pinned is the set when a variant has overrides, which come first.
	pinned *variantSet
}

// addPick adds the pick from vs, and returns its index (-1 for nil vs).
func (p *Plan) addPick(vs *variantSet) int32 {
	if vs == nil {
		return -1
	}
	k := planPick{hash: vs.hash, total: vs.total, magic: modMagic(vs.total), from: int32(len(p.weights))}
	for i := range vs.variants {
		p.weights = append(p.weights, vs.variants[i].weight)
	}
	k.to = int32(len(p.weights))
	if vs.hasOverrides() {
		k.pinned = vs
	}
	p.picks = append(p.picks, k)
	return int32(len(p.picks) - 1)
}

// pickFor is pick for a set that plannableVariants accepts: the index of
// the variant (-1 for none), and false when it needs a random draw, ctx
// having none of the identifiers it hashes.
func (p *Plan) pickFor(k *planPick, ctx *Context) (int32, bool) {
	if k.pinned != nil {
		for i := range k.pinned.variants {
			for _, o := range k.pinned.variants[i].overrides {
				if id := ctx.identifier(o.field.kind); id != "" && o.values.has(id) {
					return int32(i), true
				}
			}
		}
	}
	if k.total == 0 {
		return -1, true
	}
	id := ctx.variantID()
	if id == "" {
		return -1, false
	}
	target := k.hash.bucket(id, k.total)
	var sum uint32
	for i, w := range p.weights[k.from:k.to] {
		sum += w
		if w > 0 && sum >= target {
			return int32(i), true
		}
	}
	return -1, true // unreachable: the weights add up to total
}

// hasOverrides reports whether any variant of vs has an override, which a
// pick reads before anything else.
func (vs *variantSet) hasOverrides() bool {
	for i := range vs.variants {
		if len(vs.variants[i].overrides) > 0 {
			return true
		}
	}
	return false
}
