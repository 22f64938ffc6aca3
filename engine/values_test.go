package engine

import (
	"strconv"
	"strings"
	"testing"
)

func TestParseDecimal(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"12", 12, true}, {"12.0", 12, true}, {"-1.5", -1.5, true}, {"+3", 3, true},
		{".5", 0.5, true}, {"5.", 5, true}, {"1e3", 1000, true}, {"1E-2", 0.01, true},
		{"0.1", 0.1, true}, {"000123.4500", 123.45, true}, {" 7 ", 7, true},
		{"1234567890123456789", 1234567890123456789, true},
		{"", 0, false}, {"-", 0, false}, {".", 0, false}, {"1e", 0, false}, {"1e+", 0, false},
		{"NaN", 0, false}, {"Inf", 0, false}, {"0x10", 0, false}, {"1_000", 0, false},
		{"12abc", 0, false}, {"1.2.3", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseDecimal(tt.in)
		if ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("parseDecimal(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// FuzzParseDecimal checks the fast path against strconv.ParseFloat on
// every input both accept.
func FuzzParseDecimal(f *testing.F) {
	for _, s := range []string{"0", "1.5", "-0.001", "123456789012345", "9007199254740993", "1e5", "0.30000000000000004"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parseDecimal(s)
		if !ok {
			return
		}
		want, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || got != want {
			t.Fatalf("parseDecimal(%q) = %v, ParseFloat = %v (%v)", s, got, want, err)
		}
	})
}
