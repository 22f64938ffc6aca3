package answer

import (
	"maps"
	"net/url"
	"strings"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/engine"
)

// Context field names, as query parameters and JSON members.
const (
	fieldUserID        = "userId"
	fieldSessionID     = "sessionId"
	fieldRemoteAddress = "remoteAddress"
	fieldEnvironment   = "environment"
	fieldAppName       = "appName"
	fieldCurrentTime   = "currentTime"
	fieldProperties    = "properties"
)

// contextBuilder collects context fields from a query or a JSON body with
// the reference's rules: the six known fields are set once, "properties"
// members are properties, and any other member becomes a property too,
// unless "properties" names it explicitly. A repeated query parameter
// keeps its first value (as url.Values.Get); a repeated JSON member its
// last (as JSON.parse).
type contextBuilder struct {
	ctx      engine.Context
	seen     uint8             // known fields already set
	explicit map[string]string // properties[...] members, applied last
	lastWins bool              // JSON: later duplicates replace earlier ones
}

const (
	seenUser uint8 = 1 << iota
	seenSession
	seenRemote
	seenEnv
	seenApp
	seenTime
)

// setField applies one top-level member.
func (b *contextBuilder) setField(name, value string) {
	switch name {
	case fieldUserID:
		b.once(seenUser, &b.ctx.UserID, value)
	case fieldSessionID:
		b.once(seenSession, &b.ctx.SessionID, value)
	case fieldRemoteAddress:
		b.once(seenRemote, &b.ctx.RemoteAddress, value)
	case fieldEnvironment:
		b.once(seenEnv, &b.ctx.Environment, value)
	case fieldAppName:
		b.once(seenApp, &b.ctx.AppName, value)
	case fieldCurrentTime:
		if (b.lastWins || b.seen&seenTime == 0) && value != "" {
			b.seen |= seenTime
			// An unparsable time is ignored and the clock is used.
			b.ctx.CurrentTime = engine.ContextFromWire(&clientapi.Context{CurrentTime: value}).CurrentTime
		}
	case fieldProperties:
		// A bare "properties" value is not an object; nothing to take.
	default:
		if b.ctx.Properties == nil {
			b.ctx.Properties = make(map[string]string, 4)
		}
		if _, ok := b.ctx.Properties[name]; !ok || b.lastWins {
			b.ctx.Properties[name] = value
		}
	}
}

// once sets an empty known field; empty values are dropped, as the
// reference drops falsy fields, so they never match IN [""].
func (b *contextBuilder) once(bit uint8, dst *string, v string) {
	if (b.seen&bit != 0 && !b.lastWins) || v == "" {
		return
	}
	b.seen |= bit
	*dst = v
}

// setProperty applies one member of "properties"; it wins over a
// same-named unknown top-level member.
func (b *contextBuilder) setProperty(name, value string) {
	if b.explicit == nil {
		b.explicit = make(map[string]string, 4)
	}
	if _, ok := b.explicit[name]; !ok || b.lastWins {
		b.explicit[name] = value
	}
}

// context returns the collected context.
func (b *contextBuilder) context() engine.Context {
	if len(b.explicit) > 0 {
		if b.ctx.Properties == nil {
			b.ctx.Properties = b.explicit
		} else {
			maps.Copy(b.ctx.Properties, b.explicit)
		}
	}
	return b.ctx
}

// ContextFromQuery reads a GET context from a raw query string, with the
// qs-style properties[name]=value form. Parsing by hand avoids building a
// url.Values map per request; malformed escapes are kept as written, as
// the reference's query parser does.
func ContextFromQuery(raw string) engine.Context { return contextFromQuery(raw, true) }

// contextFromQuery is ContextFromQuery; without shortcut every key is
// unescaped whole, as FuzzContextFromQuery compares.
func contextFromQuery(raw string, shortcut bool) engine.Context {
	var b contextBuilder
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		if name, ok := escapedPropertyKey(k); ok && shortcut {
			if name != "" {
				b.setProperty(name, unescape(v))
			}
			continue
		}
		k, v = unescape(k), unescape(v)
		if name, ok := propertyKey(k); ok {
			if name != "" {
				b.setProperty(name, v)
			}
			continue
		}
		if k != "" {
			b.setField(k, v)
		}
	}
	return b.context()
}

// propertyKey recognises "properties[name]".
func propertyKey(k string) (string, bool) {
	rest, ok := strings.CutPrefix(k, fieldProperties+"[")
	if !ok || !strings.HasSuffix(rest, "]") {
		return "", false
	}
	return rest[:len(rest)-1], true
}

// escapedPropertyKey recognises "properties%5Bname%5D", the form in which
// browsers' URLSearchParams send properties[name], when name itself holds
// no escapes: name is then the query's own bytes, with no unescaped copy
// of the whole key to make (names with escapes take propertyKey's way).
func escapedPropertyKey(k string) (string, bool) {
	const prefix = len(fieldProperties)
	if len(k) < prefix+6 || k[:prefix] != fieldProperties || !isEscaped(k[prefix:prefix+3], 'B') || !isEscaped(k[len(k)-3:], 'D') {
		return "", false
	}
	name := k[prefix+3 : len(k)-3]
	if strings.ContainsAny(name, "%+") {
		return "", false
	}
	return name, true
}

// isEscaped reports whether s is the escape %5<hex> in either case: "[" is
// %5B, "]" %5D.
func isEscaped(s string, hex byte) bool {
	return s[0] == '%' && s[1] == '5' && (s[2] == hex || s[2] == hex-'A'+'a')
}

func unescape(s string) string {
	if strings.IndexByte(s, '%') < 0 && strings.IndexByte(s, '+') < 0 {
		return s
	}
	if u, err := url.QueryUnescape(s); err == nil {
		return u
	}
	return s
}
