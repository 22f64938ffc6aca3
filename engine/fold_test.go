package engine

import (
	"strings"
	"testing"
)

// TestWordAtATimeASCII checks the eight-bytes-at-a-time helpers against
// the plain definitions on every ASCII byte in every position.
func TestWordAtATimeASCII(t *testing.T) {
	for c := 0; c < 0x80; c++ {
		for pos := range 11 {
			b := []byte(strings.Repeat("aZ@[`{", 2)[:11])
			b[pos] = byte(c)
			a := string(b)
			lower := strings.ToLower(a)
			if !equalLowerASCII(a, lower) {
				t.Fatalf("%q does not fold to %q", a, lower)
			}
			other := []byte(lower)
			other[pos] ^= 0x20
			if strings.ToLower(a) != string(other) && equalLowerASCII(a, string(other)) {
				t.Fatalf("%q folds to %q", a, other)
			}
			if !isASCII(a) {
				t.Fatalf("%q is ASCII", a)
			}
			b[pos] = byte(c | 0x80)
			if isASCII(string(b)) {
				t.Fatalf("%q is not ASCII", b)
			}
		}
	}
}
