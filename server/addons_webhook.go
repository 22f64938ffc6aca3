package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/signalbox/signalbox/internal/apierr"
)

// The generic webhook: each event is POSTed to a URL, as the event's JSON
// or as a mustache template rendered over it.

var webhookProvider = addonProvider{
	Name:             "webhook",
	DisplayName:      "Webhook",
	DocumentationURL: "https://docs.getunleash.io/integrate/webhook",
	Description:      "A Webhook is a generic way to post messages from Unleash to third party services.",
	Parameters: []addonParam{
		{Name: "url", DisplayName: "Webhook URL", Type: "url", Required: true, Sensitive: true,
			Description: "(Required) The server performs an HTTP POST to this URL, retried with backoff when it fails."},
		{Name: "contentType", DisplayName: "Content-Type", Type: "text", Placeholder: "application/json",
			Description: "(Optional) The Content-Type header to use. Defaults to \"application/json\"."},
		{Name: "authorization", DisplayName: "Authorization", Type: "text", Sensitive: true,
			Description: "(Optional) The Authorization header to use. Not used if left blank."},
		{Name: "bodyTemplate", DisplayName: "Body template", Type: "textfield",
			Placeholder: "{\n  \"event\": \"{{event.type}}\",\n  \"createdBy\": \"{{event.createdBy}}\",\n  \"featureToggle\": \"{{event.data.name}}\",\n  \"timestamp\": \"{{event.data.createdAt}}\"\n}",
			Description: "(Optional) You may format the body using a mustache template. If you don't specify anything, the body is the event as the events API shows it."},
		{Name: "customHeaders", DisplayName: "Extra HTTP Headers", Type: "textfield", Sensitive: true,
			Placeholder: "{\n  \"ALLOW_ORIGIN\": \"*\",\n  \"X-Custom-Header\": \"value\"\n}",
			Description: "(Optional) Extra headers to send, as a JSON object of header names and values."},
	},
	Events: []string{
		"feature-created", "feature-updated", "feature-archived", "feature-revived", "feature-stale-on",
		"feature-stale-off", "feature-environment-enabled", "feature-environment-disabled", "feature-strategy-remove",
		"feature-strategy-update", "feature-strategy-add", "feature-metadata-updated", "feature-variants-updated",
		"feature-project-change", "feature-tagged", "feature-untagged", "change-request-created",
		"change-request-discarded", "change-added", "change-discarded", "change-request-approved",
		"change-request-approval-added", "change-request-cancelled", "change-request-sent-to-review",
		"change-request-applied",
	},
}

// checkWebhookParams checks what a webhook can be sent with: the URL (see
// egressPolicy.checkURL), the content type and the extra headers.
func checkWebhookParams(params map[string]string, policy egressPolicy) error {
	if err := policy.checkURL("parameters.url", params["url"]); err != nil {
		return err
	}
	if ct := params["contentType"]; ct != "" && !validHeaderValue(ct) {
		return apierr.Invalid("parameters.contentType", "contentType must be a valid header value")
	}
	if a := params["authorization"]; a != "" && !validHeaderValue(a) {
		return apierr.Invalid("parameters.authorization", "authorization must be a valid header value")
	}
	if _, err := webhookHeaders(params["customHeaders"]); err != nil {
		return err
	}
	if tpl := params["bodyTemplate"]; tpl != "" {
		if _, err := parseMustache(tpl); err != nil {
			return apierr.Invalid("parameters.bodyTemplate", "bodyTemplate is not a valid template: %v", err)
		}
	}
	return nil
}

// webhookHeaders parses customHeaders: a JSON object of header names and
// string values.
func webhookHeaders(v string) (map[string]string, error) {
	if strings.TrimSpace(v) == "" {
		return nil, nil
	}
	var h map[string]string
	if err := json.Unmarshal([]byte(v), &h); err != nil {
		return nil, apierr.Invalid("parameters.customHeaders", "customHeaders must be a JSON object of header names and string values")
	}
	for name, value := range h {
		if !validHeaderName(name) || !validHeaderValue(value) {
			return nil, apierr.Invalid("parameters.customHeaders", "customHeaders has an invalid header %q", name)
		}
	}
	return h, nil
}

func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c > 126 || c <= 32 || strings.ContainsRune("\"(),/:;<=>?@[\\]{}", c) {
			return false
		}
	}
	return true
}

func validHeaderValue(s string) bool {
	for _, c := range s {
		if (c < 32 && c != '\t') || c == 127 {
			return false
		}
	}
	return true
}

// Limits of outgoing webhook requests.
const (
	webhookTimeout      = 10 * time.Second
	webhookMaxRedirects = 3
	// webhookMaxResponse bounds what is read of an answer; the rest is
	// dropped with the connection.
	webhookMaxResponse = 64 << 10
)

// newWebhookClient is the client of webhook requests: bounded in time,
// connecting only where policy allows (newWebhookTransport), and following
// redirects only within the host the addon names, so that a receiver
// cannot send the event (or the authorization header Go would drop, but
// the custom headers it keeps) elsewhere.
func newWebhookClient(policy egressPolicy) *http.Client {
	return &http.Client{
		Timeout:   webhookTimeout,
		Transport: newWebhookTransport(policy),
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= webhookMaxRedirects {
				return errors.New("too many redirects")
			}
			if req.URL.Host != via[0].URL.Host || req.URL.Scheme != via[0].URL.Scheme {
				return errors.New("redirected to another host")
			}
			return nil
		},
	}
}

// webhookOutcome is the result of one attempt.
type webhookOutcome struct {
	status int
	// err is what the delivery log shows of a failure.
	err string
	// cause is why a request got no answer, for the server's log only.
	cause error
	// retry: worth trying again (no answer, 5xx, 429).
	retry bool
}

// sendWebhook POSTs body to the addon's URL with its headers.
func sendWebhook(ctx context.Context, client *http.Client, params map[string]string, body []byte) webhookOutcome {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, params["url"], bytes.NewReader(body))
	if err != nil {
		return webhookOutcome{err: "the URL cannot be used"}
	}
	ct := params["contentType"]
	if ct == "" {
		ct = "application/json"
	}
	headers, _ := webhookHeaders(params["customHeaders"])
	for name, value := range headers {
		req.Header.Set(name, value)
	}
	req.Header.Set("Content-Type", ct)
	if a := params["authorization"]; a != "" {
		req.Header.Set("Authorization", a)
	}
	req.Header.Set("User-Agent", "signalbox-webhook")
	res, err := client.Do(req)
	if err != nil {
		return webhookOutcome{err: webhookFailed, cause: webhookCause(err), retry: true}
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, webhookMaxResponse))
	out := webhookOutcome{status: res.StatusCode}
	switch {
	case res.StatusCode >= 200 && res.StatusCode < 300:
	case res.StatusCode >= 500 || res.StatusCode == http.StatusTooManyRequests:
		out.err, out.retry = "Status code: "+strconv.Itoa(res.StatusCode), true
	default:
		out.err = "Status code: " + strconv.Itoa(res.StatusCode)
	}
	return out
}

// webhookFailed is all the delivery log says of a request that got no
// HTTP answer. Whether the address was refused, the connection refused or
// reset, the name unknown or the wait too long stays out of it: told
// apart, they would map the networks the server reaches for whoever
// configures addons. The server's log has the cause.
const webhookFailed = "delivery failed"

// webhookCause is why a request failed, for the server's log: without the
// URL, which may hold a secret (a token in the path or query).
func webhookCause(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("no answer within %s", webhookTimeout)
	}
	return err
}
