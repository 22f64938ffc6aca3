package proxy

import (
	"math/rand/v2"
	"net/http"
	"strconv"

	"github.com/signalbox/signalbox/engine"
)

// finishContext fills in what the caller left out, then runs the
// enrichers, then pins a fixed environment (callers and enrichers cannot
// override it). randomSession gives a context without sessionId a random
// one, as the reference does when evaluating every flag, so that
// sessionId-sticky rollouts vary per request rather than all land in one
// bucket. It reports whether it made the sessionId up: such an answer is
// not worth caching, as no later request will carry the same context.
func (p *Proxy) finishContext(ctx *engine.Context, r *http.Request, randomSession bool) (madeUp bool) {
	if ctx.RemoteAddress == "" {
		ctx.RemoteAddress = p.cfg.TrustProxy.ClientIP(r)
	}
	if ctx.AppName == "" {
		ctx.AppName = p.cfg.ServiceAppName
	}
	if ctx.Environment == "" {
		ctx.Environment = "default"
	}
	if randomSession && ctx.SessionID == "" {
		ctx.SessionID = randomSessionID()
		madeUp = true
	}
	for _, enrich := range p.cfg.Enrichers {
		// A copy for the enricher, which the compiler must assume keeps
		// it: ctx itself then stays on the caller's stack.
		c := *ctx
		enrich(&c)
		*ctx = c
	}
	if p.cfg.Environment != "" {
		ctx.Environment = p.cfg.Environment
	}
	return madeUp
}

// randomSessionID is a decimal fraction like JavaScript's
// String(Math.random()), which the reference uses.
func randomSessionID() string {
	var tmp [24]byte
	b := append(tmp[:0], "0."...)
	b = strconv.AppendUint(b, rand.Uint64N(1e16), 10)
	return string(b)
}
