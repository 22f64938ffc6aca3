package jsstrategy

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/dop251/goja"
)

// errInterrupted is the value runtimes are interrupted with; run adds the
// timeout to the message.
var errInterrupted = errors.New("interrupted")

// worker is one runtime that has evaluated the file. One goroutine at a
// time uses it: the pool hands it out exclusively.
type worker[T any] struct {
	vm   *goja.Runtime
	date goja.Value // the Date constructor, looked up once
	val  T          // the file's exports, ready to call

	// timer interrupts vm when a call overruns; fired tells the caller the
	// interrupt happened, so it can clear the flag without racing with it.
	timer *time.Timer
	fired chan struct{}
}

func newWorker[T any](vm *goja.Runtime) *worker[T] {
	w := &worker[T]{vm: vm, date: vm.Get("Date"), fired: make(chan struct{}, 1)}
	w.timer = time.AfterFunc(time.Hour, func() {
		vm.Interrupt(errInterrupted)
		w.fired <- struct{}{}
	})
	w.timer.Stop()
	return w
}

// run calls f with the runtime interrupted after d. keep is false when the
// runtime should be dropped: f was cut off mid-way, which can leave the
// module's own state half-updated, or it panicked.
func (w *worker[T]) run(d time.Duration, f func() error) (keep bool, err error) {
	w.timer.Reset(d)
	defer func() {
		if !w.timer.Stop() {
			// The interrupt may have landed after f returned; clear it, or the
			// next call would stop at its first instruction.
			<-w.fired
			w.vm.ClearInterrupt()
		}
	}()
	defer func() {
		if r := recover(); r != nil {
			keep, err = false, fmt.Errorf("panic in JavaScript call: %v", r)
		}
	}()
	err = f()
	var intr *goja.InterruptedError
	if errors.As(err, &intr) {
		return false, fmt.Errorf("timed out after %v: %w", d, err)
	}
	return true, err
}

// pool lends workers. A nil in free is a slot whose worker was dropped; the
// next borrower loads a new one, so a dropped runtime costs one reload
// instead of shrinking the pool.
type pool[T any] struct {
	free    chan *worker[T]
	open    func() (*worker[T], error)
	timeout time.Duration
}

// do runs f on a free worker under the call timeout, waiting for one if all
// are busy.
func (p *pool[T]) do(f func(w *worker[T]) error) error {
	w := <-p.free
	if w == nil {
		var err error
		if w, err = p.open(); err != nil {
			p.free <- nil
			return err
		}
	}
	keep, err := w.run(p.timeout, func() error { return f(w) })
	if !keep {
		w = nil
	}
	p.free <- w
	return err
}

// load evaluates the file at path in opts.PoolSize runtimes and converts
// its exports with bind. same reports whether a later runtime's exports
// match the first's, since callers address them by index.
func load[T any](path string, opts Options, bind func(*goja.Runtime, goja.Value) (T, error), same func(a, b T) bool) (*pool[T], T, error) {
	var zero T
	file, err := filepath.Abs(path)
	if err == nil {
		// Resolve symlinks as the require resolver does, so that the file's
		// directory matches the paths it sees.
		file, err = filepath.EvalSymlinks(file)
	}
	if err != nil {
		return nil, zero, fmt.Errorf("jsstrategy: %s: %w", path, err)
	}
	if fi, err := os.Stat(file); err != nil || fi.IsDir() {
		return nil, zero, fmt.Errorf("jsstrategy: %s: not a readable file", path)
	}
	reg := newRegistry(filepath.Dir(file))
	open := func() (*worker[T], error) {
		vm, req := newRuntime(reg, path, opts.Logger)
		w := newWorker[T](vm)
		_, err := w.run(loadTimeout, func() error {
			exports, err := req.Require(file)
			if err != nil {
				return err
			}
			w.val, err = bind(vm, exports)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("jsstrategy: %s: %w", path, err)
		}
		return w, nil
	}
	first, err := open()
	if err != nil {
		return nil, zero, err
	}
	p := &pool[T]{free: make(chan *worker[T], opts.PoolSize), timeout: opts.Timeout}
	p.open = func() (*worker[T], error) {
		w, err := open()
		if err == nil && !same(first.val, w.val) {
			err = fmt.Errorf("jsstrategy: %s: exports differ between evaluations of the file", path)
		}
		return w, err
	}
	// Load every runtime now: it costs startup time, not request latency,
	// and a file that loads only sometimes fails here rather than later.
	p.free <- first
	for range opts.PoolSize - 1 {
		w, err := p.open()
		if err != nil {
			return nil, zero, err
		}
		p.free <- w
	}
	return p, first.val, nil
}
