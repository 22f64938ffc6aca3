package engine

import (
	"strings"

	"github.com/signalbox/signalbox/clientapi"
)

// keeper copies the parts of a payload that a snapshot keeps (flag and
// variant names, listed values, context field names, variant payloads)
// into a few large blocks. A decoded payload allocates each string, list
// and payload on its own, among many more objects the snapshot drops: the
// few thousand it kept in place would each hold a memory span of the
// dropped payload in use (at 5,000 flags about 1.3 MB more of partly
// empty spans after the payload was gone than with the copies).
type keeper struct {
	text     strings.Builder
	lists    []string
	payloads []clientapi.Payload
}

// Block sizes: a block is allocated when the last one is full, so a
// snapshot wastes at most one partly filled block of each kind.
const (
	keepTextBlock    = 16 << 10
	keepListBlock    = 512
	keepPayloadBlock = 128
)

// str returns a copy of s in the current text block. (A string is never
// written again once added: later additions go after it, or into a new
// block.)
func (k *keeper) str(s string) string {
	if s == "" {
		return ""
	}
	if len(s) > keepTextBlock/4 {
		return strings.Clone(s)
	}
	if k.text.Cap()-k.text.Len() < len(s) {
		k.text = strings.Builder{}
		k.text.Grow(keepTextBlock)
	}
	from := k.text.Len()
	k.text.WriteString(s)
	return k.text.String()[from:]
}

// list returns a copy of vs and of its strings; empty lists give nil.
func (k *keeper) list(vs []string) []string {
	if len(vs) == 0 {
		return nil
	}
	if len(vs) > keepListBlock/4 {
		out := make([]string, len(vs))
		for i, v := range vs {
			out[i] = k.str(v)
		}
		return out
	}
	if cap(k.lists)-len(k.lists) < len(vs) {
		k.lists = make([]string, 0, keepListBlock)
	}
	from := len(k.lists)
	for _, v := range vs {
		k.lists = append(k.lists, k.str(v))
	}
	return k.lists[from:len(k.lists):len(k.lists)]
}

// payload returns a copy of p (nil for nil).
func (k *keeper) payload(p *clientapi.Payload) *clientapi.Payload {
	if p == nil {
		return nil
	}
	if len(k.payloads) == cap(k.payloads) {
		k.payloads = make([]clientapi.Payload, 0, keepPayloadBlock)
	}
	k.payloads = append(k.payloads, clientapi.Payload{Type: k.str(p.Type), Value: k.str(p.Value)})
	return &k.payloads[len(k.payloads)-1]
}

// field is fieldOf(name) with the property name kept.
func (k *keeper) field(name string) field {
	f := fieldOf(name)
	f.name = k.str(f.name)
	return f
}

// stickiness is parseStickiness(s) with a field's name kept.
func (k *keeper) stickiness(s string) stickiness {
	st := parseStickiness(s)
	st.field.name = k.str(st.field.name)
	return st
}
