package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// crView is a change request as the admin API answers it, the fields the
// flows check.
type crView struct {
	ID           int    `json:"id"`
	Title        string `json:"title"`
	State        string `json:"state"`
	MinApprovals int    `json:"minApprovals"`
	Approvals    []struct {
		CreatedBy struct {
			Username string `json:"username"`
		} `json:"createdBy"`
	} `json:"approvals"`
	Comments []struct {
		Text string `json:"text"`
	} `json:"comments"`
	Schedule *struct {
		ScheduledAt time.Time `json:"scheduledAt"`
	} `json:"schedule"`
}

func getCR(t *testing.T, s *uiSuite, project string, id int) crView {
	t.Helper()
	var cr crView
	if err := json.Unmarshal(adminCall(t, s.url, "GET", "/api/admin/projects/"+project+"/change-requests/"+strconv.Itoa(id), nil), &cr); err != nil {
		t.Fatal(err)
	}
	return cr
}

// alertSays is JavaScript true when the page's alert (role=alert, shown)
// contains text.
func alertSays(text string) chromedp.Action[chromedp.Void] {
	return waitJS(fmt.Sprintf(`[...document.querySelectorAll('main [role=alert]')].some(e => !e.hidden && e.textContent.includes(%q))`, text),
		"an alert saying "+text)
}

// changeRequestFlow: the admin requires change requests in development
// through the settings of a new project, proposes switching a flag on from
// the flag page, sends the request to review and is refused approving it
// (the API's reason shown); an Editor approves it; the admin applies it
// and SDKs see the flag on.
func changeRequestFlow(t *testing.T, s *uiSuite) {
	adminCall(t, s.url, "POST", "/api/admin/projects", obj{"id": "reviewed", "name": "Reviewed"})
	adminCall(t, s.url, "POST", "/api/admin/projects/reviewed/features", obj{"name": "reviewed-banner"})
	var tok struct {
		Secret string `json:"secret"`
	}
	json.Unmarshal(adminCall(t, s.url, "POST", "/api/admin/api-tokens", obj{
		"tokenName": "ui-reviewed", "type": "client", "environment": "development", "projects": []string{"reviewed"},
	}), &tok)
	adminCall(t, s.url, "POST", "/api/admin/user-admin", obj{"username": "rita", "name": "Rita Reviewer", "password": "Rita-Pass-12345", "rootRole": "Editor"})

	f := s.newFlow(t)
	f.login("admin", s.password)
	f.visit("/projects/reviewed", "Reviewed")
	f.run("opening change requests", click(`a[href="/projects/reviewed/change-requests"]`), waitText("h1", "Change requests of Reviewed"))
	f.run("requiring them in development",
		click(`input[name=cr-enabled-development]`),
		click(`button[aria-label="Save the setting of development"]`),
		waitJS(`document.querySelector('input[name=cr-enabled-development]').checked && document.getElementById('status').textContent.includes('required in development')`,
			"the setting saved"))
	var cfg []struct {
		Environment          string `json:"environment"`
		ChangeRequestEnabled bool   `json:"changeRequestEnabled"`
	}
	json.Unmarshal(adminCall(t, s.url, "GET", "/api/admin/projects/reviewed/change-requests/config", nil), &cfg)
	for _, c := range cfg {
		if c.ChangeRequestEnabled != (c.Environment == "development") {
			t.Errorf("after the settings form the API says %+v", cfg)
		}
	}
	f.screenshot("change-requests-settings")

	// The switch now proposes; the flag stays off until the request applies.
	if st := f.fetchJSON("POST", "/api/admin/projects/reviewed/features/reviewed-banner/environments/development/on", nil); st != http.StatusForbidden {
		t.Errorf("a direct toggle answered %d, want 403", st)
	}
	toggle := `button[role=switch][aria-label="Toggle reviewed-banner in development"]`
	f.visit("/projects/reviewed/features/reviewed-banner", "reviewed-banner")
	f.run("proposing to switch it on", waitText(`.env-card[data-env=development] .badge.cr`, "change requests"),
		click(toggle), waitText(".cr-banner a", "(Draft, development)"))
	if got := eval[string](f, `document.querySelector('`+toggle+`').getAttribute('aria-checked')`); got != "false" {
		t.Errorf("the switch shows %s before the request applies", got)
	}
	var pending []crView
	json.Unmarshal(adminCall(t, s.url, "GET", "/api/admin/projects/reviewed/change-requests/pending/reviewed-banner", nil), &pending)
	if len(pending) != 1 || pending[0].State != "Draft" {
		t.Fatalf("pending after the proposal: %+v", pending)
	}
	id := pending[0].ID
	if on := clientFeature(t, s.url, tok.Secret, "reviewed-banner")["enabled"]; on != false {
		t.Errorf("a proposal switched the flag on")
	}
	f.screenshot("change-request-flag-banner")

	f.run("opening the request", click(".cr-banner a"), waitText("h1", pending[0].Title),
		waitText(`.cr-change li.del`, "Enabled: off"), waitText(`.cr-change li.add`, "Enabled: on"))
	// No strategy yet: applying also adds the default strategy, shown as added lines.
	if got := f.textOf(`.cr-change[data-change=default] li.add`); !strings.Contains(got, "Strategy") {
		t.Errorf("the default strategy is not shown as added: %q", got)
	}
	f.screenshot("change-request-draft")
	f.run("sending to review", clickButton("Send to review"), waitText(".badge.cr-state", "In review"))
	f.run("approving my own request", clickButton("Approve"), alertSays("cannot review it"))
	f.screenshot("change-request-own-approval-refused")
	if cr := getCR(t, s, "reviewed", id); cr.State != "In review" || len(cr.Approvals) != 0 {
		t.Fatalf("after the refused approval: %+v", cr)
	}

	page := "/projects/reviewed/change-requests/" + strconv.Itoa(id)
	g := s.newFlow(t)
	g.login("rita", "Rita-Pass-12345")
	g.visit(page, pending[0].Title)
	g.run("approving as Rita", clickButton("Approve"), waitText(".badge.cr-state", "Approved"),
		waitText(`[data-field=approvals]`, "1 of 1 approval"), waitText(`[data-reviews=approvals] li`, "rita"))
	g.screenshot("change-request-approved")
	if cr := getCR(t, s, "reviewed", id); cr.State != "Approved" || len(cr.Approvals) != 1 {
		t.Fatalf("after Rita's approval: %+v", cr)
	}

	f.visit(page, pending[0].Title)
	f.run("applying", clickButton("Apply now"), waitText(".badge.cr-state", "Applied"))
	if on := clientFeature(t, s.url, tok.Secret, "reviewed-banner")["enabled"]; on != true {
		t.Errorf("after applying, the client API says enabled=%v", on)
	}
	f.visit("/projects/reviewed/features/reviewed-banner", "reviewed-banner")
	f.run("the switch on, no banner", chromedp.WaitVisible(chromedp.CSS(toggle+`[aria-checked="true"]`)),
		waitJS(`document.querySelector('.cr-banner').hidden`, "the banner gone"))
	f.visit("/projects/reviewed/change-requests?tab=applied", "Change requests of Reviewed")
	f.run("the applied tab", waitText(fmt.Sprintf(`tr[data-cr="%d"]`, id), "Applied"))
	if n := f.count(`tr[data-cr]`); n != 1 {
		t.Errorf("%d rows in the applied tab", n)
	}
	f.screenshot("change-requests-applied")
}

// changeRequestCommentScheduleFlow: a request needing two approvals gets a
// comment, two approvals ("1 of 2" in between), a schedule an hour ahead,
// and is cancelled before it applies.
func changeRequestCommentScheduleFlow(t *testing.T, s *uiSuite) {
	adminCall(t, s.url, "POST", "/api/admin/projects", obj{"id": "timed", "name": "Timed"})
	adminCall(t, s.url, "POST", "/api/admin/projects/timed/features", obj{"name": "timed-sale"})
	adminCall(t, s.url, "POST", "/api/admin/projects/timed/features/timed-sale/environments/production/strategies",
		obj{"name": "flexibleRollout", "parameters": obj{"rollout": "50", "stickiness": "default", "groupId": "timed-sale"}})
	adminCall(t, s.url, "PUT", "/api/admin/projects/timed/environments/production/change-requests/config",
		obj{"changeRequestsEnabled": true, "requiredApprovals": 2})
	adminCall(t, s.url, "POST", "/api/admin/user-admin", obj{"username": "sam", "name": "Sam Second", "password": "Sam-Pass-123456", "rootRole": "Editor"})
	var st []struct {
		ID string `json:"id"`
	}
	json.Unmarshal(adminCall(t, s.url, "GET", "/api/admin/projects/timed/features/timed-sale/environments/production/strategies", nil), &st)
	if len(st) != 1 {
		t.Fatalf("strategies: %+v", st)
	}
	// Proposed through the admin API token, so the signed-in admin may
	// review it; the change raises the rollout.
	var cr crView
	json.Unmarshal(adminCall(t, s.url, "POST", "/api/admin/projects/timed/environments/production/change-requests", obj{
		"feature": "timed-sale", "action": "updateStrategy",
		"payload": obj{"id": st[0].ID, "name": "flexibleRollout", "parameters": obj{"rollout": "80", "stickiness": "default", "groupId": "timed-sale"}},
	}), &cr)
	page := "/projects/timed/change-requests/" + strconv.Itoa(cr.ID)

	f := s.newFlow(t)
	f.login("admin", s.password)
	f.visit("/projects/timed/change-requests", "Change requests of Timed")
	f.run("the open tab lists it", waitText(fmt.Sprintf(`tr[data-cr="%d"]`, cr.ID), "Draft"))
	f.screenshot("change-requests-open")
	f.run("opening it", click(fmt.Sprintf(`tr[data-cr="%d"] a`, cr.ID)), waitText("h1", cr.Title),
		waitText(".cr-change li.del", "rollout: 50"), waitText(".cr-change li.add", "rollout: 80"))
	if n := f.count(".cr-change li.same"); n < 2 {
		t.Errorf("the unchanged lines of the strategy are not shown (%d)", n)
	}
	f.run("commenting", typeInto(`textarea[name=comment]`, "Raise it after the release notes are out."),
		clickButton("Add comment"), waitText("ul.comments li", "Raise it after the release notes are out."))
	if got := getCR(t, s, "timed", cr.ID).Comments; len(got) != 1 || got[0].Text != "Raise it after the release notes are out." {
		t.Errorf("comments in the API: %+v", got)
	}
	f.run("sending to review", clickButton("Send to review"), waitText(".badge.cr-state", "In review"))
	f.run("approving", clickButton("Approve"), waitText(`[data-field=approvals]`, "1 of 2 approvals"))
	if got := getCR(t, s, "timed", cr.ID); got.State != "In review" || len(got.Approvals) != 1 {
		t.Fatalf("after one of two approvals: %+v", got)
	}
	f.screenshot("change-request-one-of-two")

	g := s.newFlow(t)
	g.login("sam", "Sam-Pass-123456")
	g.visit(page, cr.Title)
	g.run("the second approval", clickButton("Approve"), waitText(".badge.cr-state", "Approved"),
		waitText(`[data-field=approvals]`, "2 of 2 approvals"))

	f.visit(page, cr.Title)
	// A time in the past is refused in the page before it reaches the API.
	past := eval[string](f, `(() => { const d = new Date(Date.now() - 3600e3), p = (n) => String(n).padStart(2, '0');
		return d.getFullYear() + '-' + p(d.getMonth() + 1) + '-' + p(d.getDate()) + 'T' + p(d.getHours()) + ':' + p(d.getMinutes()); })()`)
	f.run("scheduling in the past", setInput(`input[name=scheduledAt]`, past), clickButton("Schedule"),
		waitText(".field-error", "in the future"))
	ahead := eval[string](f, `(() => { const d = new Date(Date.now() + 3600e3), p = (n) => String(n).padStart(2, '0');
		return d.getFullYear() + '-' + p(d.getMonth() + 1) + '-' + p(d.getDate()) + 'T' + p(d.getHours()) + ':' + p(d.getMinutes()); })()`)
	f.run("scheduling an hour ahead", setInput(`input[name=scheduledAt]`, ahead), clickButton("Schedule"),
		waitText(".badge.cr-state", "Scheduled"))
	got := getCR(t, s, "timed", cr.ID)
	if got.State != "Scheduled" || got.Schedule == nil {
		t.Fatalf("after scheduling: %+v", got)
	}
	if d := time.Until(got.Schedule.ScheduledAt); d < 58*time.Minute || d > 61*time.Minute {
		t.Errorf("scheduled at %v, %v from now", got.Schedule.ScheduledAt, d)
	}
	// The page shows the API's time in the reader's own clock.
	shown := eval[string](f, fmt.Sprintf(`new Date(%q).toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' })`,
		got.Schedule.ScheduledAt.Format(time.RFC3339)))
	if text := f.textOf(`[data-field=scheduled]`); text != shown {
		t.Errorf("the page shows the schedule as %q, want %q", text, shown)
	}
	f.screenshot("change-request-scheduled")
	f.visit("/projects/timed/change-requests?tab=scheduled", "Change requests of Timed")
	f.run("the scheduled tab", waitText(fmt.Sprintf(`tr[data-cr="%d"]`, cr.ID), "at "+shown))

	f.visit(page, cr.Title)
	f.run("cancelling", clickButton("Cancel request"), click(`dialog button.danger`), waitText(".badge.cr-state", "Cancelled"))
	if got := getCR(t, s, "timed", cr.ID); got.State != "Cancelled" || got.Schedule != nil {
		t.Errorf("after cancelling: %+v", got)
	}
	var strategies []struct {
		Parameters map[string]string `json:"parameters"`
	}
	json.Unmarshal(adminCall(t, s.url, "GET", "/api/admin/projects/timed/features/timed-sale/environments/production/strategies", nil), &strategies)
	if len(strategies) != 1 || strategies[0].Parameters["rollout"] != "50" {
		t.Errorf("a cancelled request changed the strategy: %+v", strategies)
	}
	if n := f.count(`main button.primary`); n != 0 {
		t.Errorf("%d action buttons on a cancelled request", n)
	}
	f.screenshot("change-request-cancelled")
}

// scheduledApplyFlow: an approved request scheduled a few seconds ahead
// through the page is applied by the server at that time: the page then
// shows it Applied and SDKs see the change.
func scheduledApplyFlow(t *testing.T, s *uiSuite, prodToken string) {
	adminCall(t, s.url, "POST", "/api/admin/projects", obj{"id": "later", "name": "Later"})
	adminCall(t, s.url, "POST", "/api/admin/projects/later/features", obj{"name": "later-launch"})
	adminCall(t, s.url, "PUT", "/api/admin/projects/later/environments/production/change-requests/config",
		obj{"changeRequestsEnabled": true, "requiredApprovals": 1})
	// Proposed through the admin token, so the signed-in admin may approve.
	var cr crView
	json.Unmarshal(adminCall(t, s.url, "POST", "/api/admin/projects/later/environments/production/change-requests",
		obj{"feature": "later-launch", "action": "updateEnabled", "payload": obj{"enabled": true}}), &cr)
	page := "/projects/later/change-requests/" + strconv.Itoa(cr.ID)

	f := s.newFlow(t)
	f.login("admin", s.password)
	f.visit(page, cr.Title)
	f.run("review and approval", clickButton("Send to review"), waitText(".badge.cr-state", "In review"),
		clickButton("Approve"), waitText(".badge.cr-state", "Approved"))
	soon := eval[string](f, `(() => { const d = new Date(Date.now() + 4000), p = (n) => String(n).padStart(2, '0');
		return d.getFullYear() + '-' + p(d.getMonth() + 1) + '-' + p(d.getDate()) + 'T' + p(d.getHours()) + ':' + p(d.getMinutes()) + ':' + p(d.getSeconds()); })()`)
	f.run("scheduling it a few seconds ahead", setInput(`input[name=scheduledAt]`, soon), clickButton("Schedule"),
		waitText(".badge.cr-state", "Scheduled"))
	if on, _ := clientFeature(t, s.url, prodToken, "later-launch")["enabled"].(bool); on {
		t.Fatal("the flag is on before its time")
	}
	deadline := time.Now().Add(30 * time.Second)
	for getCR(t, s, "later", cr.ID).State != "Applied" {
		if time.Now().After(deadline) {
			t.Fatalf("not applied 30 s after its time: %+v", getCR(t, s, "later", cr.ID))
		}
		time.Sleep(200 * time.Millisecond)
	}
	f.visit(page, cr.Title)
	f.run("the page shows it applied", waitText(".badge.cr-state", "Applied"))
	f.screenshot("change-request-applied-on-schedule")
	if on, _ := clientFeature(t, s.url, prodToken, "later-launch")["enabled"].(bool); !on {
		t.Error("SDKs do not see the scheduled change")
	}
}

// flagListProposalFlow: in an environment that requires change requests,
// the switch on the project's flag list proposes the change instead of
// making it: the switch stays off, the caller's draft holds the change,
// and SDKs still see the flag off.
func flagListProposalFlow(t *testing.T, s *uiSuite, prodToken string) {
	adminCall(t, s.url, "POST", "/api/admin/projects", obj{"id": "listed", "name": "Listed"})
	adminCall(t, s.url, "POST", "/api/admin/projects/listed/features", obj{"name": "listed-flag"})
	adminCall(t, s.url, "PUT", "/api/admin/projects/listed/environments/production/change-requests/config",
		obj{"changeRequestsEnabled": true, "requiredApprovals": 1})
	f := s.newFlow(t)
	f.login("admin", s.password)
	f.visit("/projects/listed", "Listed")
	toggle := `button[role=switch][aria-label="Toggle listed-flag in production"]`
	f.run("proposing from the flag list", waitText(`th.env .badge.cr`, "change requests"), click(toggle))
	// The status message says so for a few seconds; the draft stays.
	var pending []crChanges
	for deadline := time.Now().Add(20 * time.Second); len(pending) == 0; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no draft 20 s after the switch was clicked")
		}
		json.Unmarshal(adminCall(t, s.url, "GET", "/api/admin/projects/listed/change-requests/pending/listed-flag", nil), &pending)
	}
	f.run("the switch answered", waitJS(`!document.querySelector('`+toggle+`').disabled`, "the switch enabled again"))
	if got := eval[string](f, `document.querySelector('`+toggle+`').getAttribute('aria-checked')`); got != "false" {
		t.Errorf("the switch shows %s before the request applies", got)
	}
	f.screenshot("flag-list-proposal")
	if len(pending) != 1 || pending[0].State != "Draft" || len(pending[0].Features) != 1 || len(pending[0].Features[0].Changes) != 1 ||
		pending[0].Features[0].Changes[0].Action != "updateEnabled" || pending[0].Features[0].Changes[0].Payload["enabled"] != true {
		t.Fatalf("the draft after the proposal: %+v", pending)
	}
	if on, _ := clientFeature(t, s.url, prodToken, "listed-flag")["enabled"].(bool); on {
		t.Error("a proposal switched the flag on")
	}
}
