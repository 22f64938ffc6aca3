package server

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/signalbox/signalbox/internal/pgtest"
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
	if list.Version != 1 || len(ids) != 6 || ids["release"].LifetimeDays == nil || *ids["release"].LifetimeDays != 40 ||
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

// TestSunsetFlagType: Unleash 8's sunset type is listed with its expected
// lifetime (40 days), flags are created with it and changed to it, the
// client API serves it, a made-up type is still refused, and reopening the
// database keeps a lifetime an admin set for it; on SQLite and PostgreSQL.
func TestSunsetFlagType(t *testing.T) {
	for _, db := range []struct {
		name string
		url  func(*testing.T) string
	}{
		{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "signalbox.db") }},
		{"postgres", func(t *testing.T) string { return pgtest.NewDatabase(t) }},
	} {
		t.Run(db.name, func(t *testing.T) {
			dbURL := db.url(t)
			ts := newTestServerAt(t, dbURL)
			var list struct{ Types []adminFeatureType }
			ts.admin("GET", "/api/admin/feature-types", nil).must(t, http.StatusOK).Decode(t, &list)
			var sunset *adminFeatureType
			for i, ft := range list.Types {
				if ft.ID == "sunset" {
					sunset = &list.Types[i]
				}
			}
			if sunset == nil || sunset.Name != "Sunset" || sunset.Description == "" || sunset.LifetimeDays == nil || *sunset.LifetimeDays != 40 {
				t.Fatalf("sunset in %+v", list.Types)
			}

			ts.admin("POST", defaultFeatures, map[string]any{"name": "old-checkout", "type": "sunset"}).must(t, http.StatusCreated)
			ts.admin("POST", defaultFeatures, map[string]any{"name": "old-search"}).must(t, http.StatusCreated)
			ts.admin("PATCH", defaultFeatures+"/old-search", []any{map[string]any{"op": "replace", "path": "/type", "value": "sunset"}}).must(t, http.StatusOK)
			mustErrorRecord(t, ts.admin("POST", defaultFeatures, map[string]any{"name": "x", "type": "sunrise"}), http.StatusBadRequest, "ValidationError", "type")
			var f struct{ Type string }
			ts.admin("GET", defaultFeatures+"/old-search", nil).must(t, http.StatusOK).Decode(t, &f)
			if f.Type != "sunset" {
				t.Errorf("type after the update %q", f.Type)
			}
			var client struct{ Features []struct{ Name, Type string } }
			ts.request("GET", "/api/client/features", testClientToken, nil).must(t, http.StatusOK).Decode(t, &client)
			types := map[string]string{}
			for _, cf := range client.Features {
				types[cf.Name] = cf.Type
			}
			if types["old-checkout"] != "sunset" || types["old-search"] != "sunset" {
				t.Errorf("client API types %v", types)
			}

			ts.admin("PUT", "/api/admin/feature-types/sunset/lifetime", map[string]any{"lifetimeDays": 90}).must(t, http.StatusOK)
			again := newTestServerAt(t, dbURL)
			again.admin("GET", "/api/admin/feature-types", nil).must(t, http.StatusOK).Decode(t, &list)
			n := 0
			for _, ft := range list.Types {
				if ft.ID == "sunset" {
					n++
					if ft.LifetimeDays == nil || *ft.LifetimeDays != 90 {
						t.Errorf("after reopening: %+v", ft)
					}
				}
			}
			if n != 1 {
				t.Errorf("%d sunset types after reopening", n)
			}
		})
	}
}
