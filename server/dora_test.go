package server

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDora(t *testing.T) { doraFlow(t, newTestServer(t)) }

func doraFlow(t *testing.T, ts *testServer) {
	plantReportProject(t, ts)
	c := newOAChecker(t, ts)
	var got doraMetrics
	c.do("GET", "/api/admin/projects/health/dora", testAdminToken, nil, http.StatusOK).Decode(t, &got)
	// See plantReportProject: killer counts from its first production
	// enabling, archived-past is listed although archived, and flags that
	// never reached production (stale-one, archived-recent) are not.
	want := doraMetrics{
		ProjectAverage: 3.6, // (0.5 + 1 + 3 + 10) / 4 = 3.625
		Features: []doraFeature{
			{Name: "archived-past", TimeToProduction: 3}, {Name: "fresh", TimeToProduction: 0.5},
			{Name: "killer", TimeToProduction: 10}, {Name: "old-release", TimeToProduction: 1},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("dora (-want +got):\n%s", diff)
	}

	// Through the API: a new flag switched on in production shows at once.
	ts.admin("POST", "/api/admin/projects", map[string]any{"id": "shop", "name": "Shop"}).must(t, http.StatusCreated)
	c.do("GET", "/api/admin/projects/shop/dora", testAdminToken, nil, http.StatusOK).Decode(t, &got)
	if diff := cmp.Diff(doraMetrics{Features: []doraFeature{}}, got); diff != "" {
		t.Errorf("no flags (-want +got):\n%s", diff)
	}
	ts.admin("POST", "/api/admin/projects/shop/features", map[string]any{"name": "cart"}).must(t, http.StatusCreated)
	ts.admin("POST", "/api/admin/projects/shop/features", map[string]any{"name": "dev-only"}).must(t, http.StatusCreated)
	ts.admin("POST", "/api/admin/projects/shop/features/dev-only/environments/development/on", nil).must(t, http.StatusOK)
	ts.admin("POST", "/api/admin/projects/shop/features/cart/environments/production/on", nil).must(t, http.StatusOK)
	c.do("GET", "/api/admin/projects/shop/dora", testAdminToken, nil, http.StatusOK).Decode(t, &got)
	if diff := cmp.Diff(doraMetrics{Features: []doraFeature{{Name: "cart"}}}, got); diff != "" {
		t.Errorf("shop (-want +got):\n%s", diff)
	}

	mark := auditMark(t, ts)
	mustErrorRecord(t, c.do("GET", "/api/admin/projects/nope/dora", testAdminToken, nil, 404), 404, "NotFoundError", "")
	mustErrorRecord(t, c.do("GET", "/api/admin/projects/shop/dora", "", nil, 401), 401, "AuthenticationRequired", "")
	mustErrorRecord(t, c.do("GET", "/api/admin/projects/shop/dora", testClientToken, nil, 403), 403, "NoAccessError", "")
	mustNoAudit(t, ts, mark)
}
