package server

import (
	"encoding/json"
	"net/http"
	"testing"
)

func TestFeatureTypes(t *testing.T) {
	fx := newFlagFixture(t)
	var list struct {
		Version int                `json:"version"`
		Types   []adminFeatureType `json:"types"`
	}
	fx.ts.admin("GET", "/api/admin/feature-types", nil).must(t, http.StatusOK).Decode(t, &list)
	ids := map[string]adminFeatureType{}
	for _, ft := range list.Types {
		ids[ft.ID] = ft
	}
	if list.Version != 1 || len(ids) != 5 || ids["release"].LifetimeDays == nil || *ids["release"].LifetimeDays != 40 ||
		ids["kill-switch"].LifetimeDays != nil || ids["release"].Name == "" || ids["release"].Description == "" {
		t.Errorf("feature types %+v", list)
	}

	days := func(n int) *int { return &n }
	tests := []struct {
		name   string
		path   string
		body   any
		status int
		want   *int // lifetime after a success
	}{
		{"set", "/api/admin/feature-types/release/lifetime", map[string]any{"lifetimeDays": 21}, 200, days(21)},
		{"the plural path", "/api/admin/feature-types/release/lifetimes", map[string]any{"lifetimeDays": 22}, 200, days(22)},
		{"null means never", "/api/admin/feature-types/release/lifetime", map[string]any{"lifetimeDays": nil}, 200, nil},
		{"zero means never", "/api/admin/feature-types/experiment/lifetime", map[string]any{"lifetimeDays": 0}, 200, nil},
		{"negative", "/api/admin/feature-types/release/lifetime", map[string]any{"lifetimeDays": -1}, 400, nil},
		{"fraction", "/api/admin/feature-types/release/lifetime", map[string]any{"lifetimeDays": 1.5}, 400, nil},
		{"missing", "/api/admin/feature-types/release/lifetime", map[string]any{}, 400, nil},
		{"not a number", "/api/admin/feature-types/release/lifetime", map[string]any{"lifetimeDays": "ten"}, 400, nil},
		{"unknown type", "/api/admin/feature-types/nope/lifetime", map[string]any{"lifetimeDays": 1}, 404, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := fx.lastEvent()
			res := fx.ts.admin("PUT", tt.path, tt.body)
			if tt.status != 200 {
				kind := "ValidationError"
				if tt.status == 404 {
					kind = "NotFoundError"
				}
				mustError(t, res, tt.status, kind, "")
				fx.expectEvents(before, "")
				return
			}
			var ft adminFeatureType
			res.must(t, 200).Decode(t, &ft)
			got, _ := json.Marshal(ft.LifetimeDays)
			want, _ := json.Marshal(tt.want)
			if string(got) != string(want) {
				t.Errorf("lifetimeDays %s, want %s", got, want)
			}
			events := fx.expectEvents(before, "", "feature-type-updated")
			if events[0].Data == nil || events[0].PreData == nil {
				t.Errorf("event %+v", events[0])
			}
		})
	}
	mustError(t, fx.ts.request("PUT", "/api/admin/feature-types/release/lifetime", testAdminToken, `{"lifetimeDays":1}`, "Content-Type", "text/plain"),
		http.StatusUnsupportedMediaType, "ContentTypeError", "")
}
