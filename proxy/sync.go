package proxy

import (
	"context"
	"errors"
	"hash/crc64"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/signalbox/signalbox/clientapi"
)

// flushTimeout bounds the final metrics upload when Run is stopped.
const flushTimeout = 5 * time.Second

// Run reads the backup, loads the bootstrap, registers upstream, then
// follows the configuration (polling every RefreshInterval, or streaming;
// see ServiceStreaming) and sends usage metrics every
// MetricsInterval until ctx ends; then it sends the metrics it still holds
// and returns. Upstream failures never end it: the last good configuration
// stays in use. Run may be called once.
func (p *Proxy) Run(ctx context.Context) error {
	if !p.running.CompareAndSwap(false, true) {
		return errors.New("proxy: Run was already called")
	}
	p.loadBackup(ctx)
	var wg sync.WaitGroup
	if p.cfg.ExpBootstrap.URL != "" {
		wg.Go(func() { p.loadBootstrap(ctx) })
	}
	wg.Go(func() { p.metricsLoop(ctx) })
	p.follow(ctx)
	wg.Wait()
	return nil
}

// loadBackup makes the proxy ready from the storage provider, so that a
// restart while the upstream is down still serves the last configuration.
func (p *Proxy) loadBackup(ctx context.Context) {
	data, err := p.storage.Get(ctx, p.backupKey)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		p.log.Warn("cannot read the configuration backup", "err", err)
		return
	}
	if len(data) == 0 {
		return
	}
	f, err := parseFeatures(data)
	if err != nil {
		p.log.Warn("ignoring an unreadable configuration backup", "err", err)
		return
	}
	p.install(f, fromBackup)
}

// loadBootstrap loads the configuration from expBootstrap.url. It replaces
// a backup but never what the upstream already delivered.
func (p *Proxy) loadBootstrap(ctx context.Context) {
	_, f, err := p.up.fetchBootstrap(ctx, p.cfg.ExpBootstrap)
	if err != nil {
		if ctx.Err() == nil {
			p.log.Warn("cannot load the bootstrap configuration", "err", err)
		}
		return
	}
	p.install(f, fromBootstrap)
}

// pollLoop polls until ctx ends, backing off while the upstream fails,
// or until done, asked after each poll, reports true.
func (p *Proxy) pollLoop(ctx context.Context, done func(fetchResult) bool) {
	var (
		etag     string
		lastSum  uint64
		failures int
		link     linkState
	)
	table := crc64.MakeTable(crc64.ECMA)
	for {
		res, err := p.up.fetchFeatures(ctx, etag)
		if ctx.Err() != nil {
			return
		}
		switch {
		case err != nil && tokenRefused(err):
			failures++
			p.prom.fetches.WithLabelValues("failed").Inc()
			if p.refuse(err) {
				etag, lastSum = "", 0
				link.failedAt(p.log, slog.LevelError, "upstream refuses the proxy's token (SERVICE_API_TOKEN); not ready, and the stored or bootstrap configuration is not served", err)
			} else {
				link.failedAt(p.log, slog.LevelError, "upstream refuses the proxy's token (SERVICE_API_TOKEN); serving the last configuration it gave until it accepts the token again", err)
			}
		case err != nil:
			failures++
			p.prom.fetches.WithLabelValues("failed").Inc()
			link.failed(p.log, "cannot fetch the configuration; serving the last good one", err)
		case res.notModified:
			failures = 0
			p.refusal.Store(nil)
			p.prom.fetches.WithLabelValues("unchanged").Inc()
			link.ok(p.log, "upstream answers again")
		default:
			failures = 0
			p.refusal.Store(nil)
			link.ok(p.log, "upstream answers again")
			etag = res.etag
			// An upstream without ETags answers 200 every time: skip the
			// recompile and the backup write when nothing changed.
			sum := crc64.Checksum(res.raw, table)
			if sum == lastSum && p.currentSource() == fromUpstream {
				p.prom.fetches.WithLabelValues("unchanged").Inc()
				break
			}
			lastSum = sum
			p.prom.fetches.WithLabelValues("changed").Inc()
			p.install(res.features, fromUpstream)
			if err := p.storage.Set(ctx, p.backupKey, res.raw); err != nil {
				p.log.Warn("cannot save the configuration backup", "err", err)
			}
		}
		if done(res) {
			return
		}
		wait := backoff(p.cfg.RefreshInterval, failures)
		if !p.Ready() {
			// Nothing to serve yet: keep trying at the normal pace (with
			// jitter) rather than backing off into minutes of 503s.
			wait = min(wait, p.cfg.RefreshInterval)
		}
		if !sleep(ctx, wait) {
			return
		}
	}
}

func (p *Proxy) currentSource() source {
	if st := p.state.Load(); st != nil {
		return st.source
	}
	return 0
}

// backoff is the wait before the next poll: the interval while all is well;
// after failures it doubles per failure up to ten intervals, with jitter so
// that many proxies do not return at the same instant.
func backoff(interval time.Duration, failures int) time.Duration {
	if failures == 0 {
		return interval
	}
	d := interval
	for i := 0; i < failures && d < 10*interval; i++ {
		d *= 2
	}
	d = min(d, 10*interval)
	// Equal jitter: at least half the delay, so backing off stays backing off.
	half := d / 2
	return half + rand.N(half+1)
}

// sleep waits d or until ctx ends; it reports whether to go on.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// metricsLoop registers, then sends usage metrics every interval plus
// jitter, and once more when ctx ends.
func (p *Proxy) metricsLoop(ctx context.Context) {
	var link linkState
	registered := p.registerSelf(ctx, &link)
	for {
		wait := p.cfg.MetricsInterval
		if j := p.cfg.MetricsJitter; j > 0 {
			wait += rand.N(j + 1)
		}
		if !sleep(ctx, wait) {
			flush, cancel := context.WithTimeout(context.WithoutCancel(ctx), flushTimeout)
			p.sendMetrics(flush, &link)
			cancel()
			return
		}
		if !registered {
			registered = p.registerSelf(ctx, &link)
		}
		p.sendMetrics(ctx, &link)
	}
}

// registerSelf announces the proxy upstream; a failure is retried with the
// next metrics upload.
func (p *Proxy) registerSelf(ctx context.Context, link *linkState) bool {
	reg := p.up.registration(p.strategies, p.started, p.cfg.MetricsInterval)
	if err := p.up.register(ctx, reg); err != nil {
		if ctx.Err() == nil {
			link.failed(p.log, "cannot register upstream; will retry", err)
		}
		return !retryable(err)
	}
	return true
}

// sendMetrics posts every unsent bucket, oldest first. Buckets that fail
// for a reason that may pass are kept for the next round; a bucket that the
// upstream refuses outright (4xx) is dropped, as resending cannot help.
func (p *Proxy) sendMetrics(ctx context.Context, link *linkState) {
	if p.apps != nil {
		p.sendBulk(ctx, link)
		return
	}
	p.forwardRegistrations(ctx)
	buckets := p.usage.take()
	for i, b := range buckets {
		err := p.up.postMetrics(ctx, b)
		if err == nil {
			p.prom.metricsPosts.WithLabelValues("sent").Inc()
			link.ok(p.log, "metrics reach the upstream again")
			continue
		}
		if !retryable(err) {
			p.prom.metricsPosts.WithLabelValues("dropped").Inc()
			link.failed(p.log, "upstream refused a metrics bucket; dropped it", err)
			continue
		}
		p.prom.metricsPosts.WithLabelValues("kept").Add(float64(len(buckets) - i))
		link.failed(p.log, "cannot send metrics; keeping them for the next try", err)
		p.usage.giveBack(buckets[i:])
		return
	}
}

// linkState logs a connection's failures once per change of state instead
// of once per attempt. Errors are compared by class, not by text, because
// network errors carry ephemeral ports that differ on every attempt.
type linkState struct {
	failing bool
	last    string
}

func (l *linkState) failed(log *slog.Logger, msg string, err error) {
	l.failedAt(log, slog.LevelWarn, msg, err)
}

// failedAt is failed at another level.
func (l *linkState) failedAt(log *slog.Logger, level slog.Level, msg string, err error) {
	class := msg + "/" + errClass(err)
	if l.failing && l.last == class {
		return
	}
	l.failing, l.last = true, class
	log.Log(context.Background(), level, msg, "err", err)
}

// tokenRefused reports whether the upstream refused the token (401 or
// 403), which waiting does not mend: the token is wrong, revoked or lacks
// access.
func tokenRefused(err error) bool {
	var se *statusError
	return errors.As(err, &se) && (se.status == http.StatusUnauthorized || se.status == http.StatusForbidden)
}

// refuse records that the upstream refuses the token. A configuration
// that came from the upstream in this run keeps being served, as SDKs
// keep their last configuration when their key is refused; a stored
// backup or a bootstrap was never vouched for by this upstream with this
// token, so it is dropped and the proxy is not ready until the token is
// accepted. It reports whether it dropped a configuration or the proxy
// had none.
func (p *Proxy) refuse(err error) bool {
	p.installMu.Lock()
	defer p.installMu.Unlock()
	reason := "the upstream refuses the proxy's token (SERVICE_API_TOKEN): " + err.Error()
	p.refusal.Store(&reason)
	cur := p.state.Load()
	if cur != nil && cur.source == fromUpstream {
		return false
	}
	if cur != nil {
		p.state.Store(nil)
	}
	return true
}

func (l *linkState) ok(log *slog.Logger, msg string) {
	if l.failing {
		log.Info(msg)
	}
	l.failing, l.last = false, ""
}

// errClass names the kind of an upstream failure.
func errClass(err error) string {
	var se *statusError
	var ne net.Error
	switch {
	case errors.As(err, &se):
		return "status " + strconv.Itoa(se.status)
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	case errors.As(err, &ne):
		return "network"
	}
	return "payload"
}

// sendBulk uploads, for an Edge scope, what it counted since the last
// upload as bulk reports: the node's own counts under its own name, each
// SDK's under the SDK's application and environment, and the SDK
// registrations along with the node's own. Rows go in requests of at most
// maxBulkRows; those that fail for a reason that may pass are counted
// again for the next round, those the upstream refuses outright are
// dropped.
func (p *Proxy) sendBulk(ctx context.Context, link *linkState) {
	own := p.usage.take()
	regs, rows := p.apps.take()
	rows = append(bucketRows(own, p.cfg.ServiceAppName, p.apps.env), rows...)
	self := p.up.registration(p.strategies, p.started, p.cfg.MetricsInterval)
	self.Environment = p.apps.env
	regs = append([]clientapi.Registration{self}, regs...)
	for len(regs) > 0 || len(rows) > 0 {
		nr, n := nextChunk(regs, rows)
		err := p.up.postBulk(ctx, bulkReport{Applications: regs[:nr], Metrics: rows[:n]})
		switch {
		case err == nil:
			p.prom.metricsPosts.WithLabelValues("sent").Inc()
			link.ok(p.log, "metrics reach the upstream again")
		case !retryable(err):
			p.prom.metricsPosts.WithLabelValues("dropped").Inc()
			link.failed(p.log, "upstream refused a metrics report; dropped it", err)
		default:
			p.prom.metricsPosts.WithLabelValues("kept").Inc()
			link.failed(p.log, "cannot send metrics; keeping them for the next try", err)
			p.apps.giveBack(rows)
			if len(regs) > 0 && regs[0].InstanceID == self.InstanceID && regs[0].AppName == self.AppName {
				regs = regs[1:] // the node's own is sent afresh each time
			}
			p.apps.giveBackRegs(regs)
			return
		}
		regs, rows = regs[nr:], rows[n:]
	}
}
