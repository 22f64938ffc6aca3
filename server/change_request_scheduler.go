package server

// The scheduler applies Scheduled change requests when they are due. Its
// state is the store's (state Scheduled, schedule status pending), so a
// restarted server, or another instance sharing the database, picks up
// where the last one stopped; applying re-reads the request in the write
// transaction, so two instances never apply one request twice. A request
// that cannot be applied (a conflict, a change the data no longer allows)
// stays Scheduled with status failed and the reason, until someone
// reschedules, applies, rejects or cancels it. Errors of the database
// itself are only logged and retried on the next tick.

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// schedulerName is the creator of the events the scheduler records.
const schedulerName = "change-request-scheduler"

// startChangeRequestScheduler applies due requests now and then as often
// as the revision is polled (Config.RevisionPoll), until ctx ends. The
// returned function waits for the loop to stop.
func (s *Server) startChangeRequestScheduler(ctx context.Context) (wait func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(s.cfg.RevisionPoll)
		defer tick.Stop()
		for {
			if _, err := s.ApplyDueChangeRequests(ctx); err != nil && ctx.Err() == nil {
				s.log.Warn("applying scheduled change requests failed; retrying on the next tick", "err", err)
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return func() { <-done }
}

// ApplyDueChangeRequests applies every Scheduled change request whose time
// has come (by the server's clock), oldest first, each in its own
// transaction, and returns how many it applied. A request that fails is
// marked failed; the error returned is the first error of the database.
func (s *Server) ApplyDueChangeRequests(ctx context.Context) (int, error) {
	now := s.now()
	var due []store.ChangeRequest
	err := s.view(ctx, func(rd store.Reader) (err error) {
		due, err = rd.ListChangeRequests(ctx, store.ChangeRequestFilter{DueBy: &now})
		return err
	})
	if err != nil {
		return 0, err
	}
	slices.Reverse(due)
	ctx = withPrincipal(ctx, &Principal{Token: &store.APIToken{TokenName: schedulerName}})
	applied := 0
	for _, cr := range due {
		ok, err := s.applyScheduled(ctx, cr.ID, now)
		if err != nil {
			return applied, err
		}
		if ok {
			applied++
		}
	}
	return applied, nil
}

// applyScheduled applies request id if it is still due in the write
// transaction, and records a failure in a second one when it cannot be
// applied. It reports whether the request was applied.
func (s *Server) applyScheduled(ctx context.Context, id int, now time.Time) (bool, error) {
	applied := false
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		cr, ok, err := stillDue(ctx, tx, id, now)
		if !ok || err != nil {
			return nil, err
		}
		events, err := s.applyChangeRequest(ctx, tx, cr)
		if err != nil {
			return nil, err
		}
		after, err := tx.GetChangeRequest(ctx, id)
		if err != nil {
			return nil, err
		}
		applied = true
		return append(events,
			crEvent("change-request-scheduled-application-success", after, &cr),
			crEvent("scheduled-change-request-executed", after, &cr)), nil
	})
	var failure *apierr.Error
	if err == nil || !errors.As(err, &failure) || failure.Kind == apierr.Internal {
		return applied, err
	}
	err = s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		cr, ok, err := stillDue(ctx, tx, id, now)
		if !ok || err != nil {
			return nil, err
		}
		before := cr
		cr.Schedule.Status, cr.Schedule.FailureReason = store.ScheduleFailed, failure.Message
		failed, err := tx.UpdateChangeRequest(ctx, cr)
		if err != nil {
			return nil, err
		}
		return []store.Event{
			crEvent("change-request-scheduled-application-failure", failed, &before),
			crEvent("scheduled-change-request-executed", failed, &before),
		}, nil
	})
	if err == nil {
		s.log.Info("a scheduled change request could not be applied", "changeRequest", id, "reason", failure.Message)
	}
	return false, err
}

// stillDue re-reads request id in a transaction: it must still be
// Scheduled, pending and due at now.
func stillDue(ctx context.Context, tx store.Tx, id int, now time.Time) (store.ChangeRequest, bool, error) {
	cr, err := tx.GetChangeRequest(ctx, id)
	if apierr.Is(err, apierr.NotFound) {
		return cr, false, nil
	}
	ok := err == nil && cr.State == store.ChangeRequestScheduled && cr.Schedule != nil &&
		cr.Schedule.Status == store.SchedulePending && !now.Before(cr.Schedule.At)
	return cr, ok, err
}
