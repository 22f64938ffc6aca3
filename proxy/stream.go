package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"mime"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/signalbox/signalbox/clientapi"
)

// streamTiming holds the timings of streaming and of its fallback to
// polling. The defaults are those of the Unleash SDKs' streaming mode.
type streamTiming struct {
	// reconnectMin and reconnectMax bound the jittered, doubling wait
	// before a broken stream is opened again.
	reconnectMin, reconnectMax time.Duration
	// maxFails broken streams within failWindow send the proxy to
	// polling.
	maxFails   int
	failWindow time.Duration
	// retryMin and retryMax bound the wait, doubling with each fallback
	// in a row, before a proxy that fell back to polling tries streaming
	// again.
	retryMin, retryMax time.Duration
	// readTimeout ends a stream that has sent nothing, not even a
	// heartbeat, for that long.
	readTimeout time.Duration
}

var defaultStreamTiming = streamTiming{
	reconnectMin: 2 * time.Second,
	reconnectMax: 30 * time.Second,
	maxFails:     5,
	failWindow:   60 * time.Second,
	retryMin:     30 * time.Second,
	retryMax:     10 * time.Minute,
	readTimeout:  60 * time.Second,
}

// SSE event names of the streaming client API.
const (
	sseConnected = "unleash-connected"
	sseUpdated   = "unleash-updated"
	sseFetchMode = "fetch-mode"
)

var (
	// errPollingRequested: the upstream sent "fetch-mode: polling".
	errPollingRequested = errors.New("the upstream asks its clients to poll")
	// errStreamSilent: nothing arrived within the read timeout.
	errStreamSilent = errors.New("the upstream sent nothing, not even a heartbeat, within the timeout")
	// errStreamEnded: the upstream closed the stream.
	errStreamEnded = errors.New("the upstream closed the stream")
)

// follower keeps the proxy's configuration fresh, by streaming when it
// may and by polling otherwise, switching between the two as the SDKs do:
// an upstream that refuses the stream (401, 403, 404, 429, 501) or asks
// for polling sends the proxy to polling at once; other failures (5xx,
// network, a broken stream) reconnect with backoff until maxFails of them
// fall within failWindow. While polling, the proxy goes back to streaming
// when a poll answer carries "fetch-mode: streaming" or, with streaming
// configured on, when the retry wait has passed.
type follower struct {
	p      *Proxy
	timing streamTiming
	// explicit: ServiceStreaming is true; allowed: it is not false and no
	// tag filter is set.
	explicit, allowed bool

	// cur is the configuration the stream has built; nil until a
	// hydration arrives. lastID is the id of the last event applied to
	// it, sent as Last-Event-ID on reconnecting so that the upstream can
	// replay what was missed.
	cur    *clientapi.Features
	lastID string
	// retryAt is when streaming may be tried again after a fallback;
	// retries counts the fallbacks since the last stream that worked;
	// hinted says the last fallback was the upstream's request.
	retryAt time.Time
	retries int
	hinted  bool
	link    linkState
}

// follow runs until ctx ends.
func (p *Proxy) follow(ctx context.Context) {
	f := &follower{p: p, timing: defaultStreamTiming}
	if p.streamTiming != nil {
		f.timing = *p.streamTiming
	}
	on := p.cfg.ServiceStreaming
	f.explicit = on != nil && *on
	f.allowed = (on == nil || *on) && len(p.cfg.Tags) == 0
	streaming := f.explicit
	for ctx.Err() == nil {
		if streaming {
			f.stream(ctx)
		} else {
			p.pollLoop(ctx, func(res fetchResult) bool {
				return f.mayStream(res.fetchMode == "streaming")
			})
		}
		streaming = !streaming
	}
}

// mayStream reports whether a polling proxy should switch to streaming;
// suggested says the last poll answer invited it.
func (f *follower) mayStream(suggested bool) bool {
	if !f.allowed {
		return false
	}
	due := !time.Now().Before(f.retryAt)
	// An upstream that asked for polling is followed back at its word.
	return (suggested && (due || f.hinted)) || (f.explicit && due)
}

// stream opens the stream and reopens it when it breaks, until ctx ends
// or the proxy falls back to polling.
func (f *follower) stream(ctx context.Context) {
	log := f.p.log
	log.Info("following the upstream by streaming")
	f.hinted = false
	var fails []time.Time
	delay := f.timing.reconnectMin
	for {
		applied, err := f.session(ctx)
		if ctx.Err() != nil {
			return
		}
		if applied {
			delay = f.timing.reconnectMin
			f.retries = 0
		}
		var se *statusError
		switch {
		case errors.Is(err, errPollingRequested):
			f.fallBack(true)
			log.Info("the upstream asks for polling; polling until it offers streaming again")
			return
		case errors.As(err, &se) && refusesStream(se.status):
			f.fallBack(false)
			// Logged once per kind of refusal, not at every retry.
			f.link.failed(log, "the upstream refuses the stream; polling instead, and trying streaming again now and then", err)
			return
		}
		now := time.Now()
		fails = slices.DeleteFunc(fails, func(t time.Time) bool { return now.Sub(t) > f.timing.failWindow })
		fails = append(fails, now)
		if len(fails) >= f.timing.maxFails {
			f.fallBack(false)
			f.link.failed(log, "the stream keeps breaking; polling instead, and trying streaming again now and then", err)
			return
		}
		f.link.failed(log, "the stream from the upstream broke; reconnecting", err)
		if !sleep(ctx, jitter(delay)) {
			return
		}
		delay = min(2*delay, f.timing.reconnectMax)
	}
}

// refusesStream reports whether status sends a streaming client to
// polling at once: no waiting mends a refused token, a server without
// streaming, or one at its stream limit.
func refusesStream(status int) bool {
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound,
		http.StatusTooManyRequests, http.StatusNotImplemented:
		return true
	}
	return false
}

// fallBack ends streaming and sets when it may be tried again. The next stream starts from a hydration, as polling will
// have replaced the configuration the stream built.
func (f *follower) fallBack(hinted bool) {
	f.cur, f.lastID = nil, ""
	f.hinted = hinted
	wait := f.timing.retryMax
	if !hinted {
		wait = f.timing.retryMin
		for i := 0; i < f.retries && wait < f.timing.retryMax; i++ {
			wait *= 2
		}
		wait = jitter(min(wait, f.timing.retryMax))
		f.retries++
	}
	f.retryAt = time.Now().Add(wait)
}

// jitter returns a random wait between d/2 and d.
func jitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return d/2 + rand.N(d/2+1)
}

// session runs one stream until it fails or ctx ends. It reports whether
// it applied at least one message.
func (f *follower) session(ctx context.Context) (applied bool, err error) {
	p := f.p
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The watchdog first bounds the wait for the answer's headers, then
	// the silence between lines of the stream.
	watchdog := time.AfterFunc(p.cfg.UpstreamTimeout, cancel)
	defer watchdog.Stop()
	url := p.cfg.ServiceURL + "/client/streaming"
	req, err := http.NewRequestWithContext(sctx, http.MethodGet, url, nil)
	if err != nil {
		return false, err
	}
	p.up.setHeaders(req.Header, p.up.refreshMs)
	// Events must arrive as they are sent, not when a compressor flushes.
	delete(req.Header, "Accept-Encoding")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Cache-Control", "no-cache")
	if f.lastID != "" {
		req.Header.Set("Last-Event-ID", f.lastID)
	}
	resp, err := p.up.client.Do(req)
	if err != nil {
		return false, f.streamErr(ctx, sctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false, &statusError{url: url, status: resp.StatusCode}
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" {
		return false, fmt.Errorf("%s answered %q, not an event stream", url, resp.Header.Get("Content-Type"))
	}
	watchdog.Reset(f.timing.readTimeout)
	r := newSSEReader(resp.Body, maxUpstreamBody)
	r.touch = func() { watchdog.Reset(f.timing.readTimeout) }
	for {
		ev, err := r.next()
		if err != nil {
			return applied, f.streamErr(ctx, sctx, err)
		}
		switch ev.name {
		case sseConnected, sseUpdated:
			var d clientapi.Delta
			if err := json.Unmarshal(ev.data, &d); err != nil {
				// Start over from a hydration rather than build on a
				// configuration that missed an event.
				f.cur, f.lastID = nil, ""
				return applied, fmt.Errorf("unreadable %s event: %w", ev.name, err)
			}
			if err := f.apply(ctx, d.Events); err != nil {
				f.cur, f.lastID = nil, ""
				return applied, err
			}
			if ev.id != "" {
				f.lastID = ev.id
			}
			if !applied {
				applied = true
				f.link.ok(p.log, "the stream from the upstream works again")
			}
		case sseFetchMode:
			if strings.TrimSpace(string(ev.data)) == "polling" {
				return applied, errPollingRequested
			}
		}
	}
}

// streamErr names why a stream ended: the watchdog's cancellation is a
// silent stream, a clean end of the body the upstream closing it.
func (f *follower) streamErr(ctx, sctx context.Context, err error) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case sctx.Err() != nil:
		return errStreamSilent
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return errStreamEnded
	}
	return err
}

// apply applies delta events to the configuration the stream has built,
// installs the result and saves it as the backup.
func (f *follower) apply(ctx context.Context, events []clientapi.DeltaEvent) error {
	if len(events) == 0 {
		return nil
	}
	if f.cur == nil && !slices.ContainsFunc(events, func(e clientapi.DeltaEvent) bool { return e.Type == clientapi.EventHydration }) {
		return errors.New("the stream sent changes before a hydration")
	}
	next := clientapi.Apply(f.cur, events)
	// The backup must read back as a payload, which needs the lists.
	if next.Features == nil {
		next.Features = []clientapi.Feature{}
	}
	if next.Segments == nil {
		next.Segments = []clientapi.Segment{}
	}
	f.cur = next
	p := f.p
	p.refusal.Store(nil)
	p.install(next, fromUpstream)
	raw, err := json.Marshal(next)
	if err != nil {
		p.log.Warn("cannot encode the configuration backup", "err", err)
		return nil
	}
	if err := p.storage.Set(ctx, p.backupKey, raw); err != nil && ctx.Err() == nil {
		p.log.Warn("cannot save the configuration backup", "err", err)
	}
	return nil
}
