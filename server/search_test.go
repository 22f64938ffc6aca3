package server

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/signalbox/signalbox/store"
)

// searchAnswer is the part of a flag search answer the tests read.
type searchAnswer struct {
	Total    int `json:"total"`
	Features []struct {
		Name           string  `json:"name"`
		DependencyType *string `json:"dependencyType"`
		Segments       []string
		CreatedBy      struct {
			ID   int    `json:"id"`
			Name string `json:"name"`
		} `json:"createdBy"`
		Lifecycle struct {
			Stage string `json:"stage"`
		} `json:"lifecycle"`
		Environments []struct {
			Name                 string `json:"name"`
			Enabled              bool   `json:"enabled"`
			HasStrategies        bool   `json:"hasStrategies"`
			HasEnabledStrategies bool   `json:"hasEnabledStrategies"`
			VariantCount         int    `json:"variantCount"`
		} `json:"environments"`
	} `json:"features"`
}

func (a searchAnswer) names() []string {
	out := []string{}
	for _, f := range a.Features {
		out = append(out, f.Name)
	}
	return out
}

// seedSearch adds to the playground's flags: tags on checkout and beta, a
// stale experiment, an archived flag, one flag created by a person, and
// reports of checkout from production and beta from development.
func seedSearch(t *testing.T, ts *testServer) {
	t.Helper()
	seedPlayground(t, ts)
	ts.admin("POST", "/api/admin/features/checkout/tags", map[string]any{"type": "simple", "value": "shop"}).must(t, http.StatusCreated)
	ts.admin("POST", "/api/admin/features/beta/tags", map[string]any{"type": "simple", "value": "shop"}).must(t, http.StatusCreated)
	ts.admin("POST", "/api/admin/features/beta/tags", map[string]any{"type": "simple", "value": "early"}).must(t, http.StatusCreated)
	ts.admin("POST", "/api/admin/projects/web/features", map[string]any{"name": "web.old", "type": "experiment", "description": "Old Layout"}).must(t, http.StatusCreated)
	ts.admin("PATCH", "/api/admin/projects/web/features/web.old", []map[string]any{{"op": "replace", "path": "/stale", "value": true}}).must(t, http.StatusOK)
	ts.admin("POST", "/api/admin/projects/default/features", map[string]any{"name": "gone"}).must(t, http.StatusCreated)
	ts.admin("DELETE", "/api/admin/projects/default/features/gone", nil).must(t, http.StatusAccepted)
	createTestUser(t, ts, "erin", "Editor", strongPassword)
	cookie := signIn(t, ts, "erin", strongPassword)
	ts.asSession(cookie, "POST", "/api/admin/projects/default/features", map[string]any{"name": "zeta", "type": "operational"}).must(t, http.StatusCreated)
	ctx := context.Background()
	err := ts.srv.store.Update(ctx, func(tx store.Tx) error {
		if err := tx.MarkFeaturesSeen(ctx, "production", []string{"checkout"}, time.Now()); err != nil {
			return err
		}
		return tx.MarkFeaturesSeen(ctx, "development", []string{"beta"}, time.Now())
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestSearchFeatures(t *testing.T) { testSearchFeatures(t, newTestServer(t)) }

func TestSearchFeaturesPostgres(t *testing.T) { testSearchFeatures(t, newPostgresTestServer(t)) }

func testSearchFeatures(t *testing.T, ts *testServer) {
	seedSearch(t, ts)
	ref := unleashReference(t)
	// Flags in creation order: checkout beta child planet web.search web.old zeta.
	tests := []struct {
		query string
		want  []string
		total int
	}{
		{"", []string{"checkout", "beta", "child", "planet", "web.search", "web.old", "zeta"}, 7},
		{"sortBy=name", []string{"beta", "checkout", "child", "planet", "web.old", "web.search", "zeta"}, 7},
		{"sortBy=name&sortOrder=desc&limit=2", []string{"zeta", "web.search"}, 7},
		{"sortBy=name&offset=5&limit=5", []string{"web.search", "zeta"}, 7},
		{"sortBy=name&offset=50", []string{}, 7},
		{"query=WEB", []string{"web.search", "web.old"}, 2},
		{"query=layout", []string{"web.old"}, 1},
		{"query=simple:early", []string{"beta"}, 1},
		{"query=zet,plan", []string{"planet", "zeta"}, 2},
		{"project=IS:web", []string{"web.search", "web.old"}, 2},
		{"project=IS_NOT:default", []string{"web.search", "web.old"}, 2},
		{"project=IS_ANY_OF:web,nowhere", []string{"web.search", "web.old"}, 2},
		{"project=IS_NONE_OF:web&sortBy=name", []string{"beta", "checkout", "child", "planet", "zeta"}, 5},
		{"type=IS:experiment", []string{"web.old"}, 1},
		{"type=IS_ANY_OF:experiment,operational", []string{"web.old", "zeta"}, 2},
		{"state=IS:stale", []string{"web.old"}, 1},
		{"state=IS:active&project=IS:web", []string{"web.search"}, 1},
		{"tag=INCLUDE:simple:shop", []string{"checkout", "beta"}, 2},
		{"tag=INCLUDE_ALL_OF:simple:shop,simple:early", []string{"beta"}, 1},
		{"tag=INCLUDE_ANY_OF:simple:early,simple:none", []string{"beta"}, 1},
		{"tag=DO_NOT_INCLUDE:simple:shop&project=IS:default", []string{"child", "planet", "zeta"}, 3},
		{"tag=EXCLUDE_IF_ANY_OF:simple:early,simple:shop&project=IS:default", []string{"child", "planet", "zeta"}, 3},
		{"tag=EXCLUDE_ALL:simple:early,simple:shop&project=IS:default", []string{"checkout", "child", "planet", "zeta"}, 4},
		{"segment=INCLUDE:testers", []string{"beta"}, 1},
		{"status=development:enabled&project=IS:default", []string{"checkout", "beta", "child", "planet"}, 4},
		{"status=development:disabled", []string{"web.old", "zeta"}, 2},
		{"lifecycle=IS:live", []string{"checkout"}, 1},
		{"lifecycle=IS:pre-live", []string{"beta"}, 1},
		{"lifecycle=IS_ANY_OF:live,pre-live&sortBy=name", []string{"beta", "checkout"}, 2},
		{"lifecycle=IS:archived", []string{"gone"}, 1},
		{"archived=IS:true", []string{"gone"}, 1},
		{"lastSeenAt=IS_ON_OR_AFTER:2000-01-01&sortBy=name", []string{"beta", "checkout"}, 2},
		{"createdAt=IS_BEFORE:2000-01-01", []string{}, 0},
		{"createdAt=IS_ON_OR_AFTER:2000-01-01&limit=1", []string{"checkout"}, 7},
		{"favorite=IS:true", []string{}, 0},
		{"sortBy=environment:development&sortOrder=desc&limit=3", []string{"web.search", "planet", "child"}, 7},
		{"createdBy=IS:2", []string{"zeta"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			res := ts.admin("GET", "/api/admin/search/features?"+tt.query, nil).must(t, http.StatusOK)
			matchesUnleash(t, ref, "searchFeaturesSchema", res.Body)
			var a searchAnswer
			res.Decode(t, &a)
			if got := a.names(); !slices.Equal(got, tt.want) || a.Total != tt.total {
				t.Errorf("got %v (total %d), want %v (total %d)", got, a.Total, tt.want, tt.total)
			}
		})
	}
}

func TestSearchFeaturesDetails(t *testing.T) {
	ts := newTestServer(t)
	seedSearch(t, ts)
	var a searchAnswer
	ts.admin("GET", "/api/admin/search/features?sortBy=name&limit=1000", nil).must(t, http.StatusOK).Decode(t, &a)
	by := map[string]int{}
	for i, f := range a.Features {
		by[f.Name] = i
	}
	checkout := a.Features[by["checkout"]]
	if len(checkout.Environments) != 2 {
		t.Fatalf("checkout environments %+v", checkout.Environments)
	}
	for _, e := range checkout.Environments {
		if e.Name == "development" && (!e.Enabled || !e.HasStrategies || !e.HasEnabledStrategies) {
			t.Errorf("checkout in development: %+v", e)
		}
		if e.Name == "production" && (e.Enabled || e.HasStrategies) {
			t.Errorf("checkout in production: %+v", e)
		}
	}
	if d := a.Features[by["child"]].DependencyType; d == nil || *d != "child" {
		t.Errorf("child dependencyType %v", d)
	}
	if d := a.Features[by["beta"]].DependencyType; d == nil || *d != "parent" {
		t.Errorf("beta dependencyType %v", d)
	}
	if d := a.Features[by["planet"]].DependencyType; d != nil {
		t.Errorf("planet dependencyType %v", *d)
	}
	if s := a.Features[by["beta"]].Segments; !slices.Equal(s, []string{"testers"}) {
		t.Errorf("beta segments %v", s)
	}
	if c := a.Features[by["zeta"]].CreatedBy; c.ID != 2 || c.Name != "erin" {
		t.Errorf("zeta createdBy %+v", c)
	}
	if st := a.Features[by["planet"]].Lifecycle.Stage; st != stageInitial {
		t.Errorf("planet stage %s", st)
	}
}

func TestSearchFeaturesErrors(t *testing.T) {
	ts := newTestServer(t)
	for _, q := range []string{
		"project=default", "project=IS", "project=MAYBE:default", "project=IS:",
		"tag=IS:simple:x", "tag=INCLUDE:novalue", "segment=IS_ANY_OF:x",
		"status=production", "status=production:on",
		"archived=yes", "createdAt=IS:2024-01-01", "createdAt=IS_BEFORE:yesterday",
		"favorite=IS:maybe", "sortBy=color", "sortOrder=up",
		"limit=0", "limit=-1", "offset=x", "query=" + url.QueryEscape("a\x00b"),
	} {
		t.Run(q, func(t *testing.T) {
			res := ts.admin("GET", "/api/admin/search/features?"+q, nil).must(t, http.StatusBadRequest)
			if o := res.Object(); o["name"] != "ValidationError" || o["message"] == "" {
				t.Errorf("body %s", res.Body)
			}
		})
	}
	ts.request("GET", "/api/admin/search/features", "", nil).must(t, http.StatusUnauthorized)
	ts.request("GET", "/api/admin/search/features", testClientToken, nil).must(t, http.StatusForbidden)
}

// TestSearchFeaturesPaging pages through more flags than one page holds
// and finds each once.
func TestSearchFeaturesPaging(t *testing.T) {
	ts := newTestServer(t)
	const n = 120
	for i := range n {
		ts.admin("POST", "/api/admin/projects/default/features", map[string]any{"name": "flag-" + strings.Repeat("x", i%3) + string(rune('a'+i%26)) + "-" + strconv.Itoa(i)}).must(t, http.StatusCreated)
	}
	seen := map[string]bool{}
	for offset := 0; offset < n; offset += 50 {
		var a searchAnswer
		ts.admin("GET", "/api/admin/search/features?sortBy=name&offset="+strconv.Itoa(offset), nil).must(t, http.StatusOK).Decode(t, &a)
		if a.Total != n {
			t.Fatalf("total %d", a.Total)
		}
		for _, name := range a.names() {
			if seen[name] {
				t.Errorf("%s on two pages", name)
			}
			seen[name] = true
		}
	}
	if len(seen) != n {
		t.Errorf("%d flags seen, want %d", len(seen), n)
	}
	var a searchAnswer
	ts.admin("GET", "/api/admin/search/features?limit=5000", nil).must(t, http.StatusOK).Decode(t, &a)
	if len(a.Features) != n {
		t.Errorf("limit 5000: %d flags", len(a.Features))
	}
}
