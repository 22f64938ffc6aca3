package engine

import (
	"time"
)

// Context is what a flag is evaluated for. Empty top-level fields count as
// missing, as SDKs drop them before evaluating; a property is present when
// its key is in Properties.
type Context struct {
	UserID        string
	SessionID     string
	RemoteAddress string
	Environment   string
	AppName       string
	// CurrentTime is the instant DATE constraints compare against; the zero
	// value means "now" from Options.Now.
	CurrentTime time.Time
	Properties  map[string]string
}

// field identifies where a constraint, override or stickiness reads its value.
type field struct {
	name string // property name when kind is fieldProperty
	slot uint32 // where an evaluation keeps its value (see slots.go)
	kind fieldKind
}

type fieldKind uint8

const (
	fieldProperty fieldKind = iota
	// The fields that tell users apart come together (see perUser).
	fieldUserID
	fieldSessionID
	fieldRemoteAddress
	fieldEnvironment
	fieldAppName
	fieldCurrentTime
)

// perUser reports whether the field is one that tells users apart (see
// Result.PerUser).
func (k fieldKind) perUser() bool {
	return k-fieldUserID <= fieldRemoteAddress-fieldUserID // one comparison, unsigned
}

func fieldOf(name string) field {
	switch name {
	case "userId":
		return field{kind: fieldUserID}
	case "sessionId":
		return field{kind: fieldSessionID}
	case "remoteAddress":
		return field{kind: fieldRemoteAddress}
	case "environment":
		return field{kind: fieldEnvironment}
	case "appName":
		return field{kind: fieldAppName}
	case "currentTime":
		return field{kind: fieldCurrentTime}
	}
	return field{kind: fieldProperty, name: name}
}

// value returns the context's value of f and whether it is present.
func (c *Context) value(f field) (string, bool) {
	var v string
	switch f.kind {
	case fieldUserID:
		v = c.UserID
	case fieldSessionID:
		v = c.SessionID
	case fieldRemoteAddress:
		v = c.RemoteAddress
	case fieldEnvironment:
		v = c.Environment
	case fieldAppName:
		v = c.AppName
	case fieldCurrentTime:
		if c.CurrentTime.IsZero() {
			return "", false
		}
		return c.CurrentTime.UTC().Format(time.RFC3339Nano), true
	default:
		v, ok := c.Properties[f.name]
		return v, ok
	}
	return v, v != ""
}
