package engine

import (
	"fmt"
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

// BenchmarkStringSet compares the two forms of a stringSet on both sides
// of stringSetMapThreshold, with ids that differ only in their last bytes
// (the worst case for a scan) and a miss of the same length (what most
// userWithId and IN lookups are).
func BenchmarkStringSet(b *testing.B) {
	for _, n := range []int{4, 8, 12, 16, 24, 48} {
		values := make([]string, n)
		for i := range values {
			values[i] = "user-" + strconv.Itoa(1000+i)
		}
		m := make(map[string]struct{}, n)
		for _, v := range values {
			m[v] = struct{}{}
		}
		forms := []struct {
			name string
			set  stringSet
		}{{"scan", stringSet{list: values}}, {"map", stringSet{set: m}}}
		for _, form := range forms {
			for _, probe := range []struct{ name, v string }{{"hit", values[n/2]}, {"miss", "user-9999"}} {
				b.Run(fmt.Sprintf("%d/%s/%s", n, form.name, probe.name), func(b *testing.B) {
					v := strings.Clone(probe.v) // not the same pointer as the entry
					for b.Loop() {
						if form.set.has(v) != (probe.name == "hit") {
							b.Fatal("wrong answer")
						}
					}
				})
			}
		}
	}
}
