package jsstrategy

import (
	"fmt"
	"reflect"

	"github.com/dop251/goja"
	"github.com/signalbox/signalbox/engine"
)

// builtinStrategies are the names the engine evaluates itself; a custom
// strategy with one of these names is never called (as in the Node SDK,
// where built-ins come first).
var builtinStrategies = map[string]bool{
	"default": true, "userWithId": true, "gradualRolloutUserId": true,
	"gradualRolloutSessionId": true, "gradualRolloutRandom": true,
	"flexibleRollout": true, "remoteAddress": true, "applicationHostname": true,
}

// jsStrategy is one exported strategy inside one runtime.
type jsStrategy struct {
	name string
	this *goja.Object
	fn   goja.Callable
}

// LoadStrategies loads a custom strategies file (SERVICE_CUSTOM_STRATEGIES_FILE)
// and returns its strategies by name, ready for engine.Options.CustomStrategies.
//
// The file must export an array (or an object whose strategies or default
// property is an array) of objects with a non-empty string name and an
// isEnabled function. When two share a name the first wins, as in the Node
// SDK. The error names the file and the problem.
//
// The returned strategies are safe for concurrent use. isEnabled's result
// is coerced with JavaScript truthiness; a strategy that throws or runs
// past opts.Timeout evaluates false and logs a warning, at most once a
// minute per strategy.
func LoadStrategies(path string, opts Options) (map[string]engine.CustomStrategy, error) {
	opts = opts.withDefaults()
	p, list, err := load(path, opts, bindStrategies, func(a, b []jsStrategy) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if a[i].name != b[i].name {
				return false
			}
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	log := opts.Logger.With("file", path)
	warn := newWarner(log)
	out := make(map[string]engine.CustomStrategy, len(list))
	for i, s := range list {
		switch {
		case out[s.name] != nil:
			log.Warn("custom strategy defined twice; the first one is used", "strategy", s.name)
		case builtinStrategies[s.name]:
			log.Warn("custom strategy has the name of a built-in strategy and is never used", "strategy", s.name)
		default:
			out[s.name] = &strategy{name: s.name, idx: i, pool: p, warn: warn}
		}
	}
	return out, nil
}

// bindStrategies checks the shape of a strategies file's exports.
func bindStrategies(_ *goja.Runtime, exports goja.Value) ([]jsStrategy, error) {
	arr, err := exportedArray(exports, "strategies")
	if err != nil {
		return nil, err
	}
	n := int(arr.Get("length").ToInteger())
	out := make([]jsStrategy, n)
	for i := range n {
		el, ok := arr.Get(fmt.Sprint(i)).(*goja.Object)
		if !ok {
			return nil, fmt.Errorf("strategy %d is not an object", i)
		}
		name, ok := exportOf(el.Get("name")).(string)
		if !ok || name == "" {
			return nil, fmt.Errorf("strategy %d: name must be a non-empty string", i)
		}
		fn, ok := goja.AssertFunction(el.Get("isEnabled"))
		if !ok {
			return nil, fmt.Errorf("strategy %d (%q): isEnabled is not a function", i, name)
		}
		out[i] = jsStrategy{name: name, this: el, fn: fn}
	}
	return out, nil
}

// exportedArray returns the module's exported array: module.exports itself,
// or its key or default property, which covers transpiled ES modules.
func exportedArray(exports goja.Value, key string) (*goja.Object, error) {
	o, ok := exports.(*goja.Object)
	if ok && o.ClassName() != "Array" {
		for _, k := range []string{key, "default"} {
			if v, ok := o.Get(k).(*goja.Object); ok && v.ClassName() == "Array" {
				return v, nil
			}
		}
	}
	if !ok || o.ClassName() != "Array" {
		return nil, fmt.Errorf("module.exports must be an array of %s, got %s", key, describe(exports))
	}
	return o, nil
}

// describe names a value's type for error messages, like typeof but with
// the class of objects ("Object", "Function", "Promise").
func describe(v goja.Value) string {
	switch {
	case v == nil || goja.IsUndefined(v):
		return "undefined"
	case goja.IsNull(v):
		return "null"
	}
	if o, ok := v.(*goja.Object); ok {
		return o.ClassName()
	}
	switch v.ExportType().Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int64, reflect.Float64:
		return "number"
	}
	return v.ExportType().String()
}

// strategy is one named strategy of a loaded file; any worker of the pool
// can run it, as each has loaded the same file.
type strategy struct {
	name string
	idx  int
	pool *pool[[]jsStrategy]
	warn *warner
}

// IsEnabled calls the strategy's isEnabled with copies of parameters and
// ctx, so the script can neither see nor change the caller's maps.
func (s *strategy) IsEnabled(parameters map[string]string, ctx *engine.Context) bool {
	var enabled bool
	err := s.pool.do(func(w *worker[[]jsStrategy]) error {
		js := w.val[s.idx]
		res, err := js.fn(js.this, stringObject(w.vm, parameters), contextObject(w, ctx))
		if err == nil {
			enabled = res.ToBoolean()
		}
		return err
	})
	if err != nil {
		s.warn.warn(s.name, "custom strategy failed; it evaluates false", "strategy", s.name, "error", err)
		return false
	}
	return enabled
}

// stringObject copies m into a fresh JS object.
func stringObject(vm *goja.Runtime, m map[string]string) *goja.Object {
	o := vm.NewObject()
	for k, v := range m {
		if k == "__proto__" {
			// Set would change the prototype; Node's objects (from JSON.parse
			// or spread) have it as plain data. Not used for every key since
			// DefineDataProperty allocates more (15 vs 11 allocs for 4 keys).
			o.DefineDataProperty(k, vm.ToValue(v), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE)
			continue
		}
		o.Set(k, v)
	}
	return o
}

// contextObject builds the Node SDK's context shape. Empty fields stay
// undefined, as the Node proxy leaves them; properties is always an object
// because scripts commonly read context.properties.x without a check.
func contextObject[T any](w *worker[T], ctx *engine.Context) *goja.Object {
	if ctx == nil {
		ctx = &engine.Context{}
	}
	o := w.vm.NewObject()
	for _, f := range [...]struct{ k, v string }{
		{"userId", ctx.UserID}, {"sessionId", ctx.SessionID},
		{"remoteAddress", ctx.RemoteAddress}, {"environment", ctx.Environment},
		{"appName", ctx.AppName},
	} {
		if f.v != "" {
			o.Set(f.k, f.v)
		}
	}
	if !ctx.CurrentTime.IsZero() {
		if d, err := w.vm.New(w.date, w.vm.ToValue(ctx.CurrentTime.UnixMilli())); err == nil {
			o.Set("currentTime", d)
		}
	}
	o.Set("properties", stringObject(w.vm, ctx.Properties))
	return o
}

// exportOf is Value.Export that accepts the nil Object.Get returns for a
// missing property.
func exportOf(v goja.Value) any {
	if v == nil {
		return nil
	}
	return v.Export()
}
