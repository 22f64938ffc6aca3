package answer

import (
	"reflect"
	"testing"
)

// FuzzContextFromQuery: the shortcut for properties%5Bname%5D reads every
// query as unescaping each key whole does.
func FuzzContextFromQuery(f *testing.F) {
	for _, q := range []string{
		"userId=u&properties%5Bcountry%5D=no&properties%5bage%5d=30",
		"properties%5B%5D=x&properties%5Ba%25b%5D=1&properties%5Ba+b%5D=2&properties%5Bx%zz%5D=3",
		"properties%5Ba]b%5D=1&properties[a]=2&a=3&properties%5Ba%5D=4",
		"properties%5B=1&properties%5D=2&properties%5B%5=3&properties%5C%5D=4&%5Bx%5D=5",
		"properties%5Bv%5D=%E2%82%AC+x&properties%5Bw%5D=%zz",
	} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, q string) {
		got, want := ContextFromQuery(q), contextFromQuery(q, false)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %+v\nwant %+v", q, got, want)
		}
	})
}
