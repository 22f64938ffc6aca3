package proxy

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/signalbox/signalbox/clientapi"
)

// Bounds of the per-application usage an Edge scope keeps. SDKs and
// downstream nodes may report under any application name, so the number of
// applications, of rows (application x environment x flag) and of
// registrations held between two uploads is capped; labels follow the
// upstream's rules (at most maxNameLen bytes, no NUL), as one bad label
// makes the upstream refuse a whole bulk report.
const (
	maxApps          = 1000   // distinct application and environment pairs
	maxAppRows       = 100000 // rows over all applications
	maxAppRegs       = 1000   // registrations (application and instance)
	maxRegStrategies = 100    // strategies in one registration
	maxReportedCount = 10_000_000_000
	maxBulkRows      = 2000    // metrics rows in one upload request
	maxBulkBytes     = 1 << 20 // about the most JSON in one upload request
)

// appKey names an application in one environment.
type appKey struct{ app, env string }

// bulkMetric is one row of a bulk report: Unleash's bulk metrics item.
type bulkMetric struct {
	FeatureName string           `json:"featureName"`
	AppName     string           `json:"appName"`
	Environment string           `json:"environment"`
	Timestamp   time.Time        `json:"timestamp"`
	Yes         int64            `json:"yes"`
	No          int64            `json:"no"`
	Variants    map[string]int64 `json:"variants"`
}

// bulkReport is the body of POST /api/client/metrics/bulk.
type bulkReport struct {
	Applications []clientapi.Registration `json:"applications"`
	Metrics      []bulkMetric             `json:"metrics"`
}

// appUsage counts what SDKs (and downstream nodes) report, per
// application and environment, so the upload keeps each SDK's labels.
// What a full set cannot hold for a new application is left to the caller
// (counted under the node's own name); what fails validation is dropped.
type appUsage struct {
	env string // the scope's environment: the label of direct SDK reports

	mu      sync.Mutex
	start   time.Time
	counts  map[appKey]map[string]*clientapi.ToggleCount
	rows    int
	unknown int // rows of flags the configuration does not know
	regs    map[string]clientapi.Registration
	dropped uint64
	now     func() time.Time
	// droppedTotal counts what dropped counts (may be nil).
	droppedTotal prometheus.Counter
}

func newAppUsage(env string, now func() time.Time, droppedTotal prometheus.Counter) *appUsage {
	return &appUsage{env: env, start: now(), counts: map[appKey]map[string]*clientapi.ToggleCount{},
		regs: map[string]clientapi.Registration{}, now: now, droppedTotal: droppedTotal}
}

// drop counts one dropped report; a.mu is held.
func (a *appUsage) drop() {
	a.dropped++
	if a.droppedTotal != nil {
		a.droppedTotal.Inc()
	}
}

// validLabel is the upstream's rule for a name an SDK reports.
func validLabel(s string) bool { return len(s) <= maxNameLen && strings.IndexByte(s, 0) < 0 }

// validApp is the upstream's rule for an application name.
func validApp(s string) bool { return strings.TrimSpace(s) != "" && validLabel(s) }

// addBucket counts a bucket that application app reported in env. It
// reports false, counting nothing, when app is new and the set of
// applications is full, or app or env is not a valid label: the caller
// then counts the bucket under the node's own name.
func (a *appUsage) addBucket(app, env string, b clientapi.MetricsBucket, known func(string) bool) bool {
	if !validApp(app) || !validLabel(env) {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	k := appKey{app, env}
	flags, ok := a.counts[k]
	if !ok {
		if len(a.counts) >= maxApps {
			return false
		}
		flags = map[string]*clientapi.ToggleCount{}
		a.counts[k] = flags
	}
	for name, c := range b.Toggles {
		a.addLocked(flags, name, known(name), c)
	}
	if len(flags) == 0 {
		delete(a.counts, k)
	}
	return true
}

// addLocked adds c to the count of name; a.mu is held.
func (a *appUsage) addLocked(flags map[string]*clientapi.ToggleCount, name string, known bool, c clientapi.ToggleCount) {
	tc, ok := flags[name]
	if !ok {
		if name == "" || !validLabel(name) || a.rows >= maxAppRows || (!known && a.unknown >= maxUnknownNames) {
			a.drop()
			return
		}
		tc = &clientapi.ToggleCount{}
		flags[name] = tc
		a.rows++
		if !known {
			a.unknown++
		}
	}
	tc.Yes = satAdd(tc.Yes, c.Yes)
	tc.No = satAdd(tc.No, c.No)
	for v, n := range c.Variants {
		if tc.Variants == nil {
			tc.Variants = make(map[string]int64, 2)
		}
		if _, ok := tc.Variants[v]; !ok && (len(tc.Variants) >= maxVariantNames || !validLabel(v)) {
			a.drop()
			continue
		}
		tc.Variants[v] = satAdd(tc.Variants[v], n)
	}
}

// satAdd adds two counts of at least 0, stopping at maxReportedCount (the
// most the upstream takes) rather than overflowing.
func satAdd(x, y int64) int64 {
	if y <= 0 {
		return x
	}
	if x >= maxReportedCount-y {
		return maxReportedCount
	}
	return x + y
}

// register keeps an SDK's registration for the next upload, one per
// application and instance (a repeat replaces the earlier one). It reports
// false when the registration is not kept: invalid labels, or the set is
// full.
func (a *appUsage) register(reg clientapi.Registration) bool {
	if !validApp(reg.AppName) || !validLabel(reg.InstanceID) || !validLabel(reg.SDKVersion) ||
		!validLabel(reg.Environment) || !validLabel(reg.ConnectionID) || !validLabel(reg.PlatformName) ||
		!validLabel(reg.PlatformVersion) || !validLabel(reg.YggdrasilVersion) || !validLabel(reg.SpecVersion) {
		a.mu.Lock()
		a.drop()
		a.mu.Unlock()
		return false
	}
	reg.Strategies = slices.DeleteFunc(slices.Clone(reg.Strategies[:min(len(reg.Strategies), maxRegStrategies)]),
		func(s string) bool { return !validLabel(s) })
	if reg.Environment == "" {
		reg.Environment = a.env
	}
	key := reg.AppName + "\x00" + reg.InstanceID
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.regs[key]; !ok && len(a.regs) >= maxAppRegs {
		a.drop()
		return false
	}
	a.regs[key] = reg
	return true
}

// take hands out the rows counted since the last take (one per
// application, environment and flag, stamped with the start of the
// period) and the registrations, and starts a new period.
func (a *appUsage) take() ([]clientapi.Registration, []bulkMetric) {
	a.mu.Lock()
	defer a.mu.Unlock()
	regs := make([]clientapi.Registration, 0, len(a.regs))
	for _, r := range a.regs {
		regs = append(regs, r)
	}
	rows := make([]bulkMetric, 0, a.rows)
	for k, flags := range a.counts {
		for name, tc := range flags {
			rows = append(rows, bulkMetric{FeatureName: name, AppName: k.app, Environment: k.env, Timestamp: a.start,
				Yes: tc.Yes, No: tc.No, Variants: tc.Variants})
		}
	}
	a.counts = map[appKey]map[string]*clientapi.ToggleCount{}
	a.regs = map[string]clientapi.Registration{}
	a.rows, a.unknown = 0, 0
	a.start = a.now()
	return regs, rows
}

// giveBack returns rows that could not be sent; they are counted again
// within the bounds (what does not fit is dropped). The period keeps its
// start when it is the earlier one.
func (a *appUsage) giveBack(rows []bulkMetric) {
	if len(rows) == 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, m := range rows {
		k := appKey{m.AppName, m.Environment}
		flags, ok := a.counts[k]
		if !ok {
			if len(a.counts) >= maxApps {
				a.drop()
				continue
			}
			flags = map[string]*clientapi.ToggleCount{}
			a.counts[k] = flags
		}
		a.addLocked(flags, m.FeatureName, true, clientapi.ToggleCount{Yes: m.Yes, No: m.No, Variants: m.Variants})
		if len(flags) == 0 {
			delete(a.counts, k)
		}
		if !m.Timestamp.IsZero() && m.Timestamp.Before(a.start) {
			a.start = m.Timestamp
		}
	}
}

// giveBackRegs returns registrations that could not be sent; one received
// since is newer and stays.
func (a *appUsage) giveBackRegs(regs []clientapi.Registration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, reg := range regs {
		key := reg.AppName + "\x00" + reg.InstanceID
		if _, ok := a.regs[key]; !ok && len(a.regs) < maxAppRegs {
			a.regs[key] = reg
		}
	}
}

// droppedCount is how many reports the bounds and checks have dropped.
func (a *appUsage) droppedCount() uint64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.dropped
}

// bucketRows turns the node's own buckets into bulk rows under its own
// application name, capping the counts at what the upstream takes.
func bucketRows(buckets []clientapi.MetricsBucket, app, env string) []bulkMetric {
	var rows []bulkMetric
	for _, b := range buckets {
		for name, c := range b.Toggles {
			if name == "" || !validLabel(name) {
				continue
			}
			m := bulkMetric{FeatureName: name, AppName: app, Environment: env, Timestamp: b.Start,
				Yes: satAdd(0, c.Yes), No: satAdd(0, c.No)}
			for v, n := range c.Variants {
				if !validLabel(v) {
					continue
				}
				if m.Variants == nil {
					m.Variants = make(map[string]int64, len(c.Variants))
				}
				m.Variants[v] = satAdd(0, n)
			}
			rows = append(rows, m)
		}
	}
	return rows
}

// rowSize and regSize estimate the JSON size of a row and a registration,
// so that one upload request stays well below the upstream's body limit.
func rowSize(m *bulkMetric) int {
	n := 160 + len(m.FeatureName) + len(m.AppName) + len(m.Environment)
	for v := range m.Variants {
		n += len(v) + 24
	}
	return n
}

func regSize(r *clientapi.Registration) int {
	n := 400 + len(r.AppName) + len(r.InstanceID) + len(r.ConnectionID) + len(r.SDKVersion) + len(r.Environment) +
		len(r.PlatformName) + len(r.PlatformVersion) + len(r.YggdrasilVersion) + len(r.SpecVersion)
	for _, s := range r.Strategies {
		n += len(s) + 3
	}
	return n
}

// nextChunk is how many registrations and rows go in the next upload
// request: at most maxBulkRows of each and about maxBulkBytes in all, and
// at least one item whenever any is left.
func nextChunk(regs []clientapi.Registration, rows []bulkMetric) (nr, n int) {
	size := 0
	for nr < len(regs) && nr < maxBulkRows {
		sz := regSize(&regs[nr])
		if nr > 0 && size+sz > maxBulkBytes {
			return nr, 0
		}
		size += sz
		nr++
	}
	for n < len(rows) && n < maxBulkRows {
		sz := rowSize(&rows[n])
		if nr+n > 0 && size+sz > maxBulkBytes {
			break
		}
		size += sz
		n++
	}
	return nr, n
}
