package jsstrategy

import (
	"log/slog"
	"runtime"
	"sync"
	"time"
)

// Options tune how a file is run. The zero value is usable.
type Options struct {
	// Logger receives warnings about failing calls and the file's console
	// output. Defaults to slog.Default().
	Logger *slog.Logger
	// Timeout bounds one call into JavaScript: one isEnabled, or one run of
	// all enrichers for a request. It is wall-clock time, so a starved
	// process can hit it too. Defaults to 100ms.
	Timeout time.Duration
	// PoolSize is the number of runtimes, each with its own copy of the
	// file's state, so it is also the number of calls that can run at once.
	// Defaults to runtime.GOMAXPROCS(0).
	PoolSize int
}

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Timeout <= 0 {
		o.Timeout = 100 * time.Millisecond
	}
	if o.PoolSize <= 0 {
		o.PoolSize = runtime.GOMAXPROCS(0)
	}
	return o
}

// loadTimeout bounds the evaluation of a file's top level, which may
// legitimately take longer than one call but must not hang startup. A
// variable so that tests can shorten it.
var loadTimeout = 5 * time.Second

// warnEvery is the minimum interval between two warnings for the same key:
// a broken strategy on a hot flag would otherwise log on every request.
const warnEvery = time.Minute

// warner logs at most one warning per key per warnEvery and reports how
// many were dropped in between.
type warner struct {
	log *slog.Logger

	mu      sync.Mutex
	last    map[string]time.Time
	dropped map[string]int
}

func newWarner(log *slog.Logger) *warner {
	return &warner{log: log, last: map[string]time.Time{}, dropped: map[string]int{}}
}

// warn logs msg with args unless key was logged less than warnEvery ago.
func (w *warner) warn(key, msg string, args ...any) {
	now := time.Now()
	w.mu.Lock()
	if t, ok := w.last[key]; ok && now.Sub(t) < warnEvery {
		w.dropped[key]++
		w.mu.Unlock()
		return
	}
	n := w.dropped[key]
	w.last[key], w.dropped[key] = now, 0
	w.mu.Unlock()
	if n > 0 {
		args = append(args, "suppressed", n)
	}
	w.log.Warn(msg, args...)
}
