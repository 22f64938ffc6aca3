package envparse

import "testing"

func TestBool(t *testing.T) {
	for v, want := range map[string]bool{"true": true, "TRUE": true, "1": true, "yes": true, "On": true, " on ": true,
		"false": false, "0": false, "no": false, "OFF": false} {
		got, err := Bool(v)
		if err != nil || got != want {
			t.Errorf("Bool(%q) = %v, %v; want %v", v, got, err, want)
		}
	}
	for _, v := range []string{"", "maybe", "2", "y", "t"} {
		if _, err := Bool(v); err == nil {
			t.Errorf("Bool(%q) accepted", v)
		}
	}
}
