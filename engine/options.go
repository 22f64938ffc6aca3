package engine

import (
	"math/rand/v2"
	"os"
	"strings"
	"time"
)

// CustomStrategy decides a strategy the engine does not know by name. The
// engine checks the strategy's constraints and segments first, so an
// implementation only sees contexts that passed them. It must be safe for
// concurrent use and must not keep ctx.
type CustomStrategy interface {
	IsEnabled(parameters map[string]string, ctx *Context) bool
}

// CustomStrategyFunc adapts a function to CustomStrategy.
type CustomStrategyFunc func(parameters map[string]string, ctx *Context) bool

// IsEnabled calls f.
func (f CustomStrategyFunc) IsEnabled(p map[string]string, ctx *Context) bool { return f(p, ctx) }

// Options are the injected parts of evaluation. The zero value is usable.
type Options struct {
	// CustomStrategies evaluate strategies that are not built in, by name.
	// Strategies that are neither built in nor registered evaluate false.
	CustomStrategies map[string]CustomStrategy
	// Rand returns a uniformly random int in [0, n). It drives random
	// stickiness and gradualRolloutRandom. Defaults to math/rand/v2.
	Rand func(n int) int
	// Now is the clock for DATE constraints when the context has no
	// currentTime. Defaults to time.Now.
	Now func() time.Time
	// Hostname is compared by the applicationHostname strategy. Defaults to
	// $HOSTNAME, then the OS host name.
	Hostname string
	// DropSource makes the snapshot keep no reference to the payload it was
	// compiled from, so that the decoded payload (megabytes at thousands of
	// flags) can be freed. Evaluation is the same; Explain then gives the
	// same verdicts without the definitions (Feature and each strategy's
	// definition are nil). For processes that never explain, like the proxy.
	DropSource bool
}

// env is the resolved Options a snapshot evaluates with.
type env struct {
	custom   map[string]CustomStrategy
	randIntN func(n int) int
	now      func() time.Time
	hostname string
}

func newEnv(o Options) *env {
	e := &env{custom: o.CustomStrategies, randIntN: o.Rand, now: o.Now, hostname: o.Hostname}
	if e.randIntN == nil {
		e.randIntN = rand.IntN
	}
	if e.now == nil {
		e.now = time.Now
	}
	if e.hostname == "" {
		e.hostname = os.Getenv("HOSTNAME")
	}
	if e.hostname == "" {
		e.hostname, _ = os.Hostname()
	}
	e.hostname = strings.ToLower(e.hostname)
	return e
}

// run is the state of one evaluation: the snapshot's environment, and
// what the answer depended on besides the snapshot and the context.
type run struct {
	env   *env
	slots []slotValue // one per snapshot slot, resolved on first use
	// scratch says slots has one entry, re-resolved at every use.
	scratch bool
	// evaluated is, when all flags are evaluated in payload order, how
	// many came before the current one; all then holds the results of
	// those that other flags depend on and the constraint verdicts met so
	// far (nil in a run for one flag). One pointer keeps the run small:
	// every single evaluation starts one.
	evaluated int
	all       *runResults
	// volatile is set when a random draw or a custom strategy took part:
	// the same context may then get another answer at any moment.
	volatile bool
	// perUser is set when the context's userId, sessionId or remoteAddress
	// was read (see Result.PerUser).
	perUser bool
	// window narrows with every DATE constraint that read the clock.
	window Window
	// clock is the run's one reading of env.now: every DATE constraint of
	// an evaluation compares against the same instant (a consistent answer),
	// and at thousands of flags reading the clock for each would cost more
	// than the comparisons.
	clock    time.Time
	clockSet bool
}

func (r *run) randomIn(n uint32) uint32 {
	r.volatile = true
	return r.env.randomIn(n)
}

// now is the instant DATE constraints without a context time compare
// against: the clock read on first use and kept for the rest of the run.
func (r *run) now() time.Time {
	if !r.clockSet {
		r.clock, r.clockSet = r.env.now(), true
	}
	return r.clock
}

// randomIn returns a uniformly random value in 1..n.
func (e *env) randomIn(n uint32) uint32 {
	if n == 0 {
		return 0
	}
	return uint32(e.randIntN(int(n))) + 1
}
