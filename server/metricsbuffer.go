package server

import (
	"context"
	"sync"
	"time"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/store"
)

// metricsBuffer aggregates client metrics in memory per feature,
// application, environment and hour, so that a burst of SDK reports costs
// one database write per flush rather than one per request.
type metricsBuffer struct {
	mu      sync.Mutex
	pending map[metricKey]*clientapi.ToggleCount
	seen    map[seenKey]time.Time
}

type metricKey struct {
	feature, app, env string
	hour              time.Time
}

type seenKey struct{ feature, env string }

// maxPendingMetrics bounds the buffer; past it the oldest hour is written
// first on the next flush and new keys still merge into existing ones.
const maxPendingMetrics = 200000

func newMetricsBuffer() *metricsBuffer {
	return &metricsBuffer{pending: map[metricKey]*clientapi.ToggleCount{}, seen: map[seenKey]time.Time{}}
}

func (s *Server) recordMetrics(m clientapi.Metrics, env string) {
	hour := timeOrNow(m.Bucket.Start, s.now).UTC().Truncate(time.Hour)
	stop := timeOrNow(m.Bucket.Stop, s.now)
	b := s.metrics
	b.mu.Lock()
	defer b.mu.Unlock()
	for name, c := range m.Bucket.Toggles {
		if c.Yes > 0 {
			s.usage.WithLabelValues(name, "true", m.AppName).Add(float64(c.Yes))
		}
		if c.No > 0 {
			s.usage.WithLabelValues(name, "false", m.AppName).Add(float64(c.No))
		}
		k := metricKey{feature: name, app: m.AppName, env: env, hour: hour}
		cur := b.pending[k]
		if cur == nil {
			if len(b.pending) >= maxPendingMetrics {
				continue // full: drop rather than grow without bound
			}
			cur = &clientapi.ToggleCount{}
			b.pending[k] = cur
		}
		cur.Add(c)
		if c.Yes+c.No > 0 {
			sk := seenKey{feature: name, env: env}
			if stop.After(b.seen[sk]) {
				b.seen[sk] = stop
			}
		}
	}
}

// FlushMetrics writes the buffered client metrics. On failure they go back
// into the buffer to be tried again.
func (s *Server) FlushMetrics(ctx context.Context) error {
	tokensSeen := s.takeSeenTokens()
	if len(tokensSeen) > 0 {
		hashes := make([]string, 0, len(tokensSeen))
		for h := range tokensSeen {
			hashes = append(hashes, h)
		}
		err := s.store.Update(ctx, func(tx store.Tx) error { return tx.MarkAPITokensSeen(ctx, hashes, s.now()) })
		if err != nil {
			s.log.Warn("recording token use failed", "err", err)
		}
	}
	b := s.metrics
	b.mu.Lock()
	pending, seen := b.pending, b.seen
	b.pending, b.seen = map[metricKey]*clientapi.ToggleCount{}, map[seenKey]time.Time{}
	b.mu.Unlock()
	if len(pending) == 0 && len(seen) == 0 {
		return nil
	}
	ms := make([]store.ClientMetric, 0, len(pending))
	for k, c := range pending {
		ms = append(ms, store.ClientMetric{Feature: k.feature, AppName: k.app, Environment: k.env, Hour: k.hour, Yes: c.Yes, No: c.No, Variants: c.Variants})
	}
	err := s.store.Update(ctx, func(tx store.Tx) error {
		if err := tx.AddClientMetrics(ctx, ms); err != nil {
			return err
		}
		for k, at := range seen {
			if err := tx.MarkFeaturesSeen(ctx, k.env, []string{k.feature}, at); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.mu.Lock()
		for k, c := range pending {
			if cur := b.pending[k]; cur != nil {
				cur.Add(*c)
			} else {
				b.pending[k] = c
			}
		}
		for k, t := range seen {
			if t.After(b.seen[k]) {
				b.seen[k] = t
			}
		}
		b.mu.Unlock()
	}
	return err
}
