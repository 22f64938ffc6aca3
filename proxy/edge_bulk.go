package proxy

import (
	"net/http"
	"time"

	"github.com/signalbox/signalbox/clientapi"
)

// bulkMetrics is what a downstream Edge-style node sends for the SDKs
// behind it (Unleash's bulkMetricsSchema): registrations and per-flag
// counts of many applications.
type bulkMetrics struct {
	Applications []clientapi.Registration `json:"applications"`
	Metrics      []struct {
		FeatureName string           `json:"featureName"`
		AppName     string           `json:"appName"`
		Environment string           `json:"environment"`
		Timestamp   *time.Time       `json:"timestamp"`
		Yes         int64            `json:"yes"`
		No          int64            `json:"no"`
		Variants    map[string]int64 `json:"variants"`
	} `json:"metrics"`
}

// maxBulkItems bounds the applications and the metrics of one request.
const maxBulkItems = 10000

// serveBulk takes a downstream node's report into the scope's usage, which
// the scope uploads with its own, once: each row keeps its application and
// environment (the scope's when it names none), within the bounds of
// per-application usage; rows without an application are counted under
// the node's own name. Registrations are passed on as they came.
func (e *Edge) serveBulk(w http.ResponseWriter, r *http.Request, sc *edgeScope) {
	var body bulkMetrics
	empty, rerr := decodeJSONBody(w, r, &body, 16*DefaultMaxBodyBytes)
	if rerr == nil && (empty || len(body.Applications) > maxBulkItems || len(body.Metrics) > maxBulkItems) {
		rerr = invalid(".body", "maxItems", "the body must hold applications and metrics lists of at most 10000 items each")
	}
	if rerr != nil {
		writeRequestError(w, rerr)
		return
	}
	p := sc.p
	for _, reg := range body.Applications {
		p.apps.register(reg)
	}
	known := func(string) bool { return false }
	if st := p.state.Load(); st != nil {
		known = st.snap.Has
	}
	// One bucket per application and environment, as its SDK would send.
	now := time.Now()
	buckets := map[appKey]clientapi.MetricsBucket{}
	for _, m := range body.Metrics {
		if m.FeatureName == "" || m.Yes < 0 || m.No < 0 {
			continue
		}
		k := appKey{m.AppName, m.Environment}
		b, ok := buckets[k]
		if !ok {
			b = clientapi.MetricsBucket{Start: now, Stop: now, Toggles: map[string]clientapi.ToggleCount{}}
		}
		c := b.Toggles[m.FeatureName]
		c.Yes, c.No = satAdd(c.Yes, m.Yes), satAdd(c.No, m.No)
		for v, n := range m.Variants {
			if n < 0 {
				continue
			}
			if c.Variants == nil {
				c.Variants = map[string]int64{}
			}
			c.Variants[v] = satAdd(c.Variants[v], n)
		}
		b.Toggles[m.FeatureName] = c
		buckets[k] = b
	}
	for k, b := range buckets {
		if k.app == "" {
			p.usage.addBucket(b, known)
			continue
		}
		p.countReport(k.app, k.env, b, known)
	}
	w.WriteHeader(http.StatusAccepted)
}
