package server

// Flag-level variants per environment (and the legacy routes that set them
// in every environment at once), and the weight rules shared with
// strategy variants.

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

func registerVariants(s *Server, m mux) {
	env := featureEnvPath + "/variants"
	m.admin("GET "+env, PermRead, s.handleGetEnvVariants)
	m.admin("PUT "+env, PermUpdateFeatureVariants, s.handlePutVariants(pathEnvironment))
	m.admin("PATCH "+env, PermUpdateFeatureVariants, s.handlePatchVariants(pathEnvironment))
	legacy := projectFeaturesPath + "/{featureName}/variants"
	m.admin("GET "+legacy, PermRead, s.handleGetLegacyVariants)
	m.admin("PUT "+legacy, PermUpdateFeatureVariants, s.handlePutVariants(allEnvironments))
	m.admin("PATCH "+legacy, PermUpdateFeatureVariants, s.handlePatchVariants(allEnvironments))
	m.admin("PUT "+projectFeaturesPath+"/{featureName}/variants-batch", PermUpdateFeatureVariants, s.handleVariantsBatch)
}

// adminVariant is a flag-level variant as the admin API answers it
// (variantSchema); overrides are always a list.
type adminVariant struct {
	Name       string               `json:"name"`
	Weight     int                  `json:"weight"`
	WeightType string               `json:"weightType"`
	Stickiness string               `json:"stickiness"`
	Payload    *clientapi.Payload   `json:"payload,omitempty"`
	Overrides  []clientapi.Override `json:"overrides"`
}

func variantViews(list []clientapi.Variant) []adminVariant {
	out := make([]adminVariant, 0, len(list))
	for _, v := range list {
		out = append(out, adminVariant{Name: v.Name, Weight: v.Weight, WeightType: v.WeightType,
			Stickiness: v.Stickiness, Payload: v.Payload, Overrides: nonNilList(v.Overrides)})
	}
	return out
}

// variantsAnswer is featureVariantsSchema.
type variantsAnswer struct {
	Version  int            `json:"version"`
	Variants []adminVariant `json:"variants"`
}

// variantsData is the data and preData of variant events.
type variantsData struct {
	Variants []adminVariant `json:"variants"`
}

func variantsEvent(f store.Feature, env string, before, after []clientapi.Variant) store.Event {
	return store.Event{
		Type: "feature-environment-variants-updated", Project: f.Project, Environment: env, FeatureName: f.Name,
		Data: eventData(variantsData{variantViews(after)}), PreData: eventData(variantsData{variantViews(before)}),
	}
}

// payloadTypes are the variant payload types SDKs understand.
var payloadTypes = map[string]bool{"json": true, "csv": true, "string": true, "number": true}

// normalizeVariants validates variants and recomputes their weights the way
// Unleash does, so that they total 1000: fixed variants keep their weight
// (together at most 1000), and what is left is divided between the
// variable ones (at least one is needed) by integer division, the remainder
// going one unit at a time to the first variable variants in the order
// given. The result is sorted by name, the order SDKs hash into.
// strategyLevel variants may not have overrides.
func normalizeVariants(path string, in []clientapi.Variant, strategyLevel bool) ([]clientapi.Variant, error) {
	out := make([]clientapi.Variant, 0, len(in))
	fixed, variable := 0, 0
	for i, v := range in {
		p := path + "[" + strconv.Itoa(i) + "]"
		if err := checkVariant(p, &v, strategyLevel); err != nil {
			return nil, err
		}
		if slices.ContainsFunc(out, func(o clientapi.Variant) bool { return o.Name == v.Name }) {
			return nil, apierr.Invalid(p+".name", "variant names must be unique; %q is used twice", v.Name)
		}
		if v.WeightType == "fix" {
			fixed += v.Weight
		} else {
			variable++
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return out, nil
	}
	if fixed > 1000 {
		return nil, apierr.Invalid(path, "the weights of fixed variants add up to %d, more than 1000 (100%%)", fixed)
	}
	if variable == 0 {
		return nil, apierr.Invalid(path, "at least one variant must have weightType variable, to take the weight the fixed ones leave")
	}
	share, rest := (1000-fixed)/variable, (1000-fixed)%variable
	for i := range out {
		if out[i].WeightType != "variable" {
			continue
		}
		out[i].Weight = share
		if rest > 0 {
			out[i].Weight++
			rest--
		}
	}
	slices.SortStableFunc(out, func(a, b clientapi.Variant) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

func checkVariant(p string, v *clientapi.Variant, strategyLevel bool) error {
	if strings.TrimSpace(v.Name) == "" {
		return apierr.Invalid(p+".name", "every variant needs a name")
	}
	if err := checkVariantText(p, v); err != nil {
		return err
	}
	if v.Weight < 0 || v.Weight > 1000 {
		return apierr.Invalid(p+".weight", "weight must be from 0 to 1000, not %d", v.Weight)
	}
	switch v.WeightType {
	case "":
		v.WeightType = "variable"
	case "variable", "fix":
	default:
		return apierr.Invalid(p+".weightType", "weightType must be variable or fix, not %q", v.WeightType)
	}
	if v.Stickiness == "" {
		v.Stickiness = "default"
	}
	if pl := v.Payload; pl != nil {
		switch {
		case !payloadTypes[pl.Type]:
			return apierr.Invalid(p+".payload.type", "payload type must be json, csv, string or number, not %q", pl.Type)
		case pl.Type == "json" && !json.Valid([]byte(pl.Value)):
			return apierr.Invalid(p+".payload.value", "a json payload must hold a JSON document")
		case pl.Type == "number" && !isNumber(pl.Value):
			return apierr.Invalid(p+".payload.value", "a number payload must hold a number, not %q", pl.Value)
		}
	}
	if strategyLevel && len(v.Overrides) > 0 {
		return apierr.Invalid(p+".overrides", "strategy variants have no overrides; use constraints on the strategy instead")
	}
	for j := range v.Overrides {
		o := &v.Overrides[j]
		if strings.TrimSpace(o.ContextName) == "" {
			return apierr.Invalid(p+".overrides["+strconv.Itoa(j)+"].contextName", "every override needs a contextName")
		}
		o.Values = nonNilList(o.Values)
	}
	return nil
}

// checkVariantText refuses a variant with a NUL character in any of its
// strings, which PostgreSQL cannot store.
func checkVariantText(p string, v *clientapi.Variant) error {
	fields := []struct{ path, value string }{{".name", v.Name}, {".stickiness", v.Stickiness}}
	if v.Payload != nil {
		fields = append(fields, struct{ path, value string }{".payload.type", v.Payload.Type}, struct{ path, value string }{".payload.value", v.Payload.Value})
	}
	for j, o := range v.Overrides {
		at := ".overrides[" + strconv.Itoa(j) + "]"
		fields = append(fields, struct{ path, value string }{at + ".contextName", o.ContextName})
		for _, val := range o.Values {
			fields = append(fields, struct{ path, value string }{at + ".values", val})
		}
	}
	for _, f := range fields {
		if strings.ContainsRune(f.value, 0) {
			return apierr.Invalid(p+f.path, "%s must not contain NUL characters", p+f.path)
		}
	}
	return nil
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return err == nil
}

// variantTargets lists the environments a variants route changes.
type variantTargets func(ctx context.Context, r *http.Request, rd store.Reader, f store.Feature) ([]string, error)

// pathEnvironment is the environment in the path, which the project must use.
func pathEnvironment(ctx context.Context, r *http.Request, rd store.Reader, f store.Feature) ([]string, error) {
	e, _, err := projectEnvironment(ctx, rd, f.Project, r.PathValue("environment"))
	return []string{e.Name}, err
}

// allEnvironments is every environment of the flag's project (legacy routes).
func allEnvironments(ctx context.Context, _ *http.Request, rd store.Reader, f store.Feature) ([]string, error) {
	fes, err := rd.ListFeatureEnvironments(ctx, f.Name)
	names := make([]string, 0, len(fes))
	for _, fe := range fes {
		names = append(names, fe.Environment)
	}
	return names, err
}

func (s *Server) handleGetEnvVariants(w http.ResponseWriter, r *http.Request) error {
	var fe store.FeatureEnvironment
	err := s.view(r.Context(), func(rd store.Reader) error {
		t, err := pathFeatureEnv(r, rd)
		if err == nil {
			fe, err = rd.GetFeatureEnvironment(r.Context(), t.feature.Name, t.env.Name)
		}
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, variantsAnswer{Version: 1, Variants: variantViews(fe.Variants)})
}

// handleGetLegacyVariants answers the variants of the flag's first
// environment, as Unleash's deprecated flag-level variants.
func (s *Server) handleGetLegacyVariants(w http.ResponseWriter, r *http.Request) error {
	answer := variantsAnswer{Version: 1, Variants: []adminVariant{}}
	err := s.view(r.Context(), func(rd store.Reader) error {
		f, err := pathFeature(r, rd)
		if err != nil {
			return err
		}
		fes, err := rd.ListFeatureEnvironments(r.Context(), f.Name)
		if err == nil && len(fes) > 0 {
			answer.Variants = variantViews(fes[0].Variants)
		}
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, answer)
}

func (s *Server) handlePutVariants(targets variantTargets) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		var in []clientapi.Variant
		if err := decode(w, r, &in); err != nil {
			return err
		}
		return s.saveVariants(w, r, targets, func([]clientapi.Variant) ([]clientapi.Variant, error) { return in, nil })
	}
}

// handlePatchVariants applies RFC 6902 operations to the variant list of
// each target environment (its admin JSON form) and saves the results.
func (s *Server) handlePatchVariants(targets variantTargets) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		ops, err := decodePatchBody(w, r)
		if err != nil {
			return err
		}
		return s.saveVariants(w, r, targets, func(old []clientapi.Variant) ([]clientapi.Variant, error) {
			var out []clientapi.Variant
			err := applyPatchTo(ops, variantViews(old), &out)
			return out, err
		})
	}
}

// handleVariantsBatch sets the same variants in the listed environments.
func (s *Server) handleVariantsBatch(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Variants     []clientapi.Variant `json:"variants"`
		Environments []string            `json:"environments"`
	}
	if err := decode(w, r, &in); err != nil {
		return err
	}
	targets := func(ctx context.Context, _ *http.Request, rd store.Reader, f store.Feature) ([]string, error) {
		for i, env := range in.Environments {
			if _, _, err := projectEnvironment(ctx, rd, f.Project, env); apierr.Is(err, apierr.NotFound) {
				return nil, apierr.Invalid("environments["+strconv.Itoa(i)+"]", "environment %s is not enabled in project %s", env, f.Project)
			} else if err != nil {
				return nil, err
			}
		}
		return in.Environments, nil
	}
	return s.saveVariants(w, r, targets, func([]clientapi.Variant) ([]clientapi.Variant, error) { return in.Variants, nil })
}

// saveVariants replaces the variants of the path's flag in each target
// environment with what next makes of the current ones, after validation
// and weight recomputation. It answers with the variants of the first
// environment and records one event per environment.
func (s *Server) saveVariants(w http.ResponseWriter, r *http.Request, targets variantTargets, next func([]clientapi.Variant) ([]clientapi.Variant, error)) error {
	ctx := r.Context()
	answer := variantsAnswer{Version: 1, Variants: []adminVariant{}}
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		f, err := pathFeature(r, tx)
		if err != nil {
			return nil, err
		}
		envs, err := targets(ctx, r, tx, f)
		if err != nil {
			return nil, err
		}
		var events []store.Event
		for i, env := range envs {
			if err := checkDirectEdit(ctx, tx, f.Project, env); err != nil {
				return nil, err
			}
			list, e, err := setVariants(ctx, tx, f, env, next)
			if err != nil {
				return nil, err
			}
			events = append(events, e)
			if i == 0 {
				answer.Variants = variantViews(list)
			}
		}
		return events, nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, answer)
}

// setVariants replaces the variants of flag f in env with what next makes
// of the current ones, after validation and weight recomputation.
func setVariants(ctx context.Context, tx store.Tx, f store.Feature, env string,
	next func([]clientapi.Variant) ([]clientapi.Variant, error)) ([]clientapi.Variant, store.Event, error) {
	fe, err := tx.GetFeatureEnvironment(ctx, f.Name, env)
	if err != nil {
		return nil, store.Event{}, err
	}
	list, err := next(fe.Variants)
	if err != nil {
		return nil, store.Event{}, err
	}
	if list, err = normalizeVariants("variants", list, false); err != nil {
		return nil, store.Event{}, err
	}
	before := fe.Variants
	fe.Variants = list
	if _, err := tx.UpdateFeatureEnvironment(ctx, fe); err != nil {
		return nil, store.Event{}, err
	}
	return list, variantsEvent(f, env, before, list), nil
}
