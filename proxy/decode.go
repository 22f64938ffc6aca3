package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/signalbox/signalbox/answer"
	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/internal/httpx"
)

// A request the proxy refuses is an *apierr.Error, as in the server; the
// proxy writes it in the reference proxy's shape (writeRequestError):
// {"error": message, "validation": [{keyword, dataPath, message}]}, with
// each detail's Path holding the reference's ".body.field" spelling.

// invalid is a validation error about one member of the request.
func invalid(path, keyword, msg string) *apierr.Error {
	return validationFailed([]apierr.Detail{{Keyword: keyword, Path: path, Message: msg}})
}

// validationFailed is the reference's answer to a body that breaks its
// schema.
func validationFailed(items []apierr.Detail) *apierr.Error {
	return &apierr.Error{Kind: apierr.Validation, Message: "Request validation failed", Details: items}
}

// unreadableBody answers a body that could not be read at all.
func unreadableBody() *apierr.Error {
	return apierr.New(apierr.BadRequest, "the request body could not be read")
}

// fieldError is a lookup body's shape problem as the reference's
// validation answer.
func fieldError(fe *answer.FieldError) *apierr.Error {
	return invalid(fe.DataPath, fe.Keyword, fe.Message)
}

// decodeBody decodes a JSON body into dst. An empty body is not an error:
// it reports empty=true and leaves dst alone.
func (p *Proxy) decodeBody(w http.ResponseWriter, r *http.Request, dst any) (empty bool, _ *apierr.Error) {
	return decodeJSONBody(w, r, dst, p.cfg.MaxBodyBytes)
}

// decodeJSONBody is decodeBody with its size limit given.
func decodeJSONBody(w http.ResponseWriter, r *http.Request, dst any, limit int64) (empty bool, _ *apierr.Error) {
	err := httpx.DecodeJSON(w, r, dst, limit)
	if err == nil {
		return false, nil
	}
	if errors.Is(err, httpx.ErrEmptyBody) {
		return true, nil
	}
	var ae *apierr.Error
	if !errors.As(err, &ae) || ae.Kind.Status() >= 500 {
		return false, unreadableBody()
	}
	if ae.Kind != apierr.Validation {
		return false, apierr.New(ae.Kind, "%s", ae.Message)
	}
	items := make([]apierr.Detail, 0, len(ae.Details))
	for _, d := range ae.Details {
		items = append(items, apierr.Detail{Keyword: "type", Path: ".body." + d.Path, Message: d.Message})
	}
	return false, validationFailed(items)
}

// kind is the first byte of a JSON value, 'n' for null, 0 when absent.
func kind(raw json.RawMessage) byte {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return 0
	}
	return raw[0]
}

// metricsRequest is the body browser SDKs post to /proxy/client/metrics.
type metricsRequest struct {
	AppName    *string        `json:"appName"`
	InstanceID *string        `json:"instanceId"`
	Bucket     *metricsBucket `json:"bucket"`
}

type metricsBucket struct {
	Start   json.RawMessage          `json:"start"`
	Stop    json.RawMessage          `json:"stop"`
	Toggles map[string]metricsToggle `json:"toggles"`
}

type metricsToggle struct {
	Yes      *float64           `json:"yes"`
	No       *float64           `json:"no"`
	Variants map[string]float64 `json:"variants"`
}

// validate checks the body as the reference's schema does and returns the
// bucket to merge.
func (m *metricsRequest) validate() (clientapi.MetricsBucket, *apierr.Error) {
	var items []apierr.Detail
	req := func(path, msg string) {
		items = append(items, apierr.Detail{Keyword: "required", Path: path, Message: msg})
	}
	if m.AppName == nil || *m.AppName == "" {
		req(".body.appName", "appName is required and must be a non-empty string")
	}
	if m.InstanceID == nil || *m.InstanceID == "" {
		req(".body.instanceId", "instanceId is required and must be a non-empty string")
	}
	var out clientapi.MetricsBucket
	if m.Bucket == nil {
		req(".body.bucket", "bucket is required")
	} else {
		var ok bool
		if out.Start, ok = parseTime(m.Bucket.Start); !ok {
			req(".body.bucket.start", "bucket.start is required and must be a date")
		}
		if out.Stop, ok = parseTime(m.Bucket.Stop); !ok {
			req(".body.bucket.stop", "bucket.stop is required and must be a date")
		}
		out.Toggles = make(map[string]clientapi.ToggleCount, len(m.Bucket.Toggles))
		for name, t := range m.Bucket.Toggles {
			tc := clientapi.ToggleCount{}
			var okYes, okNo bool
			tc.Yes, okYes = count(t.Yes)
			tc.No, okNo = count(t.No)
			if !okYes || !okNo {
				items = append(items, apierr.Detail{Keyword: "minimum", Path: ".body.bucket.toggles." + name,
					Message: "yes and no must be numbers of at least 0"})
				continue
			}
			for v, n := range t.Variants {
				c, ok := count(&n)
				if !ok {
					items = append(items, apierr.Detail{Keyword: "minimum", Path: ".body.bucket.toggles." + name + ".variants." + v,
						Message: "variant counts must be numbers of at least 0"})
					continue
				}
				if tc.Variants == nil {
					tc.Variants = make(map[string]int64, len(t.Variants))
				}
				tc.Variants[v] = c
			}
			out.Toggles[name] = tc
		}
	}
	if len(items) > 0 {
		return out, validationFailed(items)
	}
	return out, nil
}

// count reads an optional non-negative count; absent is 0.
func count(f *float64) (int64, bool) {
	if f == nil {
		return 0, true
	}
	if math.IsNaN(*f) || *f < 0 || *f > 1e15 {
		return 0, false
	}
	return int64(*f), true
}

// parseTime reads a date as an ISO 8601 string or as milliseconds since
// the epoch, the two forms the reference's schema accepts.
func parseTime(raw json.RawMessage) (time.Time, bool) {
	switch kind(raw) {
	case 0, 'n':
		return time.Time{}, false
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return time.Time{}, false
		}
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02"} {
			if t, err := time.Parse(layout, s); err == nil {
				return t, true
			}
		}
		return time.Time{}, false
	}
	ms, err := strconv.ParseFloat(string(bytes.TrimSpace(raw)), 64)
	if err != nil || math.IsNaN(ms) || math.IsInf(ms, 0) || math.Abs(ms) > 8.64e15 {
		return time.Time{}, false
	}
	return time.UnixMilli(int64(ms)).UTC(), true
}

// registerRequest is the body SDKs post to /proxy/client/register.
type registerRequest struct {
	AppName    *string         `json:"appName"`
	InstanceID string          `json:"instanceId"`
	SDKVersion string          `json:"sdkVersion"`
	Interval   *float64        `json:"interval"`
	Started    json.RawMessage `json:"started"`
	Strategies *[]string       `json:"strategies"`
}

func (rr *registerRequest) validate() (clientapi.Registration, *apierr.Error) {
	var items []apierr.Detail
	req := func(path, msg string) {
		items = append(items, apierr.Detail{Keyword: "required", Path: path, Message: msg})
	}
	if rr.AppName == nil || *rr.AppName == "" {
		req(".body.appName", "appName is required and must be a non-empty string")
	}
	if rr.Interval == nil || math.IsNaN(*rr.Interval) || *rr.Interval < 0 {
		req(".body.interval", "interval is required and must be a number of milliseconds")
	}
	started, ok := parseTime(rr.Started)
	if !ok {
		req(".body.started", "started is required and must be a date")
	}
	if rr.Strategies == nil {
		req(".body.strategies", "strategies is required and must be an array of strategy names")
	}
	if len(items) > 0 {
		return clientapi.Registration{}, validationFailed(items)
	}
	return clientapi.Registration{
		AppName:    *rr.AppName,
		InstanceID: rr.InstanceID,
		SDKVersion: rr.SDKVersion,
		Strategies: *rr.Strategies,
		Started:    started,
		Interval:   int64(*rr.Interval),
	}, nil
}
