package server

import (
	"reflect"
	"testing"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/store"
)

// TestSameClientFeatureFields fails when a field is added to the types
// sameClientFeature compares, until it compares that field too.
func TestSameClientFeatureFields(t *testing.T) {
	for _, c := range []struct {
		typ  reflect.Type
		want int
	}{
		{reflect.TypeFor[clientapi.Feature](), 11},
		{reflect.TypeFor[store.ClientFeature](), 2},
	} {
		if n := c.typ.NumField(); n != c.want {
			t.Errorf("%v has %d fields, sameClientFeature knows %d", c.typ, n, c.want)
		}
	}
}

func TestSameClientFeature(t *testing.T) {
	a := store.ClientFeature{Feature: clientapi.Feature{Name: "a", Strategies: []clientapi.Strategy{{Name: "default"}}}}
	copied := a
	reread := a
	reread.Strategies = []clientapi.Strategy{{Name: "default"}}
	toggled := a
	toggled.Enabled = true
	for _, c := range []struct {
		name string
		b    store.ClientFeature
		want bool
	}{
		{"a copy sharing its lists", copied, true},
		{"equal lists of its own", reread, false},
		{"a field changed", toggled, false},
	} {
		if got := sameClientFeature(&a, &c.b); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
