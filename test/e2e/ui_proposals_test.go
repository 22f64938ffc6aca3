package e2e

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"
)

// crChanges is a change request's flag changes as the admin API answers
// them.
type crChanges struct {
	ID       int    `json:"id"`
	Title    string `json:"title"`
	State    string `json:"state"`
	Features []struct {
		Name    string `json:"name"`
		Changes []struct {
			Action  string         `json:"action"`
			Payload map[string]any `json:"payload"`
		} `json:"changes"`
	} `json:"features"`
}

// pendingCR is the one pending change request of flag in project.
func pendingCR(t *testing.T, s *uiSuite, project, flag string) crChanges {
	t.Helper()
	var pending []crChanges
	json.Unmarshal(adminCall(t, s.url, "GET", "/api/admin/projects/"+project+"/change-requests/pending/"+flag, nil), &pending)
	if len(pending) != 1 {
		t.Fatalf("pending change requests of %s: %+v", flag, pending)
	}
	var cr crChanges
	json.Unmarshal(adminCall(t, s.url, "GET", "/api/admin/projects/"+project+"/change-requests/"+strconv.Itoa(pending[0].ID), nil), &cr)
	return cr
}

// envStrategies are the strategies and variants of flag in env as the
// admin API answers them.
func envState(t *testing.T, s *uiSuite, project, flag, env string) (strategies []map[string]any, variants []any) {
	t.Helper()
	var f struct {
		Environments []struct {
			Name       string           `json:"name"`
			Strategies []map[string]any `json:"strategies"`
			Variants   []any            `json:"variants"`
		} `json:"environments"`
	}
	json.Unmarshal(adminCall(t, s.url, "GET", "/api/admin/projects/"+project+"/features/"+flag, nil), &f)
	for _, e := range f.Environments {
		if e.Name == env {
			return e.Strategies, e.Variants
		}
	}
	t.Fatalf("%s has no environment %s", flag, env)
	return nil, nil
}

// strategyProposalFlow: in an environment requiring change requests, the
// flag page's strategy add, edit and copy and its variant editor add
// proposals to the admin's draft instead of writing; the flag stays as it
// was, and the change request shows each change as a diff.
func strategyProposalFlow(t *testing.T, s *uiSuite) {
	const project, flag = "proposed", "proposed-rollout"
	adminCall(t, s.url, "POST", "/api/admin/projects", obj{"id": project, "name": "Proposed"})
	adminCall(t, s.url, "POST", "/api/admin/projects/"+project+"/features", obj{"name": flag})
	base := "/api/admin/projects/" + project + "/features/" + flag + "/environments/"
	adminCall(t, s.url, "POST", base+"production/strategies", obj{"name": "flexibleRollout",
		"parameters": obj{"rollout": "50", "stickiness": "default", "groupId": flag}})
	adminCall(t, s.url, "POST", base+"development/strategies", obj{"name": "default"})
	adminCall(t, s.url, "PUT", "/api/admin/projects/"+project+"/environments/production/change-requests/config",
		obj{"changeRequestsEnabled": true, "requiredApprovals": 1})

	f := s.newFlow(t)
	f.login("admin", s.password)
	f.visit("/projects/"+project+"/features/"+flag, flag)
	prod := `section[data-env=production]`
	f.run("proposing a new strategy",
		waitText(prod+` .badge.cr`, "change requests"),
		click(`button[aria-label="Add strategy in production"]`),
		typeInto(`dialog input[name=rollout]`, "20"),
		clickButton("Save strategy"), chromedp.WaitNotPresent(chromedp.CSS("dialog")),
		waitText("#status", "Proposed in"), waitText(".cr-banner a", "(Draft, production)"), settled())
	f.run("proposing a changed strategy",
		click(`button[aria-label="Edit flexibleRollout (1)"]`),
		typeInto(`dialog input[name=rollout]`, "30"),
		clickButton("Save strategy"), chromedp.WaitNotPresent(chromedp.CSS("dialog")),
		waitText("#status", "change the strategy flexibleRollout (1) in production"), settled())
	f.run("proposing a copy from development",
		click(`button[aria-label="Copy default (1) to production"]`),
		waitText("#status", "copy the strategy default to production"), settled())
	f.run("proposing variants",
		click(`button[aria-label="Edit variants in production"]`),
		clickButton("Add variant"),
		typeInto(`dialog input[name=variant-0-name]`, "teal"),
		clickButton("Save variants"), chromedp.WaitNotPresent(chromedp.CSS("dialog")),
		waitText("#status", "change the variants in production"), settled())
	f.screenshot("flag-strategy-proposals")

	// Nothing changed in production; everything sits in one draft.
	strategies, variants := envState(t, s, project, flag, "production")
	if len(strategies) != 1 || strategies[0]["parameters"].(map[string]any)["rollout"] != "50" || len(variants) != 0 {
		t.Errorf("production changed before the request applied: %v, variants %v", strategies, variants)
	}
	if n := f.count(prod + ` .strategy`); n != 1 {
		t.Errorf("the page shows %d strategies in production, want 1", n)
	}
	cr := pendingCR(t, s, project, flag)
	var actions []string
	for _, c := range cr.Features[0].Changes {
		actions = append(actions, c.Action)
	}
	slices.Sort(actions)
	if want := []string{"addStrategy", "addStrategy", "patchVariant", "updateStrategy"}; cr.State != "Draft" || !slices.Equal(actions, want) {
		t.Errorf("draft %s holds %v, want %v", cr.State, actions, want)
	}

	f.run("opening the draft from the banner", click(".cr-banner a"), waitText("h1", cr.Title),
		waitText(`.cr-change li.del`, "rollout: 50"), waitText(`.cr-change li.add`, "rollout: 30"),
		waitText(`.cr-change li.add`, "Variant teal sharing the rest"))
	titles := eval[[]string](f, `[...document.querySelectorAll('.cr-change h4')].map(e => e.textContent).sort()`)
	if want := []string{"Add a strategy", "Add a strategy", "Change a strategy", "Change the variants"}; !slices.Equal(titles, want) {
		t.Errorf("the request shows %v, want %v", titles, want)
	}
	f.screenshot("change-request-strategy-diff")
}

// projectRoleFlow: a root Viewer made project Member proposes switching a
// flag on from its page; a root Viewer made project Owner approves and
// applies the request through the UI, and sees no write controls on a
// flag of another project.
func projectRoleFlow(t *testing.T, s *uiSuite) {
	const project, flag = "owned", "owned-flag"
	adminCall(t, s.url, "POST", "/api/admin/projects", obj{"id": project, "name": "Owned"})
	adminCall(t, s.url, "POST", "/api/admin/projects/"+project+"/features", obj{"name": flag})
	adminCall(t, s.url, "POST", "/api/admin/projects/default/features", obj{"name": "not-owned-flag"})
	adminCall(t, s.url, "PUT", "/api/admin/projects/"+project+"/environments/development/change-requests/config",
		obj{"changeRequestsEnabled": true, "requiredApprovals": 1})
	grant := func(username, password string, role int) {
		var u struct {
			ID int `json:"id"`
		}
		json.Unmarshal(adminCall(t, s.url, "POST", "/api/admin/user-admin", obj{"username": username, "password": password, "rootRole": "Viewer"}), &u)
		adminCall(t, s.url, "POST", "/api/admin/projects/"+project+"/access", obj{"roles": []int{role}, "users": []obj{{"id": u.ID}}, "groups": []obj{}})
	}
	grant("olive", "Olive-Pass-12345", 4) // Owner
	grant("milo", "Milo-Pass-12345", 5)   // Member

	m := s.newFlow(t)
	m.login("milo", "Milo-Pass-12345")
	m.visit("/projects/"+project+"/features/"+flag, flag)
	toggle := `button[role=switch][aria-label="Toggle ` + flag + ` in development"]`
	m.run("the Member's write controls", chromedp.WaitVisible(chromedp.CSS(toggle+`:not([disabled])`)),
		chromedp.WaitVisible(chromedp.CSS(`button[aria-label="Add strategy in development"]`)),
		chromedp.WaitVisible(chromedp.CSS(`button[aria-label="Edit variants in development"]`)))
	m.screenshot("flag-page-project-member")
	m.run("proposing to switch it on", click(toggle), waitText(".cr-banner a", "(Draft, development)"))
	cr := pendingCR(t, s, project, flag)
	page := "/projects/" + project + "/change-requests/" + strconv.Itoa(cr.ID)
	m.run("sending to review", click(".cr-banner a"), waitText("h1", cr.Title),
		clickButton("Send to review"), waitText(".badge.cr-state", "In review"))
	if n := eval[int](m, `[...document.querySelectorAll('main button')].filter(b => ['Approve', 'Apply now'].includes(b.textContent)).length`); n != 0 {
		t.Errorf("the Member sees %d review buttons", n)
	}

	o := s.newFlow(t)
	o.login("olive", "Olive-Pass-12345")
	o.visit(page, cr.Title)
	o.run("approving as the project's Owner", clickButton("Approve"), waitText(".badge.cr-state", "Approved"))
	o.run("applying", clickButton("Apply now"), waitText(".badge.cr-state", "Applied"))
	o.screenshot("change-request-applied-by-project-owner")
	if got := getCR(t, s, project, cr.ID); got.State != "Applied" || len(got.Approvals) != 1 || got.Approvals[0].CreatedBy.Username != "olive" {
		t.Errorf("after the Owner's review: %+v", got)
	}
	var fl struct {
		Environments []struct {
			Name    string `json:"name"`
			Enabled bool   `json:"enabled"`
		} `json:"environments"`
	}
	json.Unmarshal(adminCall(t, s.url, "GET", "/api/admin/projects/"+project+"/features/"+flag, nil), &fl)
	for _, e := range fl.Environments {
		if e.Name == "development" && !e.Enabled {
			t.Errorf("the applied request left %s off in development", flag)
		}
	}

	// Another project: the same user holds only her root Viewer role there.
	o.visit("/projects/default/features/not-owned-flag", "not-owned-flag")
	o.run("no write controls elsewhere", chromedp.WaitVisible(chromedp.CSS(`button[role=switch][disabled]`)))
	if n := o.count(`main section.env-card button:not([role=switch])`); n != 0 {
		t.Errorf("the Owner of %s sees %d write buttons on a flag of another project", project, n)
	}
	if st := o.fetchJSON("POST", "/api/admin/projects/default/features/not-owned-flag/environments/development/on", nil); st != http.StatusForbidden {
		t.Errorf("a forged toggle in another project answered %d, want 403", st)
	}
}
