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
		Yes         int64            `json:"yes"`
		No          int64            `json:"no"`
		Variants    map[string]int64 `json:"variants"`
	} `json:"metrics"`
}

// maxBulkItems bounds the applications and the metrics of one request.
const maxBulkItems = 10000

// serveBulk takes a downstream node's report into the scope's usage, which
// the scope uploads with its own; names outside the scope are bounded as
// the proxy bounds those of browser SDKs.
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
	for _, reg := range body.Applications {
		sc.p.regs.add(reg)
	}
	now := time.Now()
	b := clientapi.MetricsBucket{Start: now, Stop: now, Toggles: map[string]clientapi.ToggleCount{}}
	for _, m := range body.Metrics {
		if m.FeatureName == "" || m.Yes < 0 || m.No < 0 {
			continue
		}
		c := b.Toggles[m.FeatureName]
		c.Add(clientapi.ToggleCount{Yes: m.Yes, No: m.No, Variants: m.Variants})
		b.Toggles[m.FeatureName] = c
	}
	known := func(string) bool { return false }
	if st := sc.p.state.Load(); st != nil {
		known = st.snap.Has
	}
	sc.p.usage.addBucket(b, known)
	w.WriteHeader(http.StatusAccepted)
}
