package answer

import (
	"hash/maphash"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/signalbox/signalbox/engine"
)

// DefaultCacheBytes is a sensible bound for the answer cache of one
// configuration: 16 MB holds a few hundred answers at 5,000 flags and
// tens of thousands at 60.
const DefaultCacheBytes = 16 << 20

// answerEntryOverhead is what one entry costs besides its key and body
// (the map node, the entry and its ETag), counted against the bound.
const answerEntryOverhead = 160

// answerCache keeps the encoded answers of GET and POST /proxy (without a
// toggles list) per evaluation context, for one configuration: a browser
// polls with the same context again and again, and at thousands of flags
// evaluating and encoding costs far more than a lookup. It lives in the
// state, so a new configuration starts with an empty cache; reads take no
// lock.
//
// Exactness: an answer is kept only when no flag in it was volatile (a
// random draw or a custom strategy, engine.Result.Volatile), and only for
// the span of clock readings in which every DATE constraint it evaluated
// gives the same verdict (engine.Window): it is served only while the
// cache's clock, the snapshot's own, reads inside that span, so a cached
// answer is exactly what evaluating again would give.
//
// Bounds: an answer is kept only the second time its context is seen, so
// a stream of one-off contexts (every user a new id) costs no copies and
// does not fill the cache; and once the kept answers reach maxBytes no
// more are added (concurrent additions may pass it by an answer each):
// those kept are served until their window ends or a new configuration
// replaces the cache. (Dropping answers to make room would, under more
// polling contexts than fit, copy answers that are never served.)
type answerCache struct {
	maxBytes int64 // 0 disables the cache
	now      func() time.Time
	m        sync.Map // string → *cachedAnswer
	bytes    atomic.Int64
	entries  atomic.Int64
	seed     maphash.Seed
	// seen holds hashes of recently answered keys, one per slot: a key is
	// admitted when its slot already holds its hash.
	seen [answerSeenSlots]atomic.Uint64
}

const answerSeenSlots = 4096

type cachedAnswer struct {
	body   []byte
	etag   string
	window engine.Window
	size   int64
}

func newAnswerCache(maxBytes int64, now func() time.Time) *answerCache {
	return &answerCache{maxBytes: max(maxBytes, 0), now: now, seed: maphash.MakeSeed()}
}

// get returns the answer kept under key if it still holds now.
func (c *answerCache) get(key string) (*cachedAnswer, bool) {
	if c.maxBytes == 0 {
		return nil, false
	}
	v, ok := c.m.Load(key)
	if !ok {
		return nil, false
	}
	a := v.(*cachedAnswer)
	if !a.window.Always() && !a.window.Holds(c.now()) {
		return nil, false // put replaces it
	}
	return a, true
}

// admit reports whether key was seen recently, and remembers it.
func (c *answerCache) admit(key string) bool {
	h := maphash.String(c.seed, key)
	slot := &c.seen[h%answerSeenSlots]
	if slot.Load() == h {
		return true
	}
	slot.Store(h)
	return false
}

// put keeps a copy of body under key for as long as window holds, when
// key's context was seen before and the cache has room, or when it
// replaces an answer whose window ended.
func (c *answerCache) put(key string, body []byte, etag string, window engine.Window) {
	size := int64(len(body)+len(key)+len(etag)) + answerEntryOverhead
	if size > c.maxBytes {
		return
	}
	if prev, ok := c.m.Load(key); ok {
		old := prev.(*cachedAnswer)
		if c.bytes.Load()+size-old.size > c.maxBytes {
			if c.m.CompareAndDelete(key, prev) {
				c.entries.Add(-1)
				c.bytes.Add(-old.size)
			}
			return
		}
		if c.m.CompareAndSwap(key, prev, &cachedAnswer{body: slices.Clone(body), etag: etag, window: window, size: size}) {
			c.bytes.Add(size - old.size)
		}
		return
	}
	if c.bytes.Load()+size > c.maxBytes || !c.admit(key) {
		return
	}
	if _, loaded := c.m.LoadOrStore(key, &cachedAnswer{body: slices.Clone(body), etag: etag, window: window, size: size}); !loaded {
		c.entries.Add(1)
		c.bytes.Add(size)
	}
}

// len is the number of kept answers.
func (c *answerCache) len() int64 { return c.entries.Load() }

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
