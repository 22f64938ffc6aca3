package server

import (
	"context"
	"errors"
	"time"

	"github.com/signalbox/signalbox/store"
)

// Retention of client data (Config.MetricsRetention sets the hourly one).
const (
	// DefaultMetricsRetention is how long hourly client metrics are kept
	// by default.
	DefaultMetricsRetention = 48 * time.Hour
	// DailyMetricsRetention is how long the daily roll-up of older hours
	// is kept: what usage charts over longer periods read.
	DailyMetricsRetention = 90 * 24 * time.Hour
	// InstanceRetention is how long an SDK instance is kept after it was
	// last seen; an application SDKs created goes with its last instance.
	InstanceRetention = 7 * 24 * time.Hour
	// retentionEvery is how often each server applies the retention; the
	// first run is retentionFirst after start. Every server runs it: the
	// store's deletes are idempotent.
	retentionEvery = time.Hour
	retentionFirst = time.Minute
	// maxPruneCalls bounds one run: each call rolls up one hour, so a
	// backlog of 90 days is worked off in a few runs.
	maxPruneCalls = 24 * 30
)

// startRetentionWorker applies the retention of client data periodically
// until ctx ends; the returned function waits for it to stop.
func (s *Server) startRetentionWorker(ctx context.Context) func() {
	done := make(chan struct{})
	go func() {
		defer close(done)
		timer := time.NewTimer(retentionFirst)
		defer timer.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-timer.C:
			}
			if _, err := s.PruneClientData(ctx); err != nil && !errors.Is(err, context.Canceled) {
				s.log.Warn("applying the retention of client metrics failed", "err", err)
			}
			timer.Reset(retentionEvery)
		}
	}()
	return func() { <-done }
}

// PruneClientData applies the retention once: hourly metrics older than
// Config.MetricsRetention are rolled up into daily totals and deleted,
// daily totals older than DailyMetricsRetention deleted, instances not seen
// for InstanceRetention deleted with the applications SDKs created that
// have no instance left. Each hour rolled up is a short transaction of its
// own.
func (s *Server) PruneClientData(ctx context.Context) (store.PruneReport, error) {
	r := store.ClientRetention{
		Now: s.now(), Hourly: s.cfg.MetricsRetention, Daily: DailyMetricsRetention, Instances: InstanceRetention,
	}
	var total store.PruneReport
	for range maxPruneCalls {
		var rep store.PruneReport
		err := s.store.Operate(ctx, func(op store.Op) error {
			var err error
			rep, err = op.PruneClientData(ctx, r)
			return err
		})
		if err != nil {
			return total, err
		}
		total.Hours += rep.Hours
		total.Days += rep.Days
		total.Instances += rep.Instances
		total.Applications += rep.Applications
		total.More = rep.More
		if !rep.More {
			break
		}
	}
	return total, nil
}
