package engine

// PlanShape counts a plan's flags answered from checks and those it
// evaluates in full, for tests that must show both happen.
func PlanShape(p *Plan) (checked, generic int) {
	for _, st := range p.steps {
		if st.generic {
			generic++
		} else {
			checked++
		}
	}
	return checked, generic
}

// MaxUserIndex is the bound of a plan's user index.
const MaxUserIndex = maxUserIndex

// PlanIndexesUsers reports whether p looks users up in its index.
func PlanIndexesUsers(p *Plan) bool { return p.users != nil }

// FastMod is fastMod with the multiplier made for d.
func FastMod(x, d uint32) uint32 { return fastMod(x, d, modMagic(d)) }
