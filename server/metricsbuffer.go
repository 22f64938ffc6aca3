package server

import (
	"context"
	"errors"
	"math"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/store"
)

// Bounds of what SDK reports may make the server keep. Client and frontend
// tokens are public credentials (frontend tokens ship inside web pages), so
// every name a metrics or registration body carries is capped: only flags
// that exist in the token's projects are counted at all, and the other
// dimensions (application names, instance ids, variant names, hours, series)
// have fixed bounds. What does not fit is dropped and counted in
// feature_toggle_usage_dropped_total{reason}; the request is still answered
// 202, since an SDK can do nothing about a refusal but log it on every
// interval.
const (
	// maxLabelLen bounds the strings an SDK names itself with (appName,
	// instanceId, sdkVersion, environment, strategy names): they become
	// Prometheus label values and database keys. Longer values are refused
	// with 400, as only a misconfigured SDK sends them and it should say so.
	// Flag names need no bound of their own: only existing flags count.
	maxLabelLen = 200
	// maxAppNames bounds the application names tracked at once. Each one
	// multiplies the rows and series of every flag, so past it reports and
	// registrations of new names are dropped until names expire.
	maxAppNames = 1000
	// appNameTTL is how long an application name stays tracked after its
	// last report; then it is forgotten with its Prometheus series, so that
	// retired applications (and names nobody uses again) free their place.
	appNameTTL = 24 * time.Hour
	// maxInstancesPerApp bounds the instance ids of one application that
	// registration writes within appNameTTL: each is a database row, and
	// SDKs in containers get a new id on every restart.
	maxInstancesPerApp = 1000
	// maxUsageSeries bounds the series of feature_toggle_usage_total, which
	// are never dropped by Prometheus itself and make every scrape larger:
	// 50,000 series is a scrape of a few megabytes. Past it, new series are
	// not exported; the counts still reach the database.
	maxUsageSeries = 50000
	// maxPendingMetrics bounds the rows (flag, application, environment,
	// hour) buffered between two flushes; past it new rows are dropped and
	// counts for existing rows still merge.
	maxPendingMetrics = 200000
	// maxVariantNames bounds the distinct variant names counted for one row.
	maxVariantNames = 32
	// maxBucketAge is how far back a bucket may start and still be counted
	// in its own hour; older (or future) buckets count in the current hour,
	// since each distinct hour is another row per flag and application.
	maxBucketAge = 24 * time.Hour
	// maxReportedCount bounds one count of one report (10 billion
	// evaluations of a flag in one bucket, far beyond any SDK). Stored
	// counts are 64-bit sums per hour: with this bound no rate of requests
	// can overflow them, which would make every later flush fail.
	maxReportedCount = 10_000_000_000
	// maxRegisteredStrategies bounds the strategy names of a registration;
	// SDKs send the built-in ones plus the custom strategies they implement.
	maxRegisteredStrategies = 100
	// maxPendingRegistrations bounds the instances (application, instance
	// id, environment) buffered between two registration flushes; past it
	// registrations of new instances are dropped until the next flush.
	maxPendingRegistrations = 100000
	// registrationFlush is how often buffered registrations are written
	// (or more often when Config.MetricsFlush is shorter): an SDK that
	// just started shows up in the admin UI within a few seconds.
	registrationFlush = 3 * time.Second
	// flushChunk is how many metrics rows one write of a flush carries.
	flushChunk = 5000
)

// Reasons of feature_toggle_usage_dropped_total.
const (
	dropUnknownFlag  = "unknown_flag"   // not a flag of the token's projects
	dropAppLimit     = "app_limit"      // maxAppNames reached
	dropInstanceCap  = "instance_limit" // maxInstancesPerApp reached
	dropBufferFull   = "buffer_full"    // maxPendingMetrics reached
	dropSeriesLimit  = "series_limit"   // maxUsageSeries reached (database still counts)
	dropVariantLimit = "variant_limit"  // maxVariantNames reached or name too long
)

// metricsLimits are the bounds in force; tests lower them.
type metricsLimits struct {
	apps, instancesPerApp, series, pending, variants, registrations int
}

var defaultMetricsLimits = metricsLimits{
	apps: maxAppNames, instancesPerApp: maxInstancesPerApp, series: maxUsageSeries,
	pending: maxPendingMetrics, variants: maxVariantNames, registrations: maxPendingRegistrations,
}

// metricsBuffer aggregates client metrics in memory per feature,
// application, environment and hour, so that a burst of SDK reports costs
// one database write per flush rather than one per request. It also tracks
// the application names and usage series in use, to keep them bounded.
type metricsBuffer struct {
	mu      sync.Mutex
	limits  metricsLimits
	pending map[metricKey]*clientapi.ToggleCount
	seen    map[seenKey]time.Time
	apps    map[string]*trackedApp
	series  map[usageSeries]struct{}
	dropped *prometheus.CounterVec
	// unknown holds the names reported that are no flag of the token's
	// scope (see unknown_flags.go).
	unknown map[string]*unknownFlag
	// regApps and regInstances are the registrations since the last
	// registration flush, the newest per application and per instance.
	regApps      map[string]store.ClientApplication
	regInstances map[instanceKey]store.ClientInstance
	// regSoon asks Run for a registration flush now: the first
	// registration of an application name this server does not track yet
	// sends on it, so that new applications show up at once while the
	// instances of a fleet still go in bulk.
	regSoon chan struct{}
}

type instanceKey struct{ app, instance, env string }

type metricKey struct {
	feature, app, env string
	hour              time.Time
}

type seenKey struct{ feature, env string }

// usageSeries is one series of feature_toggle_usage_total.
type usageSeries struct {
	toggle, app string
	active      bool
}

// trackedApp is an application name in use: when it last reported and the
// instance ids registered under it since.
type trackedApp struct {
	name      string
	last      time.Time
	instances map[string]time.Time
}

func newMetricsBuffer() *metricsBuffer {
	return &metricsBuffer{
		limits:       defaultMetricsLimits,
		pending:      map[metricKey]*clientapi.ToggleCount{},
		seen:         map[seenKey]time.Time{},
		apps:         map[string]*trackedApp{},
		series:       map[usageSeries]struct{}{},
		regApps:      map[string]store.ClientApplication{},
		regInstances: map[instanceKey]store.ClientInstance{},
		regSoon:      make(chan struct{}, 1),
		dropped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "feature_toggle_usage_dropped_total",
			Help: "Flag usage entries of SDK metrics and registrations that were not counted, by reason.",
		}, []string{"reason"}),
	}
}

// drop counts n entries lost for reason. Called with mu held or not: the
// counter has its own lock.
func (b *metricsBuffer) drop(reason string, n int) {
	if n > 0 {
		b.dropped.WithLabelValues(reason).Add(float64(n))
	}
}

// trackApp returns the tracked application named name, adding it when
// there is room; nil when the bound is reached. Called with mu held.
func (b *metricsBuffer) trackApp(name string, now time.Time) *trackedApp {
	a := b.apps[name]
	if a == nil {
		if len(b.apps) >= b.limits.apps {
			return nil
		}
		a = &trackedApp{name: name}
		b.apps[name] = a
	}
	if now.After(a.last) {
		a.last = now
	}
	return a
}

// admitRegistration reports whether a registration of the instance of app
// may be written (both names fit their bounds), and whether app was not
// tracked yet.
func (b *metricsBuffer) admitRegistration(app, instance string, now time.Time) (ok, newApp bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, known := b.apps[app]
	a := b.trackApp(app, now)
	if a == nil {
		b.drop(dropAppLimit, 1)
		return false, false
	}
	if _, ok := a.instances[instance]; !ok && len(a.instances) >= b.limits.instancesPerApp {
		b.drop(dropInstanceCap, 1)
		return false, !known
	}
	if a.instances == nil {
		a.instances = map[string]time.Time{}
	}
	a.instances[instance] = now
	return true, !known
}

// bucketHour is the hour a bucket is stored under: its start's, or the
// current one when the start is missing, in the future or older than
// maxBucketAge.
func bucketHour(start, now time.Time) time.Time {
	if start.IsZero() || start.After(now) || start.Before(now.Add(-maxBucketAge)) {
		start = now
	}
	return start.UTC().Truncate(time.Hour)
}

// recordMetrics buffers a report for env. flags maps each flag name that
// the token may report on to its canonical string (shared with the cached
// payload, so that buffered keys do not keep copies of request bodies);
// other names are not counted. Prometheus counters move only for counts the
// buffer accepted.
func (s *Server) recordMetrics(m clientapi.Metrics, env string, flags map[string]string) {
	now := s.now()
	hour := bucketHour(m.Bucket.Start, now)
	stop := m.Bucket.Stop
	if stop.IsZero() || stop.After(now) {
		stop = now
	}
	b := s.metrics
	b.mu.Lock()
	defer b.mu.Unlock()
	known := 0
	for name := range m.Bucket.Toggles {
		if _, ok := flags[name]; ok {
			known++
		} else {
			b.noteUnknown(name, m.AppName, env, now)
		}
	}
	b.drop(dropUnknownFlag, len(m.Bucket.Toggles)-known)
	if known == 0 {
		return // a report of nothing real takes no application slot
	}
	app := b.trackApp(m.AppName, now)
	if app == nil {
		b.drop(dropAppLimit, known)
		return
	}
	for name, c := range m.Bucket.Toggles {
		feature, ok := flags[name]
		if !ok {
			continue
		}
		k := metricKey{feature: feature, app: app.name, env: env, hour: hour}
		cur := b.pending[k]
		if cur == nil {
			if len(b.pending) >= b.limits.pending {
				b.drop(dropBufferFull, 1)
				continue
			}
			cur = &clientapi.ToggleCount{}
			b.pending[k] = cur
		}
		b.add(cur, c)
		b.countUsage(s.usage, feature, app.name, true, c.Yes)
		b.countUsage(s.usage, feature, app.name, false, c.No)
		if c.Yes+c.No > 0 {
			sk := seenKey{feature: feature, env: env}
			if stop.After(b.seen[sk]) {
				b.seen[sk] = stop
			}
		}
	}
}

// add merges c into cur within the variant bounds. Called with mu held.
func (b *metricsBuffer) add(cur *clientapi.ToggleCount, c clientapi.ToggleCount) {
	cur.Yes = addCount(cur.Yes, c.Yes)
	cur.No = addCount(cur.No, c.No)
	for v, n := range c.Variants {
		if _, ok := cur.Variants[v]; !ok && (len(cur.Variants) >= b.limits.variants || len(v) > maxLabelLen) {
			b.drop(dropVariantLimit, 1)
			continue
		}
		if cur.Variants == nil {
			cur.Variants = make(map[string]int64, 2)
		}
		cur.Variants[v] = addCount(cur.Variants[v], n)
	}
}

// addCount adds two non-negative counts, stopping at the largest int64
// rather than wrapping to a negative count.
func addCount(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// countUsage adds n to a series of feature_toggle_usage_total when the
// series exists or fits the bound. Called with mu held.
func (b *metricsBuffer) countUsage(usage *prometheus.CounterVec, toggle, app string, active bool, n int64) {
	if n <= 0 {
		return
	}
	k := usageSeries{toggle: toggle, app: app, active: active}
	if _, ok := b.series[k]; !ok {
		if len(b.series) >= b.limits.series {
			b.drop(dropSeriesLimit, 1)
			return
		}
		b.series[k] = struct{}{}
	}
	label := "false"
	if active {
		label = "true"
	}
	usage.WithLabelValues(toggle, label, app).Add(float64(n))
}

// expireApps forgets the applications (and their instances) not seen within
// appNameTTL, with their usage series.
func (s *Server) expireApps(now time.Time) {
	b := s.metrics
	b.mu.Lock()
	defer b.mu.Unlock()
	cut := now.Add(-appNameTTL)
	var gone map[string]bool
	for name, a := range b.apps {
		for id, at := range a.instances {
			if at.Before(cut) {
				delete(a.instances, id)
			}
		}
		if a.last.Before(cut) {
			delete(b.apps, name)
			if gone == nil {
				gone = map[string]bool{}
			}
			gone[name] = true
			s.usage.DeletePartialMatch(prometheus.Labels{"appName": name})
		}
	}
	if gone != nil {
		for k := range b.series {
			if gone[k.app] {
				delete(b.series, k)
			}
		}
	}
}

// bufferRegistration keeps a registration for the next registration
// flush; a newer one of the same instance replaces it.
func (b *metricsBuffer) bufferRegistration(app store.ClientApplication, in store.ClientInstance, newApp bool) {
	if newApp {
		select {
		case b.regSoon <- struct{}{}:
		default:
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	k := instanceKey{in.AppName, in.InstanceID, in.Environment}
	if _, ok := b.regInstances[k]; !ok && len(b.regInstances) >= b.limits.registrations {
		b.drop(dropBufferFull, 1)
		return
	}
	b.regInstances[k] = in
	b.regApps[app.AppName] = app
}

// FlushRegistrations writes the buffered registrations in one operational
// write. On failure they go back into the buffer, behind newer ones.
func (s *Server) FlushRegistrations(ctx context.Context) error {
	b := s.metrics
	b.mu.Lock()
	apps, instances := b.regApps, b.regInstances
	if len(instances) == 0 {
		b.mu.Unlock()
		return nil
	}
	b.regApps, b.regInstances = map[string]store.ClientApplication{}, map[instanceKey]store.ClientInstance{}
	b.mu.Unlock()
	appList := make([]store.ClientApplication, 0, len(apps))
	for _, a := range apps {
		appList = append(appList, a)
	}
	list := make([]store.ClientInstance, 0, len(instances))
	for _, in := range instances {
		list = append(list, in)
	}
	err := s.store.Operate(ctx, func(op store.Op) error { return op.RecordClientRegistrations(ctx, appList, list) })
	s.noteWrite(err)
	if err != nil {
		b.mu.Lock()
		for name, a := range apps {
			if _, ok := b.regApps[name]; !ok {
				b.regApps[name] = a
			}
		}
		for k, in := range instances {
			if _, ok := b.regInstances[k]; ok {
				continue
			}
			if len(b.regInstances) >= b.limits.registrations {
				b.drop(dropBufferFull, 1)
				continue
			}
			b.regInstances[k] = in
		}
		b.mu.Unlock()
	}
	return err
}

// FlushMetrics writes the buffered registrations, then the buffered client
// metrics, token and flag last-seen stamps, in operational writes that
// admin writes never wait for. On failure they go back into the buffer to
// be tried again.
func (s *Server) FlushMetrics(ctx context.Context) error {
	regErr := s.FlushRegistrations(ctx)
	if hashes := s.takeSeenTokens(); len(hashes) > 0 {
		err := s.store.Operate(ctx, func(op store.Op) error { return op.MarkAPITokensSeen(ctx, hashes, s.now()) })
		if err != nil {
			s.log.Warn("recording token use failed", "err", err)
		}
	}
	s.expireApps(s.now())
	b := s.metrics
	b.mu.Lock()
	pending, seen := b.pending, b.seen
	b.pending, b.seen = map[metricKey]*clientapi.ToggleCount{}, map[seenKey]time.Time{}
	b.mu.Unlock()
	if len(pending) == 0 && len(seen) == 0 {
		return regErr
	}
	ms := make([]store.ClientMetric, 0, len(pending))
	for k, c := range pending {
		ms = append(ms, store.ClientMetric{Feature: k.feature, AppName: k.app, Environment: k.env, Hour: k.hour, Yes: c.Yes, No: c.No, Variants: c.Variants})
	}
	// One statement per environment marks its flags seen, at the latest
	// time any of them was: last-seen is as precise as the flush interval.
	type seenGroup struct {
		features []string
		at       time.Time
	}
	byEnv := map[string]*seenGroup{}
	for k, at := range seen {
		g := byEnv[k.env]
		if g == nil {
			g = &seenGroup{}
			byEnv[k.env] = g
		}
		g.features = append(g.features, k.feature)
		if at.After(g.at) {
			g.at = at
		}
	}
	// Several short writes rather than one long one: on SQLite, whose one
	// write connection admin writes share, they wait for one chunk at most.
	var err error
	for len(ms) > 0 && err == nil {
		n := min(len(ms), flushChunk)
		chunk := ms[:n]
		err = s.store.Operate(ctx, func(op store.Op) error { return op.AddClientMetrics(ctx, chunk) })
		if err == nil {
			for _, m := range chunk {
				delete(pending, metricKey{feature: m.Feature, app: m.AppName, env: m.Environment, hour: m.Hour})
			}
			ms = ms[n:]
		}
	}
	if err == nil {
		err = s.store.Operate(ctx, func(op store.Op) error {
			for env, g := range byEnv {
				if err := op.MarkFeaturesSeen(ctx, env, g.features, g.at); err != nil {
					return err
				}
			}
			return nil
		})
		if err == nil {
			seen = nil
		}
	}
	s.noteWrite(err)
	if err != nil {
		// Put back what was not written; rows that no longer fit the
		// bound are lost, as they would be if they had arrived now.
		b.mu.Lock()
		for k, c := range pending {
			if cur := b.pending[k]; cur != nil {
				b.add(cur, *c)
			} else if len(b.pending) < b.limits.pending {
				b.pending[k] = c
			} else {
				b.drop(dropBufferFull, 1)
			}
		}
		for k, t := range seen {
			if t.After(b.seen[k]) {
				b.seen[k] = t
			}
		}
		b.mu.Unlock()
	}
	return errors.Join(regErr, err)
}

// pendingLen is the number of buffered rows.
func (b *metricsBuffer) pendingLen() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.pending)
}
