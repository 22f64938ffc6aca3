package server

import (
	"net/http"
	"time"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// Edge-style nodes send what the SDKs behind them reported in one request:
// the registrations and per-flag counts of many applications. Each is taken
// as if its SDK had sent it with the node's token, through the same bounds.

// maxBulkItems bounds the applications and the metrics of one request.
const maxBulkItems = 10000

type bulkMetric struct {
	FeatureName string           `json:"featureName"`
	AppName     string           `json:"appName"`
	Environment string           `json:"environment"`
	Timestamp   *time.Time       `json:"timestamp"`
	Yes         int64            `json:"yes"`
	No          int64            `json:"no"`
	Variants    map[string]int64 `json:"variants"`
}

func (s *Server) handleClientBulkMetrics(w http.ResponseWriter, r *http.Request, tok *store.APIToken) error {
	var body struct {
		Applications *[]clientapi.Registration `json:"applications"`
		Metrics      *[]bulkMetric             `json:"metrics"`
	}
	if err := decode(w, r, &body); err != nil {
		return err
	}
	if body.Applications == nil || body.Metrics == nil {
		return apierr.Invalid("metrics", "applications and metrics are required (either may be an empty list)")
	}
	if len(*body.Applications) > maxBulkItems || len(*body.Metrics) > maxBulkItems {
		return apierr.Invalid("metrics", "at most %d applications and %d metrics in one request", maxBulkItems, maxBulkItems)
	}
	for _, reg := range *body.Applications {
		if err := s.register(r, tok, reg); err != nil {
			return err
		}
	}
	// One report per application and environment, as its SDK would send.
	type key struct{ app, env string }
	reports := map[key]*clientapi.Metrics{}
	now := s.now()
	for _, m := range *body.Metrics {
		if m.FeatureName == "" {
			return apierr.Invalid("metrics", "every metric needs a featureName")
		}
		k := key{m.AppName, m.Environment}
		rep := reports[k]
		if rep == nil {
			rep = &clientapi.Metrics{AppName: m.AppName, InstanceID: "bulk", Environment: m.Environment,
				Bucket: clientapi.MetricsBucket{Start: now, Stop: now, Toggles: map[string]clientapi.ToggleCount{}}}
			reports[k] = rep
		}
		if m.Timestamp != nil && m.Timestamp.Before(rep.Bucket.Start) {
			rep.Bucket.Start = *m.Timestamp
		}
		c := rep.Bucket.Toggles[m.FeatureName]
		c.Add(clientapi.ToggleCount{Yes: m.Yes, No: m.No, Variants: m.Variants})
		rep.Bucket.Toggles[m.FeatureName] = c
	}
	for _, rep := range reports {
		if err := s.acceptMetrics(r, tok, *rep); err != nil {
			return err
		}
	}
	w.WriteHeader(http.StatusAccepted)
	return nil
}
