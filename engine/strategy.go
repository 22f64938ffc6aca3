package engine

import (
	"net/netip"
	"strings"

	"github.com/signalbox/signalbox/clientapi"
)

type strategyKind uint8

const (
	stratUnknown strategyKind = iota
	stratDefault
	stratUserWithID
	stratGradualUserID
	stratGradualSessionID
	stratGradualRandom
	stratFlexibleRollout
	stratRemoteAddress
	stratApplicationHostname
	stratCustom
)

var builtinStrategies = map[string]strategyKind{
	"default":                 stratDefault,
	"userWithId":              stratUserWithID,
	"gradualRolloutUserId":    stratGradualUserID,
	"gradualRolloutSessionId": stratGradualSessionID,
	"gradualRolloutRandom":    stratGradualRandom,
	"flexibleRollout":         stratFlexibleRollout,
	"remoteAddress":           stratRemoteAddress,
	"applicationHostname":     stratApplicationHostname,
}

// BuiltinStrategies lists the names of the strategies the engine evaluates
// itself, in the order SDKs announce them when registering.
func BuiltinStrategies() []string {
	return []string{"default", "userWithId", "gradualRolloutUserId", "gradualRolloutSessionId",
		"gradualRolloutRandom", "flexibleRollout", "remoteAddress", "applicationHostname"}
}

// stickiness says which identifier a rollout or variant bucket hashes.
type stickiness struct {
	mode  stickyMode
	field field
}

type stickyMode uint8

const (
	stickyDefault stickyMode = iota // userId, then sessionId, then random
	stickyRandom
	stickyField
)

func parseStickiness(s string) stickiness {
	switch s {
	case "", "default":
		return stickiness{mode: stickyDefault}
	case "random":
		return stickiness{mode: stickyRandom}
	}
	return stickiness{mode: stickyField, field: fieldOf(s)}
}

// strategy is a compiled activation strategy. Evaluating all flags reads
// the snapshot's strategies one after another (see packStrategies), so
// the struct is kept small and what the common strategies read comes
// first; the parameters of rarer ones are behind more.
type strategy struct {
	kind        strategyKind
	off         bool // a referenced segment is missing or an operator unknown
	pctOK       bool
	constraints []constraint
	ids         stringSet  // userWithId
	percentage  float64    // gradual*, flexibleRollout
	groupHash   hashPrefix // "groupId:" hashed with the rollout seed
	sticky      stickiness
	variants    *variantSet   // nil when the strategy has none
	more        *strategyMore // remoteAddress, applicationHostname, custom
}

// strategyMore holds the parameters of the less common strategies.
type strategyMore struct {
	prefixes  []netip.Prefix // remoteAddress
	addrs     []string       // remoteAddress entries, for exact matches of non-IP values
	remote    field          // remoteAddress: the context's address, kept in a slot
	hostnames []string       // applicationHostname, lower-cased
	custom    CustomStrategy
	params    map[string]string // custom strategies see their raw parameters
}

func compileStrategy(flagName string, s clientapi.Strategy, segments map[int][]constraint, e *env, k *keeper, warn func(string, ...any)) strategy {
	cs := strategy{kind: builtinStrategies[s.Name]}
	for _, c := range s.Constraints {
		cc := compileConstraint(c, k, warn)
		if cc.op == opUnknown {
			cs.off = true
		}
		cs.constraints = append(cs.constraints, cc)
	}
	for _, id := range s.Segments {
		seg, ok := segments[id]
		if !ok {
			warn("flag %q: strategy %q references missing segment %d", flagName, s.Name, id)
			cs.off = true
			continue
		}
		cs.constraints = append(cs.constraints, seg...)
	}
	p := s.Parameters
	groupID := p["groupId"]
	switch cs.kind {
	case stratUserWithID:
		cs.ids = newStringSet(k.list(splitList(p["userIds"])))
	case stratGradualUserID, stratGradualSessionID, stratGradualRandom:
		cs.percentage, cs.pctOK = parsePercentage(p["percentage"])
	case stratFlexibleRollout:
		cs.percentage, cs.pctOK = parsePercentage(p["rollout"])
		if groupID == "" {
			groupID = flagName
		}
		cs.sticky = k.stickiness(p["stickiness"])
	case stratRemoteAddress:
		addrs := k.list(splitList(p["IPs"]))
		cs.more = &strategyMore{remote: fieldOf("remoteAddress"), addrs: addrs, prefixes: parsePrefixes(addrs)}
	case stratApplicationHostname:
		cs.more = &strategyMore{}
		for _, h := range splitList(p["hostNames"]) {
			cs.more.hostnames = append(cs.more.hostnames, k.str(strings.ToLower(h)))
		}
	case stratUnknown:
		if custom, ok := e.custom[s.Name]; ok {
			cs.kind, cs.more = stratCustom, &strategyMore{custom: custom, params: map[string]string(p)}
		} else {
			warn("flag %q: unknown strategy %q evaluates false", flagName, s.Name)
		}
	}
	// A rollout to everyone is on for every context, whatever the hash or
	// the draw (both give 1..100): nothing to hash, and no randomness for
	// the answer to depend on. (A gradual rollout by user or session id
	// still needs the id, and a named stickiness field its value.)
	if cs.pctOK && cs.percentage >= 100 && (cs.kind == stratGradualRandom ||
		cs.kind == stratFlexibleRollout && (cs.sticky.mode == stickyDefault || cs.sticky.mode == stickyRandom)) {
		cs.kind = stratDefault
	}
	cs.groupHash = newHashPrefix(groupID, rolloutSeed)
	variantGroup := p["groupId"]
	if variantGroup == "" {
		variantGroup = flagName
	}
	// Strategy variants use the strategy's stickiness parameter, as the
	// reference engine does; the variants' own stickiness is ignored.
	cs.variants = compileVariants(s.Variants, variantGroup, k.stickiness(p["stickiness"]), true, k)
	return cs
}

// isOn reports whether the strategy switches the flag on for ctx.
func (s *strategy) isOn(ctx *Context, e *run) bool {
	if s.off {
		return false
	}
	if len(s.constraints) > 0 && !s.constraintsMatch(ctx, e) {
		return false
	}
	switch s.kind {
	case stratDefault:
		return true
	case stratUserWithID:
		e.perUser = true
		return ctx.UserID != "" && s.ids.has(ctx.UserID)
	case stratGradualUserID:
		e.perUser = true
		return s.rollout(ctx.UserID)
	case stratGradualSessionID:
		e.perUser = true
		return s.rollout(ctx.SessionID)
	case stratGradualRandom:
		return s.pctOK && s.percentage > 0 && float64(e.randomIn(100)) <= s.percentage
	case stratFlexibleRollout:
		if s.sticky.mode == stickyDefault {
			e.perUser = true
			if ctx.UserID != "" {
				return s.rollout(ctx.UserID) // the common case, one call fewer
			}
		}
		return s.flexible(ctx, e)
	case stratRemoteAddress:
		return s.remoteAddress(e.slot(ctx, &s.more.remote))
	case stratApplicationHostname:
		for _, h := range s.more.hostnames {
			if h == e.env.hostname {
				return true
			}
		}
		return false
	case stratCustom:
		// User code may use randomness, the clock or any field.
		e.volatile, e.perUser = true, true
		// User code gets a copy, which the compiler must assume it keeps:
		// the caller's context then stays on its stack.
		c := *ctx
		return s.more.custom.IsEnabled(s.more.params, &c)
	}
	return false
}

// constraintsMatch reports whether every constraint of the strategy
// matches, with the verdicts the run remembers when it keeps them.
func (s *strategy) constraintsMatch(ctx *Context, e *run) bool {
	for i := range s.constraints {
		c := &s.constraints[i]
		if c.memo != 0 && e.all != nil {
			if c.field.kind.perUser() {
				e.perUser = true // a remembered verdict reads no slot
			}
			if !c.remembered(ctx, e) {
				return false
			}
		} else if !c.matches(ctx, e) {
			return false
		}
	}
	return true
}

// rollout buckets id into 1..100 within the strategy's group. A missing id
// is off even at 100%.
func (s *strategy) rollout(id string) bool {
	if id == "" || !s.pctOK || s.percentage <= 0 {
		return false
	}
	return float64(s.groupHash.bucket(id, 100)) <= s.percentage
}

func (s *strategy) flexible(ctx *Context, e *run) bool {
	if !s.pctOK || s.percentage <= 0 {
		return false
	}
	switch s.sticky.mode {
	case stickyDefault:
		if ctx.UserID != "" {
			return s.rollout(ctx.UserID)
		}
		if ctx.SessionID != "" {
			return s.rollout(ctx.SessionID)
		}
		return float64(e.randomIn(100)) <= s.percentage
	case stickyRandom:
		return float64(e.randomIn(100)) <= s.percentage
	}
	// A named stickiness field only: no fallback, and missing means off.
	sv := e.slot(ctx, &s.sticky.field)
	return sv.present && s.rollout(sv.value)
}

// remoteAddress matches the context's address exactly against the listed
// entries (which need not be IP addresses), then against the listed blocks.
func (s *strategy) remoteAddress(sv *slotValue) bool {
	if !sv.present {
		return false
	}
	for _, a := range s.more.addrs {
		if a == sv.value {
			return true
		}
	}
	addr, ok := sv.ip()
	return ok && inPrefixes(s.more.prefixes, addr)
}
