package proxy

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/signalbox/signalbox/engine"
)

// Bounds of the answer cache of one configuration. Past them answers are
// still computed, just not kept.
const (
	answerCacheMaxBytes   = 32 << 20
	answerCacheMaxEntries = 20000
)

// answerCache keeps the encoded answers of GET and POST /proxy (without a
// toggles list) per evaluation context, for one configuration: a browser
// polls with the same context again and again, and at thousands of flags
// evaluating and encoding costs far more than a lookup. An answer is kept
// only when no flag in it was volatile (engine.Result.Volatile: a random
// draw, the clock or a custom strategy), so a cached answer is exactly what
// evaluating again would give. It lives in the state, so a new
// configuration starts with an empty cache; reads take no lock.
type answerCache struct {
	m       sync.Map // string → *cachedAnswer
	bytes   atomic.Int64
	entries atomic.Int64
}

type cachedAnswer struct {
	body []byte
	etag string
}

func (c *answerCache) get(key string) (*cachedAnswer, bool) {
	v, ok := c.m.Load(key)
	if !ok {
		return nil, false
	}
	return v.(*cachedAnswer), true
}

// put keeps a copy of body under key while the cache has room.
func (c *answerCache) put(key string, body []byte, etag string) {
	size := int64(len(body) + len(key))
	if c.entries.Load() >= answerCacheMaxEntries || c.bytes.Load()+size > answerCacheMaxBytes {
		return
	}
	if _, loaded := c.m.LoadOrStore(key, &cachedAnswer{body: slices.Clone(body), etag: etag}); !loaded {
		c.entries.Add(1)
		c.bytes.Add(size)
	}
}

// anyVolatile reports whether an answer may differ for the same context.
func anyVolatile(results []engine.Result) bool {
	for i := range results {
		if results[i].Volatile {
			return true
		}
	}
	return false
}

// answerKey is a canonical encoding of what an answer depends on besides
// the configuration: which flags are listed (all or enabled only) and every
// context field, with properties in name order.
func answerKey(ctx *engine.Context, all bool) string {
	var stack [512]byte
	b := stack[:0]
	if all {
		b = append(b, 'A')
	} else {
		b = append(b, 'E')
	}
	for _, f := range [...]string{ctx.UserID, ctx.SessionID, ctx.RemoteAddress, ctx.Environment, ctx.AppName} {
		b = append(b, 0)
		b = append(b, f...)
	}
	b = append(b, 0)
	if !ctx.CurrentTime.IsZero() {
		b = ctx.CurrentTime.AppendFormat(b, "2006-01-02T15:04:05.999999999Z07:00")
	}
	if len(ctx.Properties) > 0 {
		var nameStack [16]string
		names := nameStack[:0]
		for k := range ctx.Properties {
			names = append(names, k)
		}
		slices.Sort(names)
		for _, k := range names {
			b = append(b, 1)
			b = append(b, k...)
			b = append(b, 0)
			b = append(b, ctx.Properties[k]...)
		}
	}
	return string(b)
}
