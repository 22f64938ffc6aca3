package server

// Activation strategies of a flag in one environment: list, add, read,
// replace (PUT), patch (RFC 6902), delete and reorder. Every strategy that
// is saved goes through the same validation, so a PATCH can never store
// what a PUT would refuse.

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

const strategiesPath = featureEnvPath + "/strategies"

func registerStrategies(s *Server, m mux) {
	m.admin("GET "+strategiesPath, PermRead, s.handleListStrategies)
	m.admin("POST "+strategiesPath, PermCreateFeatureStrategy, s.handleCreateStrategy)
	m.admin("POST "+strategiesPath+"/set-sort-order", PermUpdateFeatureStrategy, s.handleSetStrategySortOrder)
	m.admin("GET "+strategiesPath+"/{strategyId}", PermRead, s.handleGetStrategy)
	m.admin("PUT "+strategiesPath+"/{strategyId}", PermUpdateFeatureStrategy, s.handleUpdateStrategy)
	m.admin("PATCH "+strategiesPath+"/{strategyId}", PermUpdateFeatureStrategy, s.handlePatchStrategy)
	m.admin("DELETE "+strategiesPath+"/{strategyId}", PermDeleteFeatureStrategy, s.handleDeleteStrategy)
}

// adminStrategy is a strategy as the admin API answers it
// (featureStrategySchema). It is also the document PATCH operations apply
// to, which is why title is null rather than absent when empty: a
// "replace" of /title then works as clients expect.
type adminStrategy struct {
	ID          string                 `json:"id"`
	Name        string                 `json:"name"`
	Title       *string                `json:"title"`
	Disabled    bool                   `json:"disabled"`
	FeatureName string                 `json:"featureName"`
	SortOrder   int                    `json:"sortOrder"`
	Segments    []int                  `json:"segments"`
	Constraints []clientapi.Constraint `json:"constraints"`
	Variants    []clientapi.Variant    `json:"variants"`
	Parameters  clientapi.Parameters   `json:"parameters"`
}

func strategyView(st store.Strategy) adminStrategy {
	v := adminStrategy{
		ID: st.ID, Name: st.Name, Disabled: st.Disabled, FeatureName: st.Feature, SortOrder: st.SortOrder,
		Segments: nonNilList(st.Segments), Constraints: nonNilList(st.Constraints),
		Variants: nonNilList(st.Variants), Parameters: st.Parameters,
	}
	if v.Parameters == nil {
		v.Parameters = clientapi.Parameters{}
	}
	if st.Title != "" {
		title := st.Title
		v.Title = &title
	}
	return v
}

func strategyEvent(typ string, f store.Feature, env string, data, preData any) store.Event {
	return store.Event{Type: typ, Project: f.Project, Environment: env, FeatureName: f.Name,
		Data: eventData(data), PreData: eventData(preData)}
}

// strategyInput is the body of POST, PUT and (after patching) PATCH. A nil
// field was not sent.
type strategyInput struct {
	ID          *string                 `json:"id"`
	FeatureName *string                 `json:"featureName"`
	Name        *string                 `json:"name"`
	Title       *string                 `json:"title"`
	Disabled    *bool                   `json:"disabled"`
	SortOrder   *float64                `json:"sortOrder"`
	Parameters  clientapi.Parameters    `json:"parameters"`
	Constraints *[]clientapi.Constraint `json:"constraints"`
	Variants    *[]clientapi.Variant    `json:"variants"`
	Segments    *[]int                  `json:"segments"`
}

// applyTo returns st with the input's fields. With full, fields not sent
// become empty (create, and PATCH, whose document holds every field);
// otherwise they keep their value (PUT changes only what it sends, like
// PUT on a flag).
func (in strategyInput) applyTo(st store.Strategy, full bool) (store.Strategy, error) {
	if in.Name != nil || full {
		st.Name = deref(in.Name)
	}
	if in.Title != nil || full {
		st.Title = deref(in.Title)
	}
	if in.Disabled != nil || full {
		st.Disabled = deref(in.Disabled)
	}
	if in.SortOrder != nil {
		o := *in.SortOrder
		if o != math.Trunc(o) || math.Abs(o) > 1e9 {
			return st, apierr.Invalid("sortOrder", "sortOrder must be a whole number")
		}
		st.SortOrder = int(o)
	} else if full {
		st.SortOrder = 0
	}
	if in.Parameters != nil || full {
		st.Parameters = cloneParameters(in.Parameters)
	}
	if in.Constraints != nil || full {
		st.Constraints = derefList(in.Constraints)
	}
	if in.Variants != nil || full {
		st.Variants = derefList(in.Variants)
	}
	if in.Segments != nil || full {
		st.Segments = derefList(in.Segments)
	}
	return st, nil
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func derefList[T any](p *[]T) []T {
	if p == nil || *p == nil {
		return []T{}
	}
	return *p
}

// checkStrategy validates st for feature f and normalizes it: the strategy
// type must be defined, rollout percentages in range, constraints usable,
// segments existing and visible to the project, and variants valid (their
// weights are recomputed).
func checkStrategy(ctx context.Context, r store.Reader, f store.Feature, st *store.Strategy) error {
	if st.Name == "" {
		return apierr.Invalid("name", "name is required: the strategy type, such as flexibleRollout")
	}
	if err := checkText("title", st.Title, maxStrategyTitle); err != nil {
		return err
	}
	if _, err := r.GetStrategyDefinition(ctx, st.Name); apierr.Is(err, apierr.NotFound) {
		return apierr.Invalid("name", "there is no strategy type named %q; see /api/admin/strategies", st.Name)
	} else if err != nil {
		return err
	}
	if err := checkStrategyParameters(st); err != nil {
		return err
	}
	fillGroupID(st, f.Name)
	constraints, err := checkFlagConstraints(ctx, r, "constraints", st.Constraints)
	if err != nil {
		return err
	}
	st.Constraints = constraints
	if st.Segments, err = checkSegmentRefs(ctx, r, f.Project, st.Segments); err != nil {
		return err
	}
	st.Variants, err = normalizeVariants("variants", st.Variants, true)
	return err
}

// maxStrategyTitle bounds a strategy's title, as a default strategy's.
const maxStrategyTitle = 255

// percentParameters names the parameters of built-in strategies that hold
// a percentage.
var percentParameters = map[string]string{
	"flexibleRollout": "rollout", "gradualRolloutUserId": "percentage",
	"gradualRolloutSessionId": "percentage", "gradualRolloutRandom": "percentage",
}

func checkStrategyParameters(st *store.Strategy) error {
	if st.Parameters == nil {
		st.Parameters = clientapi.Parameters{}
	}
	if err := checkParametersText("parameters", st.Parameters); err != nil {
		return err
	}
	if v, ok := st.Parameters["stickiness"]; ok && v == "" {
		st.Parameters["stickiness"] = "default" // as Unleash does
	}
	if p := percentParameters[st.Name]; p != "" {
		if v, ok := st.Parameters[p]; ok {
			n, err := strconv.ParseFloat(v, 64)
			if err != nil || n < 0 || n > 100 {
				return apierr.Invalid("parameters."+p, "%s must be a number from 0 to 100, not %q", p, v)
			}
		}
	}
	return nil
}

// checkParametersText refuses strategy parameters with a NUL character in
// a name or a value, which PostgreSQL cannot store. Values are not bounded
// here beyond the body size: lists of user ids can be long.
func checkParametersText(path string, params clientapi.Parameters) error {
	for k, v := range params {
		if strings.ContainsRune(k, 0) {
			return apierr.Invalid(path, "the names of %s must not contain NUL characters", path)
		}
		if strings.ContainsRune(v, 0) {
			return apierr.Invalid(path+"."+k, "%s.%s must not contain NUL characters", path, k)
		}
	}
	return nil
}

// fillGroupID gives a flexibleRollout without groupId, or with an empty
// one, the flag's name as group, as Unleash stores it: SDKs hash
// "groupId:identifier", so a strategy saved with an empty group would
// bucket users differently from the same strategy saved by Unleash (and
// from what SDKs that fall back to the flag name compute). The deprecated
// gradualRollout* strategies keep what they are given, as in Unleash.
func fillGroupID(st *store.Strategy, flag string) {
	if st.Name == "flexibleRollout" && st.Parameters["groupId"] == "" {
		st.Parameters["groupId"] = flag
	}
}

// checkSegmentRefs checks that every segment exists and belongs to the
// project or to no project, and returns the ids sorted without duplicates.
func checkSegmentRefs(ctx context.Context, r store.Reader, project string, ids []int) ([]int, error) {
	out := []int{}
	for i, id := range ids {
		seg, err := r.GetSegment(ctx, id)
		if apierr.Is(err, apierr.NotFound) {
			return nil, apierr.Invalid("segments["+strconv.Itoa(i)+"]", "there is no segment with id %d", id)
		} else if err != nil {
			return nil, err
		}
		if seg.Project != "" && seg.Project != project {
			return nil, apierr.Invalid("segments["+strconv.Itoa(i)+"]", "segment %d belongs to project %s, not %s", id, seg.Project, project)
		}
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out, nil
}

// strategyFor reads a strategy of the target flag environment; a strategy
// of another flag or environment is NotFound too.
func strategyFor(ctx context.Context, r store.Reader, t featureEnvTarget, id string) (store.Strategy, error) {
	st, err := r.GetStrategy(ctx, id)
	if apierr.Is(err, apierr.NotFound) || (err == nil && (st.Feature != t.feature.Name || st.Environment != t.env.Name)) {
		return st, apierr.New(apierr.NotFound, "feature flag %s has no strategy %s in environment %s", t.feature.Name, id, t.env.Name)
	}
	return st, err
}

// nextSortOrder puts a new strategy after the existing ones.
func nextSortOrder(existing []store.Strategy) int {
	next := 0
	for _, st := range existing {
		next = max(next, st.SortOrder+1)
	}
	return next
}

func (s *Server) handleListStrategies(w http.ResponseWriter, r *http.Request) error {
	views := []adminStrategy{}
	err := s.view(r.Context(), func(rd store.Reader) error {
		t, err := pathFeatureEnv(r, rd)
		if err != nil {
			return err
		}
		list, err := rd.ListStrategies(r.Context(), store.StrategyFilter{Feature: t.feature.Name, Environment: t.env.Name})
		for _, st := range list {
			views = append(views, strategyView(st))
		}
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, views)
}

func (s *Server) handleGetStrategy(w http.ResponseWriter, r *http.Request) error {
	var st store.Strategy
	err := s.view(r.Context(), func(rd store.Reader) error {
		t, err := pathFeatureEnv(r, rd)
		if err != nil {
			return err
		}
		st, err = strategyFor(r.Context(), rd, t, r.PathValue("strategyId"))
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, strategyView(st))
}

func (s *Server) handleCreateStrategy(w http.ResponseWriter, r *http.Request) error {
	var in strategyInput
	if err := decode(w, r, &in); err != nil {
		return err
	}
	ctx := r.Context()
	var saved store.Strategy
	err := s.change(ctx, func(tx store.Tx) (events []store.Event, err error) {
		t, err := editableFeatureEnv(r, tx)
		if err != nil {
			return nil, err
		}
		saved, events, err = createStrategy(ctx, tx, t, in)
		return events, err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, strategyView(saved))
}

// createStrategy adds the strategy in to a flag environment, after the
// existing ones unless in has a sortOrder.
func createStrategy(ctx context.Context, tx store.Tx, t featureEnvTarget, in strategyInput) (store.Strategy, []store.Event, error) {
	st, err := in.applyTo(store.Strategy{Feature: t.feature.Name, Environment: t.env.Name}, true)
	if err != nil {
		return st, nil, err
	}
	if in.SortOrder == nil {
		existing, err := tx.ListStrategies(ctx, store.StrategyFilter{Feature: t.feature.Name, Environment: t.env.Name})
		if err != nil {
			return st, nil, err
		}
		st.SortOrder = nextSortOrder(existing)
	}
	if err := checkStrategy(ctx, tx, t.feature, &st); err != nil {
		return st, nil, err
	}
	saved, err := tx.CreateStrategy(ctx, st)
	if err != nil {
		return saved, nil, err
	}
	return saved, []store.Event{strategyEvent("feature-strategy-add", t.feature, t.env.Name, strategyView(saved), nil)}, nil
}

func (s *Server) handleUpdateStrategy(w http.ResponseWriter, r *http.Request) error {
	var in strategyInput
	if err := decode(w, r, &in); err != nil {
		return err
	}
	return s.saveStrategy(w, r, func(store.Strategy) (strategyInput, bool, error) { return in, false, nil })
}

// handlePatchStrategy applies RFC 6902 operations to the strategy's admin
// document and saves the result as if it had been PUT in full. A patch that
// cannot be applied, such as a replace of a missing path, is a 400 (Unleash
// answers 500 there).
func (s *Server) handlePatchStrategy(w http.ResponseWriter, r *http.Request) error {
	ops, err := decodePatchBody(w, r)
	if err != nil {
		return err
	}
	return s.saveStrategy(w, r, func(st store.Strategy) (strategyInput, bool, error) {
		var in strategyInput
		if err := applyPatchTo(ops, strategyView(st), &in); err != nil {
			return in, true, err
		}
		if in.ID == nil || *in.ID != st.ID {
			return in, true, apierr.Invalid("id", "a strategy's id cannot change")
		}
		if in.FeatureName == nil || *in.FeatureName != st.Feature {
			return in, true, apierr.Invalid("featureName", "a strategy cannot move to another feature flag")
		}
		return in, true, nil
	})
}

// saveStrategy updates the strategy named by the path with what input
// returns (and whether it is a full document). When the change leaves the
// environment without an enabled strategy, the flag is switched off there.
func (s *Server) saveStrategy(w http.ResponseWriter, r *http.Request, input func(store.Strategy) (strategyInput, bool, error)) error {
	ctx := r.Context()
	var saved store.Strategy
	err := s.change(ctx, func(tx store.Tx) (events []store.Event, err error) {
		t, err := editableFeatureEnv(r, tx)
		if err != nil {
			return nil, err
		}
		saved, events, err = updateStrategy(ctx, tx, t, r.PathValue("strategyId"), input)
		return events, err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, strategyView(saved))
}

// updateStrategy saves strategy id of a flag environment with what input
// returns for it (and whether that is a full document).
func updateStrategy(ctx context.Context, tx store.Tx, t featureEnvTarget, id string,
	input func(store.Strategy) (strategyInput, bool, error)) (store.Strategy, []store.Event, error) {
	before, err := strategyFor(ctx, tx, t, id)
	if err != nil {
		return before, nil, err
	}
	in, full, err := input(before)
	if err != nil {
		return before, nil, err
	}
	st, err := in.applyTo(before, full)
	if err != nil {
		return before, nil, err
	}
	if err := checkStrategy(ctx, tx, t.feature, &st); err != nil {
		return before, nil, err
	}
	saved, err := tx.UpdateStrategy(ctx, st)
	if err != nil {
		return before, nil, err
	}
	events := []store.Event{strategyEvent("feature-strategy-update", t.feature, t.env.Name, strategyView(saved), strategyView(before))}
	off, err := switchOffWithoutEnabledStrategies(ctx, tx, t.feature, t.env.Name)
	return saved, append(events, off...), err
}

func (s *Server) handleDeleteStrategy(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		t, err := editableFeatureEnv(r, tx)
		if err != nil {
			return nil, err
		}
		return deleteStrategy(ctx, tx, t, r.PathValue("strategyId"))
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

// deleteStrategy deletes strategy id of a flag environment.
func deleteStrategy(ctx context.Context, tx store.Tx, t featureEnvTarget, id string) ([]store.Event, error) {
	st, err := strategyFor(ctx, tx, t, id)
	if err != nil {
		return nil, err
	}
	if err := tx.DeleteStrategy(ctx, st.ID); err != nil {
		return nil, err
	}
	events := []store.Event{strategyEvent("feature-strategy-remove", t.feature, t.env.Name, nil, strategyView(st))}
	off, err := switchOffWithoutEnabledStrategies(ctx, tx, t.feature, t.env.Name)
	return append(events, off...), err
}

// strategyOrder is the data of strategy-order-changed events.
type strategyOrder struct {
	StrategyIDs []string `json:"strategyIds"`
}

func orderOf(list []store.Strategy) strategyOrder {
	ids := make([]string, 0, len(list))
	for _, st := range list {
		ids = append(ids, st.ID)
	}
	return strategyOrder{ids}
}

// handleSetStrategySortOrder sets the sortOrder of the listed strategies of
// one flag environment; strategies not listed keep theirs.
func (s *Server) handleSetStrategySortOrder(w http.ResponseWriter, r *http.Request) error {
	var in []strategySortItem
	if err := decode(w, r, &in); err != nil {
		return err
	}
	ctx := r.Context()
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		t, err := editableFeatureEnv(r, tx)
		if err != nil {
			return nil, err
		}
		return reorderStrategies(ctx, tx, t, in)
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

// strategySortItem is one entry of a reordering.
type strategySortItem struct {
	ID        string   `json:"id"`
	SortOrder *float64 `json:"sortOrder"`
}

// reorderStrategies sets the sortOrder of the listed strategies of a flag
// environment; an empty list changes nothing.
func reorderStrategies(ctx context.Context, tx store.Tx, t featureEnvTarget, in []strategySortItem) ([]store.Event, error) {
	filter := store.StrategyFilter{Feature: t.feature.Name, Environment: t.env.Name}
	before, err := tx.ListStrategies(ctx, filter)
	if err != nil || len(in) == 0 {
		return nil, err
	}
	for i, item := range in {
		path := "[" + strconv.Itoa(i) + "]"
		idx := slices.IndexFunc(before, func(st store.Strategy) bool { return st.ID == item.ID })
		if idx < 0 {
			return nil, apierr.Invalid(path+".id", "feature flag %s has no strategy %q in environment %s", t.feature.Name, item.ID, t.env.Name)
		}
		if item.SortOrder == nil {
			return nil, apierr.Invalid(path+".sortOrder", "sortOrder is required")
		}
		st, err := strategyInput{SortOrder: item.SortOrder}.applyTo(before[idx], false)
		if err != nil {
			return nil, err
		}
		if _, err := tx.UpdateStrategy(ctx, st); err != nil {
			return nil, err
		}
	}
	after, err := tx.ListStrategies(ctx, filter)
	if err != nil {
		return nil, err
	}
	return []store.Event{strategyEvent("strategy-order-changed", t.feature, t.env.Name, orderOf(after), orderOf(before))}, nil
}

// patchOps are the RFC 6902 operations; Unleash also lists test.
var patchOps = map[string]bool{"add": true, "remove": true, "replace": true, "copy": true, "move": true, "test": true}

// Bounds on JSON Patch work: the operations of one request, and the size
// of a patched document (copy operations could otherwise double it with
// every operation). Admin documents are small; these are generous.
const (
	maxPatchOps   = 100
	maxPatchedDoc = 256 << 10
)

// decodePatchBody reads a JSON Patch body: 415 for a content type that is
// not JSON, and 400 unless the body is an array of well-formed operations.
func decodePatchBody(w http.ResponseWriter, r *http.Request) (jsonpatch.Patch, error) {
	var raw json.RawMessage
	if err := decode(w, r, &raw); err != nil {
		return nil, err
	}
	var ops []json.RawMessage
	if err := json.Unmarshal(raw, &ops); err != nil {
		return nil, apierr.Invalid("body", `the body must be a JSON array of patch operations (RFC 6902), such as [{"op": "replace", "path": "/title", "value": "x"}]`)
	}
	if len(ops) > maxPatchOps {
		return nil, apierr.Invalid("body", "a patch may have at most %d operations", maxPatchOps)
	}
	for i, op := range ops {
		if err := checkPatchOp("["+strconv.Itoa(i)+"]", op); err != nil {
			return nil, err
		}
	}
	patch, err := jsonpatch.DecodePatch(raw)
	if err != nil {
		return nil, apierr.Invalid("body", "the patch is not valid: %v", err)
	}
	return patch, nil
}

func checkPatchOp(p string, raw json.RawMessage) error {
	var op map[string]json.RawMessage
	if err := json.Unmarshal(raw, &op); err != nil {
		return apierr.Invalid(p, "each patch operation must be an object with op and path")
	}
	str := func(key string) (string, bool) {
		var s string
		v, ok := op[key]
		return s, ok && json.Unmarshal(v, &s) == nil
	}
	kind, ok := str("op")
	if !ok || !patchOps[kind] {
		return apierr.Invalid(p+".op", "op must be one of add, remove, replace, copy, move, test")
	}
	if path, ok := str("path"); !ok || !strings.HasPrefix(path, "/") {
		return apierr.Invalid(p+".path", "path must be a JSON Pointer into the document, such as /title")
	}
	if kind == "copy" || kind == "move" {
		if from, ok := str("from"); !ok || !strings.HasPrefix(from, "/") {
			return apierr.Invalid(p+".from", "%s needs from, a JSON Pointer into the document", kind)
		}
	}
	if _, ok := op["value"]; !ok && (kind == "add" || kind == "replace" || kind == "test") {
		return apierr.Invalid(p+".value", "%s needs a value", kind)
	}
	return nil
}

// applyPatchTo applies ops to the JSON form of doc and decodes the result
// into dst. Operations are applied one by one so that an error names the
// one that failed. A panic in the patch library is answered as a bad patch:
// the input is the client's, and one request must not bring a 500.
func applyPatchTo(ops jsonpatch.Patch, doc, dst any) (err error) {
	defer func() {
		if recover() != nil {
			err = apierr.Invalid("body", "the patch cannot be applied to this document")
		}
	}()
	cur, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	opts := jsonpatch.NewApplyOptions()
	opts.SupportNegativeIndices = false
	opts.AccumulatedCopySizeLimit = maxPatchedDoc
	for i, op := range ops {
		p := "[" + strconv.Itoa(i) + "]"
		if cur, err = (jsonpatch.Patch{op}).ApplyWithOptions(cur, opts); err != nil {
			return apierr.Invalid(p, "patch operation %d cannot be applied: %v", i, err)
		}
		if len(cur) > maxPatchedDoc {
			return apierr.Invalid(p, "the patched document would be larger than %d bytes", maxPatchedDoc)
		}
	}
	return decodeDoc(cur, dst)
}
