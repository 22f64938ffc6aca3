package server

import (
	"context"
	"encoding/json"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// saveSetting stores an instance setting inside a change and returns its one
// audit event, as Unleash records settings: setting-created the first time,
// then setting-updated with the stored value (shaped by pre) as preData.
// data is the event's data.
func saveSetting(ctx context.Context, tx store.Tx, name string, value json.RawMessage, data any, pre func(stored json.RawMessage) json.RawMessage) ([]store.Event, error) {
	typ := "setting-created"
	var preData json.RawMessage
	old, err := tx.GetSetting(ctx, name)
	switch {
	case err == nil:
		typ, preData = "setting-updated", pre(old.Value)
	case !apierr.Is(err, apierr.NotFound):
		return nil, err
	}
	if _, err := tx.PutSetting(ctx, store.Setting{Name: name, Value: value}); err != nil {
		return nil, err
	}
	return []store.Event{{Type: typ, Data: eventData(data), PreData: preData}}, nil
}
