package server

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// Addons: integrations that receive audit events, configured through
// Unleash's addons API. The one provider is the generic webhook
// (addons_webhook.go); addons_delivery.go sends the events.

// Unleash guards addon writes with CREATE_ADDON, UPDATE_ADDON and
// DELETE_ADDON, which only its Admin role holds; addons hold secrets and
// send data out of the instance, so here too only Admins change them or
// read their delivery results.
func registerAddons(s *Server, m mux) {
	m.admin("GET /api/admin/addons", PermRead, s.handleListAddons)
	m.admin("POST /api/admin/addons", PermAdmin, s.handleCreateAddon)
	m.admin("GET /api/admin/addons/{id}", PermRead, s.handleGetAddon)
	m.admin("PUT /api/admin/addons/{id}", PermAdmin, s.handleUpdateAddon)
	m.admin("DELETE /api/admin/addons/{id}", PermAdmin, s.handleDeleteAddon)
	m.admin("GET /api/admin/addons/{id}/events", PermAdmin, s.handleAddonDeliveries)
}

// maskedValue stands for a sensitive parameter's value in answers and
// events, as in Unleash; sent back on update it keeps the stored value.
const maskedValue = "*****"

// addonParam is a provider parameter as Unleash's addonParameterSchema
// describes it.
type addonParam struct {
	Name        string `json:"name"`
	DisplayName string `json:"displayName"`
	Type        string `json:"type"`
	Description string `json:"description,omitempty"`
	Placeholder string `json:"placeholder,omitempty"`
	Required    bool   `json:"required"`
	Sensitive   bool   `json:"sensitive"`
}

// addonProvider is Unleash's addonTypeSchema, with what this server uses
// of it.
type addonProvider struct {
	Name             string       `json:"name"`
	DisplayName      string       `json:"displayName"`
	DocumentationURL string       `json:"documentationUrl"`
	Description      string       `json:"description"`
	HowTo            string       `json:"howTo,omitempty"`
	Parameters       []addonParam `json:"parameters"`
	Events           []string     `json:"events"`
}

func (p addonProvider) param(name string) (addonParam, bool) {
	for _, a := range p.Parameters {
		if a.Name == name {
			return a, true
		}
	}
	return addonParam{}, false
}

// addonProviders are the providers this server offers, by name.
var addonProviders = map[string]addonProvider{webhookProvider.Name: webhookProvider}

// addonJSON is Unleash's addonSchema.
type addonJSON struct {
	ID           int            `json:"id"`
	Provider     string         `json:"provider"`
	Description  *string        `json:"description"`
	Enabled      bool           `json:"enabled"`
	Parameters   map[string]any `json:"parameters"`
	Events       []string       `json:"events"`
	Projects     []string       `json:"projects"`
	Environments []string       `json:"environments"`
}

// addonResponse is a as answers and audit events show it: sensitive
// parameters that have a value are masked.
func addonResponse(a store.Addon) addonJSON {
	params := map[string]any{}
	_ = json.Unmarshal(a.Parameters, &params)
	if params == nil {
		params = map[string]any{}
	}
	prov := addonProviders[a.Provider]
	for name, v := range params {
		if p, ok := prov.param(name); ok && p.Sensitive && v != nil && v != "" {
			params[name] = maskedValue
		}
	}
	return addonJSON{ID: a.ID, Provider: a.Provider, Description: nullable(a.Description), Enabled: a.Enabled,
		Parameters: params, Events: a.Events, Projects: a.Projects, Environments: a.Environments}
}

// addonBody is Unleash's addonCreateUpdateSchema.
type addonBody struct {
	Provider     string          `json:"provider"`
	Description  string          `json:"description"`
	Enabled      *bool           `json:"enabled"`
	Parameters   json.RawMessage `json:"parameters"`
	Events       []string        `json:"events"`
	Projects     []string        `json:"projects"`
	Environments []string        `json:"environments"`
}

// addonFromBody checks b and returns the addon it describes. prev is the
// stored addon on update (nil on create): a masked value sent back for one
// of its sensitive parameters keeps the stored value. policy says where
// webhooks may go.
func addonFromBody(b addonBody, prev *store.Addon, policy egressPolicy) (store.Addon, error) {
	prov, ok := addonProviders[b.Provider]
	if !ok {
		if b.Provider == "" {
			return store.Addon{}, apierr.Invalid("provider", "provider is required")
		}
		return store.Addon{}, apierr.Invalid("provider", "there is no addon provider %q; this server offers webhook", b.Provider)
	}
	if b.Enabled == nil {
		return store.Addon{}, apierr.Invalid("enabled", "enabled is required")
	}
	if err := checkText("description", b.Description, 1000); err != nil {
		return store.Addon{}, err
	}
	var raw map[string]any
	if len(b.Parameters) == 0 || json.Unmarshal(b.Parameters, &raw) != nil || raw == nil {
		return store.Addon{}, apierr.Invalid("parameters", "parameters must be an object")
	}
	var stored map[string]any
	if prev != nil && prev.Provider == b.Provider {
		_ = json.Unmarshal(prev.Parameters, &stored)
	}
	params := map[string]string{}
	for name, v := range raw {
		p, ok := prov.param(name)
		if !ok {
			return store.Addon{}, apierr.Invalid("parameters."+name, "the %s provider has no parameter %q", prov.Name, name)
		}
		if v == nil {
			continue
		}
		str, ok := v.(string)
		if !ok {
			return store.Addon{}, apierr.Invalid("parameters."+name, "parameter %s must be a string", name)
		}
		if p.Sensitive && str == maskedValue {
			old, ok := stored[name].(string)
			if !ok {
				return store.Addon{}, apierr.Invalid("parameters."+name, "parameter %s has no stored value to keep; send the value itself", name)
			}
			str = old
		}
		if err := checkText("parameters."+name, str, 10000); err != nil {
			return store.Addon{}, err
		}
		if str != "" {
			params[name] = str
		}
	}
	for _, p := range prov.Parameters {
		if p.Required && params[p.Name] == "" {
			return store.Addon{}, apierr.Invalid("parameters."+p.Name, "parameter %s is required", p.Name)
		}
	}
	if err := prov.check(params, policy); err != nil {
		return store.Addon{}, err
	}
	if b.Events == nil {
		return store.Addon{}, apierr.Invalid("events", "events is required")
	}
	lists := []struct {
		field string
		list  []string
	}{{"events", b.Events}, {"projects", b.Projects}, {"environments", b.Environments}}
	for _, l := range lists {
		if len(l.list) > 500 {
			return store.Addon{}, apierr.Invalid(l.field, "%s must have at most 500 entries", l.field)
		}
		for i, v := range l.list {
			path := l.field + "[" + strconv.Itoa(i) + "]"
			if err := checkText(path, v, 100); err != nil {
				return store.Addon{}, err
			}
			if v == "" {
				return store.Addon{}, apierr.Invalid(path, "%s must not hold empty names", l.field)
			}
		}
	}
	for i, e := range b.Events {
		if !knownEventTypes[e] {
			return store.Addon{}, apierr.Invalid("events["+strconv.Itoa(i)+"]",
				"%q is not a known event type; the event types are those of the event log, such as feature-created", e)
		}
	}
	encoded, _ := json.Marshal(params)
	a := store.Addon{Provider: prov.Name, Description: b.Description, Enabled: *b.Enabled, Parameters: encoded,
		Events: dedupe(b.Events), Projects: dedupe(b.Projects), Environments: dedupe(b.Environments)}
	if prev != nil {
		a.ID, a.SinceEventID, a.CreatedAt = prev.ID, prev.SinceEventID, prev.CreatedAt
	}
	return a, nil
}

// check applies the provider's own rules to its parameters.
func (p addonProvider) check(params map[string]string, policy egressPolicy) error {
	if p.Name == webhookProvider.Name {
		return checkWebhookParams(params, policy)
	}
	return nil
}

func dedupe(list []string) []string {
	out := []string{}
	for _, v := range list {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// checkHTTPURL refuses anything but an absolute http or https URL.
func checkHTTPURL(field, v string) error {
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return apierr.Invalid(field, "%s must be an absolute http or https URL", field)
	}
	return nil
}

func addonID(r *http.Request) (int, error) { return pathInt(r, "id") }

func (s *Server) handleListAddons(w http.ResponseWriter, r *http.Request) error {
	var list []store.Addon
	err := s.view(r.Context(), func(rd store.Reader) (err error) {
		list, err = rd.ListAddons(r.Context())
		return err
	})
	if err != nil {
		return err
	}
	out := make([]addonJSON, len(list))
	for i, a := range list {
		out[i] = addonResponse(a)
	}
	providers := make([]addonProvider, 0, len(addonProviders))
	for _, p := range addonProviders {
		providers = append(providers, p)
	}
	slices.SortFunc(providers, func(a, b addonProvider) int { return strings.Compare(a.Name, b.Name) })
	return writeJSON(w, http.StatusOK, map[string]any{"addons": out, "providers": providers})
}

func (s *Server) handleGetAddon(w http.ResponseWriter, r *http.Request) error {
	id, err := addonID(r)
	if err != nil {
		return err
	}
	var a store.Addon
	err = s.view(r.Context(), func(rd store.Reader) (err error) {
		a, err = rd.GetAddon(r.Context(), id)
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, addonResponse(a))
}

func (s *Server) handleCreateAddon(w http.ResponseWriter, r *http.Request) error {
	var body addonBody
	if err := decode(w, r, &body); err != nil {
		return err
	}
	a, err := addonFromBody(body, nil, s.addons.policy)
	if err != nil {
		return err
	}
	ctx := r.Context()
	var out addonJSON
	err = s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		// The addon gets the events after those already in the log.
		since, err := tx.Revision(ctx)
		if err != nil {
			return nil, err
		}
		a.SinceEventID = since
		created, err := tx.CreateAddon(ctx, a)
		if err != nil {
			return nil, err
		}
		out = addonResponse(created)
		return []store.Event{{Type: "addon-config-created", Data: eventData(out)}}, nil
	})
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/admin/addons/"+strconv.Itoa(out.ID))
	return writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleUpdateAddon(w http.ResponseWriter, r *http.Request) error {
	id, err := addonID(r)
	if err != nil {
		return err
	}
	var body addonBody
	if err := decode(w, r, &body); err != nil {
		return err
	}
	ctx := r.Context()
	var out addonJSON
	err = s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		prev, err := tx.GetAddon(ctx, id)
		if err != nil {
			return nil, err
		}
		a, err := addonFromBody(body, &prev, s.addons.policy)
		if err != nil {
			return nil, err
		}
		updated, err := tx.UpdateAddon(ctx, a)
		if err != nil {
			return nil, err
		}
		out = addonResponse(updated)
		return []store.Event{{Type: "addon-config-updated", Data: eventData(out), PreData: eventData(addonResponse(prev))}}, nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleDeleteAddon(w http.ResponseWriter, r *http.Request) error {
	id, err := addonID(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	err = s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		prev, err := tx.GetAddon(ctx, id)
		if err != nil {
			return nil, err
		}
		if err := tx.DeleteAddon(ctx, id); err != nil {
			return nil, err
		}
		return []store.Event{{Type: "addon-config-deleted", PreData: eventData(addonResponse(prev))}}, nil
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

// integrationEventJSON is Unleash's integrationEventSchema: one delivery
// of an event to an addon, as far as it got. A delivery that is still to
// be retried is "failed" with the retry in stateDetails and details.
type integrationEventJSON struct {
	ID            string         `json:"id"`
	IntegrationID int            `json:"integrationId"`
	CreatedAt     string         `json:"createdAt"`
	State         string         `json:"state"`
	StateDetails  string         `json:"stateDetails"`
	Event         eventJSON      `json:"event"`
	Details       map[string]any `json:"details"`
}

// handleAddonDeliveries answers the addon's deliveries that were tried at
// least once, newest event first, paged by limit (default 50, at most
// 1000) and offset.
func (s *Server) handleAddonDeliveries(w http.ResponseWriter, r *http.Request) error {
	id, err := addonID(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	limit, err := queryInt(q.Get("limit"), "limit", 50)
	if err != nil {
		return err
	}
	offset, err := queryInt(q.Get("offset"), "offset", 0)
	if err != nil {
		return err
	}
	if limit < 1 {
		return apierr.Invalid("limit", "limit must be at least 1")
	}
	limit = min(limit, 1000)
	ctx := r.Context()
	out := []integrationEventJSON{}
	p := principalFrom(ctx)
	err = s.view(ctx, func(rd store.Reader) error {
		if _, err := rd.GetAddon(ctx, id); err != nil {
			return err
		}
		list, err := rd.ListAddonDeliveries(ctx, id, limit, offset)
		if err != nil {
			return err
		}
		for _, d := range list {
			e, err := rd.GetEvent(ctx, d.EventID)
			if err != nil && !apierr.Is(err, apierr.NotFound) {
				return err
			}
			if err != nil {
				e = store.Event{ID: d.EventID, CreatedAt: d.CreatedAt}
			}
			e, _ = redactEvent(p, e)
			out = append(out, deliveryResponse(d, e))
		}
		return nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]any{"integrationEvents": out})
}

func deliveryResponse(d store.AddonDelivery, e store.Event) integrationEventJSON {
	state, details := "failed", d.LastError
	switch d.State {
	case store.DeliverySuccess:
		state, details = "success", "Delivered"
		if d.StatusCode != 0 {
			details = "Delivered; status code: " + strconv.Itoa(d.StatusCode)
		}
	case store.DeliveryPending:
		details = d.LastError + "; will retry at " + d.NextAttemptAt.UTC().Format(timeLayoutRFC3339)
	case store.DeliveryRunning:
		details = "Sending (attempt " + strconv.Itoa(d.Attempts) + ")"
		if d.LastError != "" {
			details += "; last attempt: " + d.LastError
		}
	}
	info := map[string]any{"attempts": d.Attempts, "state": d.State, "final": d.State == store.DeliverySuccess || d.State == store.DeliveryFailed}
	if d.StatusCode != 0 {
		info["statusCode"] = d.StatusCode
	}
	if d.LastError != "" {
		info["lastError"] = d.LastError
	}
	if d.State == store.DeliveryPending {
		info["nextAttemptAt"] = d.NextAttemptAt.UTC().Format(timeLayoutRFC3339)
	}
	return integrationEventJSON{ID: strconv.FormatInt(d.ID, 10), IntegrationID: d.AddonID,
		CreatedAt: d.UpdatedAt.UTC().Format(timeLayoutRFC3339), State: state, StateDetails: details,
		Event: eventResponse(e), Details: info}
}

const timeLayoutRFC3339 = "2006-01-02T15:04:05.000Z07:00"
