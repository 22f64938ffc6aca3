package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// Addon delivery is an outbox: the audit log is the queue's source. Each
// instance's worker moves a shared cursor over new events and queues one
// delivery per matching addon and event (in one Update, so no event is
// queued twice or skipped, whichever instance gets there), then claims due
// deliveries one at a time and sends them. A claim lasts longer than a
// request may, so no two instances send the same delivery while its
// sender lives; if the sender dies, the claim expires and the delivery is
// sent again: receivers may see an event twice then, never lose it.

// Delivery limits.
const (
	// addonMaxAttempts bounds the tries of one delivery.
	addonMaxAttempts = 5
	// addonRetryBase is the wait after the first failed attempt; it
	// doubles with each further one.
	addonRetryBase = 2 * time.Second
	// addonClaim is how long a sender holds a delivery: well beyond one
	// request's timeout.
	addonClaim = 4 * webhookTimeout
	// addonQueueBatch is how many events one Update queues.
	addonQueueBatch = 500
)

// addonSender holds what the worker needs beyond the Server.
type addonSender struct {
	// policy says where webhooks may go (addons_egress.go).
	policy    egressPolicy
	client    *http.Client
	retryBase time.Duration
}

func newAddonSender(policy egressPolicy) *addonSender {
	return &addonSender{policy: policy, client: newWebhookClient(policy), retryBase: addonRetryBase}
}

// startAddonWorker, started by Run, delivers addon events every revision
// poll until ctx ends; the returned function waits for the worker to stop.
func (s *Server) startAddonWorker(ctx context.Context) func() {
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(s.cfg.RevisionPoll)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				if err := s.deliverAddons(ctx); err != nil && !errors.Is(err, context.Canceled) {
					s.log.Warn("addon delivery failed; it is tried again", "err", err)
				}
			}
		}
	}()
	return func() { <-done }
}

// deliverAddons queues the deliveries of new events, then sends every
// delivery that is due, until none is. Without addons it only moves the
// cursor, and claims nothing.
func (s *Server) deliverAddons(ctx context.Context) error {
	some, err := s.queueAddonDeliveries(ctx)
	if err != nil || !some {
		return err
	}
	for ctx.Err() == nil {
		sent, err := s.sendNextAddonDelivery(ctx)
		if err != nil || !sent {
			return err
		}
	}
	return ctx.Err()
}

// queueAddonDeliveries moves the cursor over the events after it and
// reports whether there are addons.
func (s *Server) queueAddonDeliveries(ctx context.Context) (bool, error) {
	for {
		var (
			cursor, rev int64
			addons      []store.Addon
		)
		err := s.view(ctx, func(rd store.Reader) (err error) {
			if cursor, err = rd.AddonCursor(ctx); err != nil {
				return err
			}
			if rev, err = rd.Revision(ctx); err != nil {
				return err
			}
			addons, err = rd.ListAddons(ctx)
			return err
		})
		if err != nil || cursor >= rev {
			return len(addons) > 0, err
		}
		more := false
		err = s.store.Update(ctx, func(tx store.Tx) error {
			// Read again: another instance may have moved the cursor, or
			// changed the addons.
			addons, err = tx.ListAddons(ctx)
			if err != nil {
				return err
			}
			if len(addons) == 0 {
				// Nothing to send: skip to the newest event. An addon
				// created later gets only the events after it anyway.
				rev, err := tx.Revision(ctx)
				if err != nil {
					return err
				}
				return tx.QueueAddonDeliveries(ctx, rev, nil)
			}
			cursor, err := tx.AddonCursor(ctx)
			if err != nil {
				return err
			}
			events, err := tx.ListEvents(ctx, store.EventFilter{AfterID: cursor, Ascending: true, Limit: addonQueueBatch})
			if err != nil || len(events) == 0 {
				return err
			}
			var ds []store.AddonDelivery
			now := s.now()
			for _, e := range events {
				for _, a := range addons {
					if addonWants(a, e) {
						ds = append(ds, store.AddonDelivery{AddonID: a.ID, EventID: e.ID, NextAttemptAt: now})
					}
				}
			}
			more = len(events) == addonQueueBatch
			return tx.QueueAddonDeliveries(ctx, events[len(events)-1].ID, ds)
		})
		if err != nil || !more {
			return len(addons) > 0, err
		}
	}
}

// addonWants tells whether addon a is to get event e, with Unleash's
// rules: an empty list of projects or environments, or one holding "*",
// does not filter; otherwise events without a project (environment) are
// not sent.
func addonWants(a store.Addon, e store.Event) bool {
	return a.Enabled && e.ID > a.SinceEventID && slices.Contains(a.Events, e.Type) &&
		addonListAllows(a.Projects, e.Project) && addonListAllows(a.Environments, e.Environment)
}

func addonListAllows(list []string, v string) bool {
	return len(list) == 0 || slices.Contains(list, "*") || (v != "" && slices.Contains(list, v))
}

// sendNextAddonDelivery claims one due delivery, sends it and records the
// outcome; false when none was due.
func (s *Server) sendNextAddonDelivery(ctx context.Context) (bool, error) {
	var (
		d     store.AddonDelivery
		found bool
		addon store.Addon
		event store.Event
	)
	now := s.now()
	err := s.store.Update(ctx, func(tx store.Tx) error {
		var err error
		d, found, err = tx.ClaimAddonDelivery(ctx, now, now.Add(addonClaim))
		if err != nil || !found {
			return err
		}
		if addon, err = tx.GetAddon(ctx, d.AddonID); err != nil {
			return err
		}
		event, err = tx.GetEvent(ctx, d.EventID)
		return err
	})
	if err != nil || !found {
		return false, err
	}
	out := s.attemptAddonDelivery(ctx, addon, event)
	d.StatusCode, d.LastError = out.status, out.err
	switch {
	case out.err == "":
		d.State = store.DeliverySuccess
	case out.retry && d.Attempts < addonMaxAttempts:
		d.State = store.DeliveryPending
		d.NextAttemptAt = s.now().Add(s.addons.retryBase << (d.Attempts - 1))
	default:
		d.State = store.DeliveryFailed
	}
	if d.State != store.DeliverySuccess {
		attrs := []any{"addon", addon.ID, "event", event.ID, "attempt", d.Attempts, "state", d.State, "err", d.LastError}
		if out.cause != nil {
			attrs = append(attrs, "cause", out.cause.Error())
		}
		s.log.Warn("addon delivery attempt failed", attrs...)
	}
	err = s.store.Update(ctx, func(tx store.Tx) error { return tx.FinishAddonDelivery(ctx, d) })
	if apierr.Is(err, apierr.NotFound) {
		// The addon was deleted meanwhile, or the claim expired and another
		// sender holds the delivery now: its outcome counts.
		return true, nil
	}
	return err == nil, err
}

// attemptAddonDelivery sends event to addon once.
func (s *Server) attemptAddonDelivery(ctx context.Context, addon store.Addon, event store.Event) webhookOutcome {
	if !addon.Enabled {
		return webhookOutcome{err: "The addon was disabled before the event was sent"}
	}
	if addon.Provider != webhookProvider.Name {
		return webhookOutcome{err: "There is no addon provider " + addon.Provider}
	}
	var params map[string]string
	if err := json.Unmarshal(addon.Parameters, &params); err != nil {
		return webhookOutcome{err: "The addon's parameters cannot be read"}
	}
	body, err := webhookBody(params["bodyTemplate"], event)
	if err != nil {
		return webhookOutcome{err: err.Error()}
	}
	return sendWebhook(ctx, s.addons.client, params, body)
}

// webhookBody is the event as the events API shows it, or the template
// rendered over {event, eventJson}.
func webhookBody(tpl string, e store.Event) ([]byte, error) {
	ev, err := json.Marshal(eventResponse(e))
	if err != nil {
		return nil, err
	}
	if tpl == "" {
		return ev, nil
	}
	nodes, err := parseMustache(tpl)
	if err != nil {
		return nil, errors.New("the body template is not valid: " + err.Error())
	}
	var data any
	if err := json.Unmarshal(ev, &data); err != nil {
		return nil, err
	}
	out, err := renderMustache(nodes, map[string]any{"event": data, "eventJson": string(ev)})
	if err != nil {
		return nil, err
	}
	return []byte(out), nil
}
