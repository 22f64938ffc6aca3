package answer

import (
	"encoding/json"
	"unicode/utf8"
)

// scanner walks a JSON value that encoding/json has already validated (it
// is only used inside UnmarshalJSON methods), so it needs no error
// handling of its own. It exists because decoding the POST /proxy body
// through json.RawMessage and maps cost more than evaluating the flags.
//
// text holds the same bytes as b, copied once: the strings it reads are
// slices of it, not one allocation each.
type scanner struct {
	b    []byte
	text string
	i    int
}

func newScanner(data []byte) scanner { return scanner{b: data, text: string(data)} }

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, 0 at the end.
func (s *scanner) peek() byte {
	s.ws()
	if s.i >= len(s.b) {
		return 0
	}
	return s.b[s.i]
}

// str reads a string token. Strings without escapes and with valid UTF-8
// are taken as they are; the rest go through encoding/json, which also
// replaces invalid UTF-8 as it always does.
func (s *scanner) str() string {
	start := s.i // at the opening quote
	s.i++
	plain := true
	for s.b[s.i] != '"' {
		if s.b[s.i] == '\\' {
			plain = false
			s.i++
		}
		s.i++
	}
	s.i++
	tok := s.b[start:s.i]
	if inner := tok[1 : len(tok)-1]; plain && utf8.Valid(inner) {
		return s.text[start+1 : s.i-1]
	}
	var out string
	_ = json.Unmarshal(tok, &out)
	return out
}

// skip passes over one value of any kind.
func (s *scanner) skip() {
	switch s.peek() {
	case '"':
		s.str()
	case '{', '[':
		depth := 0
		for {
			switch s.b[s.i] {
			case '"':
				s.str()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			s.i++
			if depth == 0 {
				return
			}
		}
	default: // number, true, false, null
		for ; s.i < len(s.b); s.i++ {
			switch s.b[s.i] {
			case ',', ']', '}', ' ', '\t', '\n', '\r':
				return
			}
		}
	}
}

// scalar reads a value as text: strings decoded, numbers and booleans as
// written. ok is false for null; isScalar is false for objects and arrays,
// which are skipped.
func (s *scanner) scalar() (text string, ok, isScalar bool) {
	switch s.peek() {
	case '"':
		return s.str(), true, true
	case '{', '[':
		s.skip()
		return "", false, false
	case 'n':
		s.skip()
		return "", false, true
	}
	start := s.i
	s.skip()
	return s.text[start:s.i], true, true
}

// members calls fn for each member of the object at the scanner, with the
// scanner placed at the member's value; fn must consume the value.
func (s *scanner) members(fn func(name string)) {
	s.i++ // {
	for s.peek() != '}' {
		name := s.str()
		s.peek()
		s.i++ // :
		s.peek()
		fn(name)
		if s.peek() == ',' {
			s.i++
			s.ws()
		}
	}
	s.i++
}

// jsonContext is the "context" member of a lookup body, read straight into
// a contextBuilder. Shape problems are kept, not returned, so that they
// become the reference's validation answer instead of a decode error.
type jsonContext struct {
	b   contextBuilder
	err *FieldError
}

func (c *jsonContext) UnmarshalJSON(data []byte) error {
	c.b.lastWins = true
	s := newScanner(data)
	switch s.peek() {
	case 'n':
		return nil
	case '{':
	default:
		c.err = invalid(".body.context", "type", "context must be an object")
		return nil
	}
	s.members(func(name string) {
		if name == fieldProperties {
			c.properties(&s)
			return
		}
		v, ok, isScalar := s.scalar()
		switch {
		case !isScalar && isKnownField(name) && c.err == nil:
			c.err = invalid(".body.context."+name, "type", name+" must be a string")
		case ok:
			c.b.setField(name, v)
		}
	})
	return nil
}

func (c *jsonContext) properties(s *scanner) {
	switch s.peek() {
	case 'n':
		s.skip()
		return
	case '{':
	default:
		s.skip()
		if c.err == nil {
			c.err = invalid(".body.context.properties", "type", "properties must be an object")
		}
		return
	}
	s.members(func(name string) {
		if v, ok, _ := s.scalar(); ok {
			c.b.setProperty(name, v)
		}
	})
}

// jsonToggles is the "toggles" member of a lookup body: a list of names.
type jsonToggles struct {
	names []string
	err   *FieldError
}

func (t *jsonToggles) UnmarshalJSON(data []byte) error {
	s := newScanner(data)
	bad := func() { t.err = invalid(".body.toggles", "type", "toggles must be an array of flag names (strings)") }
	switch s.peek() {
	case 'n':
		return nil
	case '[':
	default:
		bad()
		return nil
	}
	s.i++
	for s.peek() != ']' {
		if s.peek() != '"' {
			bad()
			return nil
		}
		t.names = append(t.names, s.str())
		if s.peek() == ',' {
			s.i++
		}
	}
	return nil
}
