package jsstrategy

import (
	"fmt"
	"time"

	"github.com/dop251/goja"
	"github.com/signalbox/signalbox/engine"
)

// LoadEnrichers loads a context enrichers file (EXP_CUSTOM_ENRICHERS_FILE)
// and returns a function that applies its enrichers, in order, to a context.
//
// The file must export an array (or an object whose enrichers or default
// property is an array) of functions. Each gets the context in the Node SDK
// shape and returns the context, a new one, or a promise of either; one
// that returns nothing is taken to have mutated its argument. The final
// context's fields and properties replace ctx's. As in the Node SDK, where a
// context field is looked up at the top level before properties, other
// top-level primitive fields an enricher sets become properties.
//
// The function is safe for concurrent use. If an enricher throws, rejects,
// or the whole run exceeds opts.Timeout, ctx is left unchanged and a
// warning is logged, at most once a minute.
func LoadEnrichers(path string, opts Options) (func(*engine.Context), error) {
	opts = opts.withDefaults()
	p, _, err := load(path, opts, bindEnrichers, func(a, b []goja.Callable) bool { return len(a) == len(b) })
	if err != nil {
		return nil, err
	}
	warn := newWarner(opts.Logger.With("file", path))
	return func(ctx *engine.Context) {
		if ctx == nil {
			return
		}
		var next engine.Context
		err := p.do(func(w *worker[[]goja.Callable]) (err error) {
			next, err = enrich(w, ctx)
			return err
		})
		if err != nil {
			warn.warn("enrichers", "context enrichers failed; the context is left unchanged", "error", err)
			return
		}
		*ctx = next
	}, nil
}

// bindEnrichers checks the shape of an enrichers file's exports.
func bindEnrichers(_ *goja.Runtime, exports goja.Value) ([]goja.Callable, error) {
	arr, err := exportedArray(exports, "enrichers")
	if err != nil {
		return nil, err
	}
	n := int(arr.Get("length").ToInteger())
	out := make([]goja.Callable, n)
	for i := range n {
		v := arr.Get(fmt.Sprint(i))
		fn, ok := goja.AssertFunction(v)
		if !ok {
			return nil, fmt.Errorf("enricher %d is %s, not a function", i, describe(v))
		}
		out[i] = fn
	}
	return out, nil
}

// enrich runs every enricher on a JS copy of ctx and converts the result.
func enrich(w *worker[[]goja.Callable], ctx *engine.Context) (engine.Context, error) {
	cur := contextObject(w, ctx)
	for i, fn := range w.val {
		res, err := fn(goja.Undefined(), cur)
		if err == nil {
			res, err = settle(res)
		}
		if err != nil {
			return engine.Context{}, fmt.Errorf("enricher %d: %w", i, err)
		}
		if o, ok := res.(*goja.Object); ok {
			cur = o
		} else if res != nil && !goja.IsUndefined(res) && !goja.IsNull(res) {
			return engine.Context{}, fmt.Errorf("enricher %d returned %s, not a context object", i, describe(res))
		}
	}
	return fromObject(w, cur, ctx)
}

// settle unwraps a promise. The runtime has already run its job queue when
// the call returned, so a promise still pending waits on something that
// never comes here (timers and I/O do not exist).
func settle(v goja.Value) (goja.Value, error) {
	o, ok := v.(*goja.Object)
	if !ok {
		return v, nil
	}
	p, ok := o.Export().(*goja.Promise)
	if !ok {
		return v, nil
	}
	switch p.State() {
	case goja.PromiseStateFulfilled:
		return p.Result(), nil
	case goja.PromiseStateRejected:
		return nil, fmt.Errorf("promise rejected: %s", p.Result())
	}
	return nil, fmt.Errorf("returned a promise that never settles (timers and I/O are not available)")
}

// contextFields are the keys of the Node context that are not properties.
var contextFields = map[string]bool{
	"userId": true, "sessionId": true, "remoteAddress": true, "environment": true,
	"appName": true, "currentTime": true, "properties": true,
}

// fromObject converts an enriched JS context back. orig supplies the
// sub-millisecond part of currentTime, which a JS Date cannot hold.
func fromObject[T any](w *worker[T], o *goja.Object, orig *engine.Context) (engine.Context, error) {
	c := engine.Context{
		UserID:        str(o.Get("userId")),
		SessionID:     str(o.Get("sessionId")),
		RemoteAddress: str(o.Get("remoteAddress")),
		Environment:   str(o.Get("environment")),
		AppName:       str(o.Get("appName")),
	}
	t, err := toTime(w, o.Get("currentTime"))
	if err != nil {
		return c, err
	}
	if orig != nil && !t.IsZero() && t.UnixMilli() == orig.CurrentTime.UnixMilli() {
		t = orig.CurrentTime
	}
	c.CurrentTime = t
	props := map[string]string{}
	if po, ok := o.Get("properties").(*goja.Object); ok {
		for _, k := range po.Keys() {
			if s, ok := primitive(po.Get(k)); ok {
				props[k] = s
			}
		}
	}
	for _, k := range o.Keys() {
		v := o.Get(k)
		// Only truthy values: Node falls back to properties on falsy ones.
		if s, ok := primitive(v); ok && !contextFields[k] && v.ToBoolean() {
			props[k] = s
		}
	}
	if len(props) > 0 {
		c.Properties = props
	}
	return c, nil
}

// str converts a context field; undefined and null mean absent.
func str(v goja.Value) string {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return ""
	}
	return v.String()
}

// primitive converts a property value; objects and absent values are
// dropped, since properties are strings.
func primitive(v goja.Value) (string, bool) {
	if _, isObj := v.(*goja.Object); isObj || v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return "", false
	}
	return v.String(), true
}

// toTime reads currentTime: a Date, or anything new Date() accepts (as the
// Node SDK does with an ISO string or epoch milliseconds).
func toTime[T any](w *worker[T], v goja.Value) (time.Time, error) {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return time.Time{}, nil
	}
	d, ok := v.(*goja.Object)
	if !ok || d.ClassName() != "Date" {
		var err error
		if d, err = w.vm.New(w.date, v); err != nil {
			return time.Time{}, err
		}
	}
	t, ok := d.Export().(time.Time)
	if !ok {
		return time.Time{}, fmt.Errorf("currentTime %q is not a valid date", v.String())
	}
	return t, nil
}
