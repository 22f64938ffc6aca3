package proxy

import (
	"net/http"
	"strings"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/engine"
)

// Answers evaluates frontend requests for one configuration and writes the
// toggles answer: evaluation from the snapshot, hand-written JSON with
// pre-encoded variant payloads, and the per-context answer cache. The proxy
// keeps one per configuration; the server's frontend API uses it too, so
// both give the same bytes for the same context.
type Answers struct {
	snap     *engine.Snapshot
	payloads payloadCache
	cache    *answerCache
}

// NewAnswers prepares answers for snap, compiled from payload, with an
// answer cache of DefaultAnswerCacheBytes.
func NewAnswers(snap *engine.Snapshot, payload *clientapi.Features) *Answers {
	return NewAnswersCached(snap, payload, DefaultAnswerCacheBytes)
}

// NewAnswersCached is NewAnswers with an answer cache bounded to
// cacheBytes (0 keeps no answers). Kept answers expire by the snapshot's
// clock (engine.Options.Now).
func NewAnswersCached(snap *engine.Snapshot, payload *clientapi.Features, cacheBytes int64) *Answers {
	return &Answers{snap: snap, payloads: newPayloadCache(payload), cache: newAnswerCache(cacheBytes, snap.Now)}
}

// Write evaluates the named flags (when names is not empty), every flag (all) or
// every enabled flag, and writes the answer with a weak ETag (304 when a GET
// already holds it). Whole-context answers are served from and kept in the
// cache when cacheable and deterministic, for as long as the clock allows.
func (a *Answers) Write(w http.ResponseWriter, r *http.Request, ctx *engine.Context, names []string, all, cacheable bool) {
	a.write(w, r, ctx, names, all, cacheable, nil)
}

// write is Write; count, when set, sees the results of a toggles list.
func (a *Answers) write(w http.ResponseWriter, r *http.Request, ctx *engine.Context, names []string, all, cacheable bool, count func([]engine.Result)) {
	var key string
	if len(names) == 0 && cacheable && a.cache.maxBytes > 0 {
		key = answerKey(ctx, all)
		if c, ok := a.cache.get(key); ok {
			writeJSONTagged(w, r, c.body, c.etag, true)
			return
		}
	}
	rp := getResults()
	results := *rp
	volatile := false
	var window engine.Window
	switch {
	case len(names) > 0:
		for _, name := range names {
			results = append(results, a.snap.Evaluate(name, ctx))
		}
		if count != nil {
			count(results)
		}
	case all:
		results = a.snap.EvaluateAll(ctx, results)
		volatile, window = stability(results)
	default:
		results, volatile, window = a.snap.EvaluateEnabled(ctx, results)
	}
	bp := getBuf()
	*bp = appendToggles((*bp)[:0], results, a.payloads)
	etag := weakETag(*bp)
	if key != "" && !volatile {
		a.cache.put(key, *bp, etag, window)
	}
	*rp = results
	putResults(rp)
	writeJSONTagged(w, r, *bp, etag, true)
	putBuf(bp)
}

// ContextFromQuery reads an evaluation context from a raw query string the
// way the proxy's GET /proxy does: the known fields by name,
// properties[name]=value, and any other parameter as a property.
func ContextFromQuery(rawQuery string) engine.Context { return contextFromQuery(rawQuery) }

// LookupBody is the JSON body of POST /proxy and of the server's POST
// /api/frontend: {"context": {...}, "toggles": [...]}. Decode it with
// encoding/json, then call Parse. Both APIs read bodies through it, so the
// same body gives the same context on either: unknown top-level context
// members become properties, numbers and booleans are taken as written,
// and empty known fields are dropped.
type LookupBody struct {
	lookupRequest
}

// FieldError is a body of the wrong shape: Path names the member
// ("context.userId"), Message says what it must be.
type FieldError struct {
	Path, Message string
}

func (e *FieldError) Error() string { return e.Path + ": " + e.Message }

// Parse returns the evaluation context and the toggles list (nil when
// absent, null or empty, which all mean "every enabled flag").
func (b *LookupBody) Parse() (engine.Context, []string, *FieldError) {
	ctx, toggles, rerr := b.parse()
	if rerr != nil {
		fe := &FieldError{Path: "body", Message: rerr.msg}
		if len(rerr.validation) > 0 {
			v := rerr.validation[0]
			fe.Path, fe.Message = strings.TrimPrefix(v.DataPath, ".body."), v.Message
		}
		return engine.Context{}, nil, fe
	}
	return ctx, toggles, nil
}
