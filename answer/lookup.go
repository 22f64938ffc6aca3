package answer

import (
	"strings"

	"github.com/signalbox/signalbox/engine"
)

// Lookup is the JSON body of the proxy's POST /proxy and of the server's
// POST /api/frontend: {"context": {...}, "toggles": [...]}. Decode it with
// encoding/json, then call Parse. Both APIs read bodies through it, so the
// same body gives the same context on either: unknown top-level context
// members become properties, numbers and booleans are taken as written,
// and empty known fields are dropped. Its members decode themselves (see
// jsonscan.go) and keep shape problems for Parse, so that a body of the
// wrong shape gets a validation answer rather than a decode error.
type Lookup struct {
	Context jsonContext `json:"context"`
	Toggles jsonToggles `json:"toggles"`
}

// FieldError is a lookup body of the wrong shape. DataPath names the
// member in the reference proxy's spelling (".body.context.userId"),
// Keyword the JSON-schema rule it breaks, Message what it must be.
type FieldError struct {
	Keyword, DataPath, Message string
}

func (e *FieldError) Error() string { return e.Member() + ": " + e.Message }

// Member is the body member at fault without the ".body." prefix
// ("context.userId").
func (e *FieldError) Member() string { return strings.TrimPrefix(e.DataPath, ".body.") }

func invalid(path, keyword, msg string) *FieldError {
	return &FieldError{Keyword: keyword, DataPath: path, Message: msg}
}

// Parse returns the evaluation context and the toggles list (nil when
// absent, null or empty, which all mean "every enabled flag").
func (l *Lookup) Parse() (engine.Context, []string, *FieldError) {
	if l.Context.err != nil {
		return engine.Context{}, nil, l.Context.err
	}
	if l.Toggles.err != nil {
		return engine.Context{}, nil, l.Toggles.err
	}
	return l.Context.b.context(), l.Toggles.names, nil
}

func isKnownField(name string) bool {
	switch name {
	case fieldUserID, fieldSessionID, fieldRemoteAddress, fieldEnvironment, fieldAppName, fieldCurrentTime:
		return true
	}
	return false
}
