package engine

import (
	"fmt"
	"net/netip"
	"regexp"
	"slices"
	"strings"

	"github.com/signalbox/signalbox/clientapi"
)

// ConstraintError says which field of a constraint is wrong and why.
type ConstraintError struct {
	Field   string // contextName, operator, values or value
	Message string
}

func (e *ConstraintError) Error() string { return e.Field + ": " + e.Message }

// multiValued are the operators that read values rather than value.
var multiValued = map[operator]bool{
	opIn: true, opNotIn: true, opStrStartsWith: true, opStrEndsWith: true, opStrContains: true, opInCIDR: true,
}

// CheckConstraint tells a server whether a constraint is one the engine
// can evaluate as written: a context field, a known operator, and operands
// that parse the way evaluation reads them (numbers in decimal notation,
// RFC 3339 dates, strict semantic versions, RE2 regular expressions, IP
// addresses or CIDR blocks). Evaluation itself never fails on a bad
// constraint (it just does not match); this is for refusing them at the door.
func CheckConstraint(c clientapi.Constraint) *ConstraintError {
	if strings.TrimSpace(c.ContextName) == "" {
		return &ConstraintError{"contextName", "a constraint needs a contextName"}
	}
	op, known := operators[c.Operator]
	if !known {
		names := Operators()
		slices.Sort(names)
		return &ConstraintError{"operator", fmt.Sprintf("%q is not an operator; use one of %s", c.Operator, strings.Join(names, ", "))}
	}
	if multiValued[op] {
		if len(c.Values) == 0 {
			return &ConstraintError{"values", c.Operator + " needs at least one entry in values"}
		}
		if op == opInCIDR {
			for _, v := range c.Values {
				if _, err := netip.ParsePrefix(strings.TrimSpace(v)); err != nil {
					if _, err := netip.ParseAddr(strings.TrimSpace(v)); err != nil {
						return &ConstraintError{"values", fmt.Sprintf("%q is neither an IP address nor a CIDR block", v)}
					}
				}
			}
		}
		return nil
	}
	var ok bool
	var want string
	switch op {
	case opNumEq, opNumGt, opNumGte, opNumLt, opNumLte:
		_, ok = parseDecimal(c.Value)
		want = "a number in decimal notation"
	case opDateAfter, opDateBefore:
		_, ok = parseDate(c.Value)
		want = "a date-time such as 2030-01-31T12:00:00Z"
	case opSemverEq, opSemverGt, opSemverGte, opSemverLt, opSemverLte:
		_, ok = parseSemver(c.Value)
		want = "a semantic version such as 1.2.3 (no leading v)"
	case opRegex:
		_, err := regexp.Compile(c.Value)
		ok = err == nil && c.Value != ""
		want = "a regular expression (RE2 syntax)"
	}
	if !ok {
		return &ConstraintError{"value", fmt.Sprintf("%s needs value to be %s, not %q", c.Operator, want, c.Value)}
	}
	return nil
}

// MultiValued reports whether an operator reads its operands from values
// (IN, NOT_IN, STR_*, IN_CIDR) rather than from value.
func MultiValued(operator string) bool { return multiValued[operators[operator]] }
