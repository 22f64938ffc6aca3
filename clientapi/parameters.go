package clientapi

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// Parameters are a strategy's parameters. The wire form is an object of
// strings, but older servers and hand-written payloads send numbers and
// booleans ("rollout": 50); those are kept as their JSON text so that
// evaluation sees the same value either way. null members are dropped.
type Parameters map[string]string

// UnmarshalJSON accepts string, number, boolean and null members.
func (p *Parameters) UnmarshalJSON(data []byte) error {
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		*p = nil
		return nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	out := make(Parameters, len(raw))
	for k, v := range raw {
		v = bytes.TrimSpace(v)
		switch {
		case len(v) == 0 || bytes.Equal(v, []byte("null")):
			continue
		case v[0] == '"':
			var s string
			if err := json.Unmarshal(v, &s); err != nil {
				return err
			}
			out[k] = s
		case v[0] == '{' || v[0] == '[':
			// Not a scalar: keep the JSON text rather than fail the payload.
			out[k] = string(v)
		default:
			if _, err := strconv.ParseFloat(string(v), 64); err != nil && string(v) != "true" && string(v) != "false" {
				return &json.UnmarshalTypeError{Value: string(v), Field: k}
			}
			out[k] = string(v)
		}
	}
	*p = out
	return nil
}

// MarshalJSON always writes an object, never null, as SDKs expect.
func (p Parameters) MarshalJSON() ([]byte, error) {
	if p == nil {
		return []byte("{}"), nil
	}
	return json.Marshal(map[string]string(p))
}
