package server

// The actions a change request can hold, one per kind of flag change. Each is applied
// through the same function as the direct endpoint that makes the same
// change, so a change request can store nothing a direct edit would
// refuse, and records the same events.

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// crTarget is what a change applies to: the request's project
// environment and, for flag actions, the flag.
type crTarget struct {
	cr store.ChangeRequest
	featureEnvTarget
}

// crAction describes one action.
type crAction struct {
	// flag: the action changes a flag and the change must name it.
	flag bool
	// perm is what proposing the change needs (the permission of the direct
	// endpoint).
	perm Permission
	// snapshot returns the current state of what the change is about, for
	// conflict detection; nil for actions that a later edit elsewhere cannot
	// invalidate. NotFound means the target is gone.
	snapshot func(ctx context.Context, r store.Reader, t crTarget, payload json.RawMessage) (any, error)
	// moved describes the conflict when the snapshot no longer matches.
	moved string
	// apply makes the change and returns its events.
	apply func(s *Server, ctx context.Context, tx store.Tx, t crTarget, payload json.RawMessage) ([]store.Event, error)
}

// crActions are the actions by name.
var crActions = map[string]crAction{
	"updateEnabled": {flag: true, perm: PermUpdateFeatureEnvironment,
		apply: func(_ *Server, ctx context.Context, tx store.Tx, t crTarget, payload json.RawMessage) ([]store.Event, error) {
			var p struct {
				Enabled                          *bool `json:"enabled"`
				ShouldActivateDisabledStrategies bool  `json:"shouldActivateDisabledStrategies"`
			}
			if err := decodePayload(payload, &p); err != nil {
				return nil, err
			}
			if p.Enabled == nil {
				return nil, apierr.Invalid("payload.enabled", "enabled is required")
			}
			return switchEnvironment(ctx, tx, t.featureEnvTarget, *p.Enabled, p.ShouldActivateDisabledStrategies)
		}},
	"addStrategy": {flag: true, perm: PermCreateFeatureStrategy,
		apply: func(_ *Server, ctx context.Context, tx store.Tx, t crTarget, payload json.RawMessage) ([]store.Event, error) {
			var in strategyInput
			if err := decodePayload(payload, &in); err != nil {
				return nil, err
			}
			_, events, err := createStrategy(ctx, tx, t.featureEnvTarget, in)
			return events, err
		}},
	"updateStrategy": {flag: true, perm: PermUpdateFeatureStrategy, snapshot: strategySnapshot,
		moved: "the strategy was changed after this change was proposed",
		apply: func(_ *Server, ctx context.Context, tx store.Tx, t crTarget, payload json.RawMessage) ([]store.Event, error) {
			var in strategyInput
			id, err := payloadID(payload, &in, func() *string { return in.ID })
			if err != nil {
				return nil, err
			}
			_, events, err := updateStrategy(ctx, tx, t.featureEnvTarget, id, func(store.Strategy) (strategyInput, bool, error) {
				return in, false, nil
			})
			return events, err
		}},
	"deleteStrategy": {flag: true, perm: PermDeleteFeatureStrategy, snapshot: strategySnapshot,
		moved: "the strategy was changed after this change was proposed",
		apply: func(_ *Server, ctx context.Context, tx store.Tx, t crTarget, payload json.RawMessage) ([]store.Event, error) {
			id, err := strategyID(payload)
			if err != nil {
				return nil, err
			}
			return deleteStrategy(ctx, tx, t.featureEnvTarget, id)
		}},
	"archiveFeature": {flag: true, perm: PermDeleteFeature,
		apply: func(s *Server, ctx context.Context, tx store.Tx, t crTarget, _ json.RawMessage) ([]store.Event, error) {
			return s.archiveFeatures(ctx, tx, []store.Feature{t.feature})
		}},
	"patchVariant": {flag: true, perm: PermUpdateFeatureVariants,
		moved: "the variants were changed after this change was proposed",
		snapshot: func(ctx context.Context, r store.Reader, t crTarget, _ json.RawMessage) (any, error) {
			fe, err := r.GetFeatureEnvironment(ctx, t.feature.Name, t.env.Name)
			return variantViews(fe.Variants), err
		},
		apply: func(_ *Server, ctx context.Context, tx store.Tx, t crTarget, payload json.RawMessage) ([]store.Event, error) {
			var p struct {
				Variants *[]clientapi.Variant `json:"variants"`
			}
			if err := decodePayload(payload, &p); err != nil {
				return nil, err
			}
			if p.Variants == nil {
				return nil, apierr.Invalid("payload.variants", "variants is required")
			}
			_, e, err := setVariants(ctx, tx, t.feature, t.env.Name, func([]clientapi.Variant) ([]clientapi.Variant, error) {
				return *p.Variants, nil
			})
			if err != nil {
				return nil, err
			}
			return []store.Event{e}, nil
		}},
	"reorderStrategy": {flag: true, perm: PermUpdateFeatureStrategy,
		moved: "the strategies of the flag were added, removed or reordered after this change was proposed",
		snapshot: func(ctx context.Context, r store.Reader, t crTarget, _ json.RawMessage) (any, error) {
			list, err := r.ListStrategies(ctx, store.StrategyFilter{Feature: t.feature.Name, Environment: t.env.Name})
			return orderOf(list), err
		},
		apply: func(_ *Server, ctx context.Context, tx store.Tx, t crTarget, payload json.RawMessage) ([]store.Event, error) {
			var items []strategySortItem
			if err := decodePayload(payload, &items); err != nil {
				return nil, err
			}
			return reorderStrategies(ctx, tx, t.featureEnvTarget, items)
		}},
	"addDependency": {flag: true, perm: PermUpdateFeatureDependency, snapshot: dependencySnapshot,
		moved: "the flag's dependencies were changed after this change was proposed",
		apply: func(_ *Server, ctx context.Context, tx store.Tx, t crTarget, payload json.RawMessage) ([]store.Event, error) {
			var in dependencyInput
			if err := decodePayload(payload, &in); err != nil {
				return nil, err
			}
			return addDependency(ctx, tx, t.feature, in)
		}},
	"deleteDependency": {flag: true, perm: PermUpdateFeatureDependency, snapshot: dependencySnapshot,
		moved: "the flag's dependencies were changed after this change was proposed",
		apply: func(_ *Server, ctx context.Context, tx store.Tx, t crTarget, payload json.RawMessage) ([]store.Event, error) {
			// Without a payload every dependency goes (the UI's "delete
			// dependency", one parent being the rule); {"feature": parent}
			// removes that one.
			var p struct {
				Feature string `json:"feature"`
			}
			if !emptyPayload(payload) {
				if err := decodeDoc(payload, &p); err != nil {
					return nil, err
				}
			}
			if p.Feature == "" {
				return removeDependencies(ctx, tx, t.feature)
			}
			return deleteDependency(ctx, tx, t.feature, p.Feature)
		}},
	"updateSegment": {perm: PermUpdateSegment, snapshot: segmentSnapshot,
		moved: "the segment was changed after this change was proposed",
		apply: func(_ *Server, ctx context.Context, tx store.Tx, _ crTarget, payload json.RawMessage) ([]store.Event, error) {
			var p struct {
				ID *int `json:"id"`
				segmentBody
			}
			if err := decodePayload(payload, &p); err != nil {
				return nil, err
			}
			if p.ID == nil {
				return nil, apierr.Invalid("payload.id", "id, the segment to update, is required")
			}
			return updateSegment(ctx, tx, *p.ID, p.segmentBody)
		}},
	"deleteSegment": {perm: PermDeleteSegment, snapshot: segmentSnapshot,
		moved: "the segment was changed after this change was proposed",
		apply: func(_ *Server, ctx context.Context, tx store.Tx, _ crTarget, payload json.RawMessage) ([]store.Event, error) {
			id, err := segmentID(payload)
			if err != nil {
				return nil, err
			}
			return deleteSegment(ctx, tx, id)
		}},
}

// crActionNames lists the actions for messages, in a stable order.
const crActionNames = "updateSegment, deleteSegment, updateEnabled, addStrategy, updateStrategy, deleteStrategy, " +
	"archiveFeature, patchVariant, reorderStrategy, addDependency, deleteDependency"

func emptyPayload(raw json.RawMessage) bool {
	return len(raw) == 0 || string(raw) == "null"
}

// decodePayload decodes a required payload.
func decodePayload(raw json.RawMessage, dst any) error {
	if emptyPayload(raw) {
		return apierr.Invalid("payload", "payload is required for this action")
	}
	return decodeDoc(raw, dst)
}

// payloadID decodes payload into dst and returns the strategy id that id
// reads from it.
func payloadID(payload json.RawMessage, dst any, id func() *string) (string, error) {
	if err := decodePayload(payload, dst); err != nil {
		return "", err
	}
	if p := id(); p != nil && *p != "" {
		return *p, nil
	}
	return "", apierr.Invalid("payload.id", "id, the strategy to change, is required")
}

func strategyID(payload json.RawMessage) (string, error) {
	var p struct {
		ID *string `json:"id"`
	}
	return payloadID(payload, &p, func() *string { return p.ID })
}

func segmentID(payload json.RawMessage) (int, error) {
	var p struct {
		ID *int `json:"id"`
	}
	if err := decodePayload(payload, &p); err != nil {
		return 0, err
	}
	if p.ID == nil {
		return 0, apierr.Invalid("payload.id", "id, the segment to change, is required")
	}
	return *p.ID, nil
}

func strategySnapshot(ctx context.Context, r store.Reader, t crTarget, payload json.RawMessage) (any, error) {
	id, err := strategyID(payload)
	if err != nil {
		return nil, err
	}
	st, err := strategyFor(ctx, r, t.featureEnvTarget, id)
	return strategyView(st), err
}

func dependencySnapshot(ctx context.Context, r store.Reader, t crTarget, _ json.RawMessage) (any, error) {
	deps, err := r.ListDependencies(ctx, t.feature.Name)
	views := make([]adminDependency, 0, len(deps))
	for _, d := range deps {
		views = append(views, dependencyView(d))
	}
	return views, err
}

// segmentSnapshot reads the segment of a segment change, which must be
// usable in the request's project.
func segmentSnapshot(ctx context.Context, r store.Reader, t crTarget, payload json.RawMessage) (any, error) {
	id, err := segmentID(payload)
	if err != nil {
		return nil, err
	}
	sg, err := r.GetSegment(ctx, id)
	if err != nil {
		return nil, err
	}
	if sg.Project != "" && sg.Project != t.cr.Project {
		return nil, apierr.Invalid("payload.id", "segment %d belongs to project %s, not %s", id, sg.Project, t.cr.Project)
	}
	return segmentResponse(sg), nil
}

// crTargetOf resolves what change c of cr applies to. For flag actions the
// flag must be an active flag of the request's project and the
// environment enabled for it (NotFound otherwise).
func crTargetOf(ctx context.Context, r store.Reader, cr store.ChangeRequest, c store.Change) (crTarget, error) {
	a, ok := crActions[c.Action]
	if !ok {
		return crTarget{}, apierr.Invalid("action", "action %q is not one of %s", c.Action, crActionNames)
	}
	t := crTarget{cr: cr}
	if !a.flag {
		return t, nil
	}
	if c.Feature == "" {
		return t, apierr.Invalid("feature", "feature, the flag that %s applies to, is required", c.Action)
	}
	f, err := projectFeature(ctx, r, cr.Project, c.Feature)
	if err != nil {
		return t, err
	}
	e, pe, err := projectEnvironment(ctx, r, cr.Project, cr.Environment)
	t.featureEnvTarget = featureEnvTarget{feature: f, env: e, pe: pe}
	return t, err
}

// snapshotOf returns the snapshot of change c as it is now, nil for
// actions without one.
func snapshotOf(ctx context.Context, r store.Reader, t crTarget, c store.Change) (json.RawMessage, error) {
	a := crActions[c.Action]
	if a.snapshot == nil {
		return nil, nil
	}
	v, err := a.snapshot(ctx, r, t, c.Payload)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(v)
	return b, err
}

// applyChange applies change c of cr.
func (s *Server) applyChange(ctx context.Context, tx store.Tx, cr store.ChangeRequest, c store.Change) ([]store.Event, error) {
	t, err := crTargetOf(ctx, tx, cr, c)
	if err != nil {
		return nil, err
	}
	return crActions[c.Action].apply(s, ctx, tx, t, c.Payload)
}

// changeConflict says why change c of cr can no longer be applied as it
// was proposed: its flag or environment is gone, or its target changed
// since (the snapshot no longer matches). "" means no conflict.
func changeConflict(ctx context.Context, r store.Reader, cr store.ChangeRequest, c store.Change) (string, error) {
	t, err := crTargetOf(ctx, r, cr, c)
	if err == nil {
		var now json.RawMessage
		if now, err = snapshotOf(ctx, r, t, c); err == nil {
			if !sameJSONValue(now, c.Snapshot) {
				return crActions[c.Action].moved, nil
			}
			return "", nil
		}
	}
	return conflictMessage(err)
}

// conflictMessage turns an error about a change's target into the text of
// its conflict; internal errors stay errors.
func conflictMessage(err error) (string, error) {
	var e *apierr.Error
	if errors.As(err, &e) && e.Kind != apierr.Internal {
		return e.Message, nil
	}
	return "", err
}

// sameJSONValue compares two JSON documents as values; empty ones are
// equal to each other only.
func sameJSONValue(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
