package answer

import (
	"encoding/binary"
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
// (the map node, the entry, its ETag and header values), counted against
// the bound.
const answerEntryOverhead = 208

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
//
// Templates (see template) are kept in the same map under keys of their
// own, and may take half of the bound.
type answerCache struct {
	maxBytes int64 // 0 disables the cache
	now      func() time.Time
	m        sync.Map // string → *cachedAnswer
	bytes    atomic.Int64
	entries  atomic.Int64 // answers, not templates
	// tmplBytes is the part of bytes that templates hold.
	tmplBytes atomic.Int64
	seed      maphash.Seed
	// seen holds hashes of recently answered keys, one per slot: a key is
	// admitted when its slot already holds its hash.
	seen [answerSeenSlots]atomic.Uint64
	// seenShared is seen for template keys, apart: a context's answer and
	// template keys sharing a slot would otherwise keep evicting each
	// other, and neither would ever be kept.
	seenShared [answerSeenSlots / 4]atomic.Uint64
	// building holds the keys of the templates being recorded.
	building sync.Map // string → struct{}
}

const answerSeenSlots = 4096

// cachedAnswer is an answer, or a template (see template) when tmpl is set.
type cachedAnswer struct {
	body []byte
	// header holds the answer's ETag and Content-Length values, made once:
	// net/http only reads them.
	header answerHeader
	tmpl   *template
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
	slot, h := c.seenSlot(key)
	if slot.Load() == h {
		return true
	}
	slot.Store(h)
	return false
}

// seenBefore is admit without remembering key.
func (c *answerCache) seenBefore(key string) bool {
	slot, h := c.seenSlot(key)
	return slot.Load() == h
}

func (c *answerCache) seenSlot(key string) (*atomic.Uint64, uint64) {
	h := maphash.String(c.seed, key)
	if isTemplateKey(key) {
		return &c.seenShared[h%uint64(len(c.seenShared))], h
	}
	return &c.seen[h%answerSeenSlots], h
}

// put keeps a copy of body under key for as long as window holds, when
// key's context was seen before and the cache has room, or when it
// replaces an answer whose window ended.
func (c *answerCache) put(key string, body []byte, etag string, window engine.Window) {
	c.keep(key, int64(len(body)+len(etag)), window, false, func() *cachedAnswer {
		return &cachedAnswer{body: slices.Clone(body), header: newAnswerHeader(etag, len(body))}
	})
}

// putTemplate keeps t under key as put keeps an answer; the key's context
// was seen before (the caller asked admit before recording t).
func (c *answerCache) putTemplate(key string, t *template) {
	c.keep(key, t.size(), t.window, true, func() *cachedAnswer { return &cachedAnswer{tmpl: t} })
}

// keep stores the entry that entry makes, of n bytes besides its key, as
// put describes; tmpl says it is a template.
func (c *answerCache) keep(key string, n int64, window engine.Window, tmpl bool, entry func() *cachedAnswer) {
	size := n + int64(len(key)) + answerEntryOverhead
	if size > c.maxBytes {
		return
	}
	if prev, ok := c.m.Load(key); ok {
		old := prev.(*cachedAnswer)
		if !c.fits(size-old.size, tmpl) {
			if c.m.CompareAndDelete(key, prev) {
				c.count(old, -1)
			}
			return
		}
		a := entry()
		a.window, a.size = window, size
		if c.m.CompareAndSwap(key, prev, a) {
			c.count(old, -1)
			c.count(a, 1)
		}
		return
	}
	if !c.fits(size, tmpl) || !c.admit(key) {
		return
	}
	a := entry()
	a.window, a.size = window, size
	if _, loaded := c.m.LoadOrStore(key, a); !loaded {
		c.count(a, 1)
	}
}

// fits reports whether the cache can grow by n bytes of answers, or of
// templates when tmpl is set. Templates get half of the bound at most, so
// that answers kept for polling users always have room too.
func (c *answerCache) fits(n int64, tmpl bool) bool {
	if c.bytes.Load()+n > c.maxBytes {
		return false
	}
	return !tmpl || c.tmplBytes.Load()+n <= c.maxBytes/2
}

// startBuilding claims the recording of key's template: false when
// another request is recording it. The claim ends with doneBuilding.
func (c *answerCache) startBuilding(key string) bool {
	_, loaded := c.building.LoadOrStore(key, struct{}{})
	return !loaded
}

func (c *answerCache) doneBuilding(key string) { c.building.Delete(key) }

// hasRoom reports whether the cache can take another template.
func (c *answerCache) hasRoom() bool { return c.fits(1, true) }

// len is the number of kept answers.
func (c *answerCache) len() int64 { return c.entries.Load() }

// count adds n entries like a (1 or -1) and their bytes.
func (c *answerCache) count(a *cachedAnswer, n int64) {
	c.bytes.Add(n * a.size)
	if a.tmpl != nil {
		c.tmplBytes.Add(n * a.size)
	} else {
		c.entries.Add(n)
	}
}

// answerKey is a canonical encoding of what an answer depends on besides
// the configuration: which flags are listed (all or enabled only) and every
// context field, with properties in name order. Every field goes with its
// length, so that no two contexts share a key: with separator bytes, a
// value holding them could pass for more fields, and a client could have
// its answer kept under another context's key.
func answerKey(ctx *engine.Context, all bool) string { return contextKey(ctx, all, true) }

// templateKey is answerKey without the fields that tell users apart: the
// key of the template (see template) users of one context share.
func templateKey(ctx *engine.Context, all bool) string { return contextKey(ctx, all, false) }

func contextKey(ctx *engine.Context, all, perUser bool) string {
	var stack [512]byte
	b := stack[:0]
	switch {
	case perUser && all:
		b = append(b, 'A')
	case perUser:
		b = append(b, 'E')
	case all:
		b = append(b, 'a')
	default:
		b = append(b, 'e')
	}
	if perUser {
		for _, f := range [...]string{ctx.UserID, ctx.SessionID, ctx.RemoteAddress} {
			b = appendKeyField(b, f)
		}
	}
	return string(appendSharedKey(b, ctx))
}

// isTemplateKey tells templateKey's keys from answerKey's.
func isTemplateKey(key string) bool { return key != "" && (key[0] == 'a' || key[0] == 'e') }

// appendSharedKey appends the fields of ctx besides userId, sessionId and
// remoteAddress, properties in name order.
func appendSharedKey(b []byte, ctx *engine.Context) []byte {
	b = appendKeyField(b, ctx.Environment)
	b = appendKeyField(b, ctx.AppName)
	var stamp []byte
	if !ctx.CurrentTime.IsZero() {
		var tmp [64]byte
		stamp = ctx.CurrentTime.AppendFormat(tmp[:0], "2006-01-02T15:04:05.999999999Z07:00")
	}
	b = appendKeyField(b, stamp)
	b = binary.AppendUvarint(b, uint64(len(ctx.Properties)))
	if len(ctx.Properties) > 0 {
		var nameStack [16]string
		names := nameStack[:0]
		for k := range ctx.Properties {
			names = append(names, k)
		}
		slices.Sort(names)
		for _, k := range names {
			b = appendKeyField(b, k)
			b = appendKeyField(b, ctx.Properties[k])
		}
	}
	return b
}

// appendKeyField appends s after its length.
func appendKeyField[S string | []byte](b []byte, s S) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}
