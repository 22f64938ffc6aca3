// Package answer writes the frontend API's evaluation answers: the toggles
// document for one context, evaluated from an immutable engine snapshot,
// encoded by appending bytes, and kept per context in a bounded cache.
// The evaluation proxy and the server's frontend API both answer through
// it, so the same configuration and context give the same bytes on
// either. It also reads contexts the way both APIs accept them: from a
// query string or from a lookup body.
package answer

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/signalbox/signalbox/engine"
)

// Writer evaluates frontend requests for one configuration and writes the
// toggles answer: evaluation from the snapshot, hand-written JSON from
// pieces encoded once per configuration, and the per-context answer
// cache. Keep one per configuration; it is safe for concurrent use.
type Writer struct {
	snap   *engine.Snapshot
	pieces *pieces
	cache  *answerCache
}

// New prepares answers for snap, with an answer cache bounded to
// cacheBytes (0 keeps no answers). Kept answers expire by the snapshot's
// clock (engine.Options.Now).
func New(snap *engine.Snapshot, cacheBytes int64) *Writer {
	return &Writer{snap: snap, pieces: newPieces(snap), cache: newAnswerCache(cacheBytes, snap.Now)}
}

// CachedAnswers is how many answers the cache holds.
func (a *Writer) CachedAnswers() int64 { return a.cache.len() }

// Write evaluates the named flags (when names is not empty), every flag (all) or
// every enabled flag, and writes the answer with a weak ETag (304 when a GET
// already holds it). Whole-context answers are served from and kept in the
// cache when cacheable and deterministic, for as long as the clock allows.
func (a *Writer) Write(w http.ResponseWriter, r *http.Request, ctx *engine.Context, names []string, all, cacheable bool) {
	a.WriteCounting(w, r, ctx, names, all, cacheable, nil)
}

// WriteCounting is Write; count, when set, sees the results of a toggles
// list (the flags a client asked for by name, which usage metrics count).
func (a *Writer) WriteCounting(w http.ResponseWriter, r *http.Request, ctx *engine.Context, names []string, all, cacheable bool, count func([]engine.Result)) {
	var key string
	if len(names) == 0 && cacheable && a.cache.maxBytes > 0 {
		key = answerKey(ctx, all)
		if c, ok := a.cache.get(key); ok {
			writeAnswer(w, r, c.body, c.header, true)
			return
		}
	}
	bp := getBuf()
	var etag string
	if len(names) > 0 {
		rp := getResults()
		results := *rp
		for _, name := range names {
			results = append(results, a.snap.Evaluate(name, ctx))
		}
		if count != nil {
			count(results)
		}
		*bp, etag = appendToggles((*bp)[:0], results, a.pieces, false)
		*rp = results
		putResults(rp)
	} else {
		// Every flag, listed or not, decides whether the answer may be
		// kept: a flag left out by a random draw or a date counts too.
		enc := newTogglesEncoder((*bp)[:0], a.pieces, !all)
		a.encodeWhole(&enc, ctx, key, all)
		*bp, etag = enc.finish()
		if key != "" && !enc.volatile {
			a.cache.put(key, *bp, etag, enc.window)
		}
	}
	WriteTagged(w, r, *bp, etag, true)
	putBuf(bp)
}

// WriteToggle writes one evaluated flag as a toggle document, never 304:
// the single-flag path answers each request afresh.
func (a *Writer) WriteToggle(w http.ResponseWriter, r *http.Request, res *engine.Result) {
	bp := getBuf()
	b, _, ok := a.pieces.appendToggle((*bp)[:0], res)
	if !ok {
		b = appendToggle(b, res)
	}
	*bp = b
	WriteJSON(w, r, *bp, false)
	putBuf(bp)
}

var (
	hdrJSON         = []string{"application/json; charset=utf-8"}
	hdrCacheControl = []string{"public, max-age=2"}
)

// WriteJSON writes a 200 JSON answer with a weak ETag, answering 304 when
// a GET or HEAD already holds it and cacheable (Express's freshness check
// ignores If-None-Match on other methods, and so do we).
func WriteJSON(w http.ResponseWriter, r *http.Request, body []byte, cacheable bool) {
	WriteTagged(w, r, body, weakETag(body), cacheable)
}

// ETag is the weak entity tag WriteJSON gives body.
func ETag(body []byte) string { return weakETag(body) }

// WriteTagged is WriteJSON with the body's ETag already computed.
func WriteTagged(w http.ResponseWriter, r *http.Request, body []byte, etag string, cacheable bool) {
	writeAnswer(w, r, body, newAnswerHeader(etag, len(body)), cacheable)
}

// answerHeader is the values of an answer's ETag and Content-Length
// headers; an answer kept in the cache keeps them too.
type answerHeader struct {
	etag, length []string
}

func newAnswerHeader(etag string, n int) answerHeader {
	return answerHeader{etag: []string{etag}, length: []string{strconv.Itoa(n)}}
}

// writeAnswer is WriteTagged with the header values made.
func writeAnswer(w http.ResponseWriter, r *http.Request, body []byte, ah answerHeader, cacheable bool) {
	h := w.Header()
	h["Etag"] = ah.etag
	if cacheable {
		h["Cache-Control"] = hdrCacheControl
	}
	h["Vary"] = append(h["Vary"], "Accept-Encoding")
	if (r.Method == http.MethodGet || r.Method == http.MethodHead) && ETagMatches(r.Header["If-None-Match"], ah.etag[0]) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h["Content-Type"] = hdrJSON
	h["Content-Length"] = ah.length
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// ETagMatches applies If-None-Match with the weak comparison: "*" or any
// listed tag equal to etag once W/ is ignored.
func ETagMatches(values []string, etag string) bool {
	want := strings.TrimPrefix(etag, "W/")
	for _, v := range values {
		for tag := range strings.SplitSeq(v, ",") {
			tag = strings.TrimSpace(tag)
			if tag == "*" || strings.TrimPrefix(tag, "W/") == want {
				return true
			}
		}
	}
	return false
}

// encodeWhole encodes the answer of every flag for ctx into enc: from the
// template of ctx's users when one is kept (see template), else by
// evaluating every flag. The template is recorded when the users' context
// was seen before from another user (key, the answer's cache key, not
// seen): the answer of a user seen before is kept itself, and a template
// helps only other users. One request at a time records a context's
// template: the first users of a context often come together (a release,
// a burst of page loads), and each recording holds a copy of the answer
// and the template's text, over a megabyte at thousands of flags.
func (a *Writer) encodeWhole(enc *togglesEncoder, ctx *engine.Context, key string, all bool) {
	if key == "" {
		a.snap.EvaluateEach(ctx, enc.add)
		return
	}
	tkey := templateKey(ctx, all)
	if c, ok := a.cache.get(tkey); ok && c.tmpl != nil {
		c.tmpl.replay(enc, ctx)
		return
	}
	if !a.cache.hasRoom() || !a.cache.admit(tkey) || a.cache.seenBefore(key) || !a.cache.startBuilding(tkey) {
		a.snap.EvaluateEach(ctx, enc.add)
		return
	}
	defer a.cache.doneBuilding(tkey)
	enc.rec = &templateBuilder{}
	a.snap.EvaluateEach(ctx, enc.add)
	t := enc.rec.template(a.snap, ctx, a.pieces, !all)
	enc.rec = nil
	if t != nil {
		a.cache.putTemplate(tkey, t)
	}
}
