package answer

// DecodeCommon decodes body when it is a lookup in the shape clients send
// (httpx.DecodeJSON tries it before encoding/json): an object with at most
// a "context" and a "toggles" member, whose values hold only strings
// without escapes, null, true, false, objects and arrays. It checks that
// body is such JSON, then hands the members' bytes to the same
// UnmarshalJSON methods encoding/json would call, so the lookup is what
// json.Unmarshal would make of it; encoding/json's own pass over the body
// and its reflection cost more than evaluating 60 flags. Anything else
// (numbers, escapes, other or repeated members, members spelt in another
// case, which encoding/json matches too) leaves l untouched and reports
// false.
func (l *Lookup) DecodeCommon(body []byte) bool {
	v := validator{scanner{b: body}}
	var context, toggles []byte
	ok := v.object(0, func(key, value []byte) bool {
		switch string(key) {
		case "context":
			if context != nil {
				return false
			}
			context = value
		case "toggles":
			if toggles != nil {
				return false
			}
			toggles = value
		default:
			return false
		}
		return true
	})
	if v.ws(); !ok || v.i != len(body) {
		return false
	}
	if context != nil {
		_ = l.Context.UnmarshalJSON(context)
	}
	if toggles != nil {
		_ = l.Toggles.UnmarshalJSON(toggles)
	}
	return true
}

// maxCommonDepth bounds the nesting DecodeCommon follows; deeper bodies
// go to encoding/json, which has its own bound.
const maxCommonDepth = 32

// validator checks the subset of JSON that DecodeCommon accepts. Unlike
// the scanner it walks, it trusts nothing about the bytes.
type validator struct{ scanner }

// take skips white space and then c, if c is next.
func (v *validator) take(c byte) bool {
	v.ws()
	if v.i < len(v.b) && v.b[v.i] == c {
		v.i++
		return true
	}
	return false
}

// str reads a string without escapes or control characters (the only
// bytes JSON forbids in a string besides a lone backslash) and returns
// its contents.
func (v *validator) str() ([]byte, bool) {
	if !v.take('"') {
		return nil, false
	}
	from := v.i
	for ; v.i < len(v.b); v.i++ {
		switch c := v.b[v.i]; {
		case c == '"':
			v.i++
			return v.b[from : v.i-1], true
		case c == '\\' || c < 0x20:
			return nil, false
		}
	}
	return nil, false
}

// value checks one value at the current position.
func (v *validator) value(depth int) bool {
	if depth > maxCommonDepth {
		return false
	}
	switch v.peek() {
	case '"':
		_, ok := v.str()
		return ok
	case 'n':
		return v.word("null")
	case 't':
		return v.word("true")
	case 'f':
		return v.word("false")
	case '{':
		return v.object(depth, func(_, _ []byte) bool { return true })
	case '[':
		return v.array(depth)
	}
	return false // a number, or not JSON
}

// object checks an object, handing member each member's key and value
// bytes; a member it refuses makes the object invalid.
func (v *validator) object(depth int, member func(key, value []byte) bool) bool {
	if !v.take('{') {
		return false
	}
	if v.take('}') {
		return true
	}
	for {
		key, ok := v.str()
		if !ok || !v.take(':') {
			return false
		}
		v.ws()
		from := v.i
		if !v.value(depth+1) || !member(key, v.b[from:v.i]) {
			return false
		}
		if !v.take(',') {
			return v.take('}')
		}
	}
}

func (v *validator) array(depth int) bool {
	if !v.take('[') {
		return false
	}
	if v.take(']') {
		return true
	}
	for {
		if !v.value(depth + 1) {
			return false
		}
		if !v.take(',') {
			return v.take(']')
		}
	}
}

func (v *validator) word(w string) bool {
	if len(v.b)-v.i < len(w) || string(v.b[v.i:v.i+len(w)]) != w {
		return false
	}
	v.i += len(w)
	return true
}
