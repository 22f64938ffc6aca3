package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/signalbox/signalbox/auth/saml/samltest"
	"github.com/signalbox/signalbox/internal/pgtest"
)

// TestUI drives the admin web UI in a real browser. Each flow checks what
// a person sees and, where the flow changes something, the effect through
// the API (the client API for flags).
func TestUI(t *testing.T) {
	s := startUISuite(t, "")
	prodToken := productionToken(t, s)
	// One identity provider for the flows that save SAML settings, so that
	// they save the same and neither spoils the other's sign-in.
	idp := samltest.New(t)

	t.Run("first login with the printed password", func(t *testing.T) {
		t.Parallel()
		firstLoginFlow(t, s)
	})

	t.Run("lockout after failed sign-ins", func(t *testing.T) {
		t.Parallel()
		adminCall(t, s.url, "POST", "/api/admin/user-admin", obj{"username": "locky", "name": "Locky", "password": "Locky-Pass-1234", "rootRole": "Editor"})
		f := s.newFlow(t)
		f.run("opening sign-in", chromedp.Navigate(s.url+"/login"), chromedp.WaitVisible(chromedp.CSS(`input[name=username]`)),
			typeInto(`input[name=username]`, "locky"))
		for i := 0; i < 6; i++ {
			f.run("failed attempt",
				typeInto(`input[name=password]`, "wrong-"+itoa(i)),
				click(`form.login button[type=submit]`),
				waitJS(`!document.querySelector('form.login button[type=submit]').disabled && !document.querySelector('.alert').hidden`, "an answer"))
		}
		if got := f.textOf(".alert"); !strings.Contains(got, "too many failed sign-ins") {
			t.Errorf("after 6 failures the page says %q", got)
		}
		f.screenshot("login-locked")
	})

	t.Run("a SAML button when SAML is on", func(t *testing.T) {
		t.Parallel()
		samlButtonFlow(t, s, idp)
	})

	t.Run("project access: a group's Member creates flags only there", func(t *testing.T) {
		t.Parallel()
		accessFlow(t, s)
	})

	t.Run("a Viewer made on the users page has no administration", func(t *testing.T) {
		t.Parallel()
		viewerAdminFlow(t, s)
	})

	t.Run("roles and what they may do", func(t *testing.T) {
		t.Parallel()
		rolesFlow(t, s)
	})

	t.Run("SAML settings saved in the form, then a SAML sign-in", func(t *testing.T) {
		t.Parallel()
		samlSettingsFlow(t, s, idp)
	})

	t.Run("CORS origins saved in the form reach the frontend API", func(t *testing.T) {
		t.Parallel()
		corsFlow(t, s)
	})

	t.Run("instance figures as the statistics count them", func(t *testing.T) {
		t.Parallel()
		instanceInfoFlow(t, s)
	})

	t.Run("export, change, import", func(t *testing.T) {
		t.Parallel()
		importExportFlow(t, s)
	})

	t.Run("session expiry", func(t *testing.T) {
		t.Parallel()
		f := s.newFlow(t)
		f.login("admin", s.password)
		f.setCookie("signalbox-session", "expired-or-forged")
		f.run("the next call", click(`a[href="/events"]`),
			waitText(".notice", "Your session has expired; sign in again"))
		url := eval[string](f, "location.href")
		if !strings.Contains(url, "/login?expired=1") || !strings.Contains(url, "next=%2Fevents") {
			t.Errorf("went to %s", url)
		}
		// Signing in again returns to the page.
		f.run("signing in again",
			typeInto(`input[name=username]`, "admin"),
			typeInto(`input[name=password]`, s.password),
			click(`form.login button[type=submit]`),
			waitJS(`location.pathname === '/events'`, "the event log"))
	})

	t.Run("projects: create, edit, delete refused while it has flags", func(t *testing.T) {
		t.Parallel()
		f := s.newFlow(t)
		f.login("admin", s.password)
		f.run("creating a project",
			clickButton("New project"),
			chromedp.WaitVisible(chromedp.CSS(`dialog input[name=name]`)),
			typeInto(`dialog input[name=name]`, "Web Shop"),
			typeInto(`dialog textarea[name=description]`, "The shop"),
			typeInto(`dialog input[name=id]`, "bad id!"),
			click(`dialog button[type=submit]`),
			chromedp.WaitVisible(chromedp.CSS(`dialog input[name=id][aria-invalid=true]`)))
		if got := f.textOf(`dialog .field-error:not([hidden])`); got == "" {
			t.Error("no message next to the id")
		}
		f.screenshot("project-invalid-id")
		f.run("a valid id", typeInto(`dialog input[name=id]`, "web-shop"), click(`dialog button[type=submit]`),
			waitText("h1", "Web Shop"))
		var p map[string]any
		json.Unmarshal(adminCall(t, s.url, "GET", "/api/admin/projects/web-shop", nil), &p)
		if p["name"] != "Web Shop" || p["description"] != "The shop" {
			t.Fatalf("the API shows %v", p)
		}
		adminCall(t, s.url, "POST", "/api/admin/projects/web-shop/features", obj{"name": "shop-banner"})
		f.visit("/projects", "Projects")
		f.run("flag count", waitText(`tr[data-project="web-shop"] td.num`, "1"))
		f.run("editing",
			click(`button[aria-label="Edit project Web Shop"]`),
			chromedp.WaitVisible(chromedp.CSS(`dialog input[name=name]`)),
			typeInto(`dialog input[name=name]`, "Shop"),
			click(`dialog button[type=submit]`),
			waitJS(`document.querySelector('tr[data-project="web-shop"] a').textContent === 'Shop'`, "the new name"))
		json.Unmarshal(adminCall(t, s.url, "GET", "/api/admin/projects/web-shop", nil), &p)
		if p["name"] != "Shop" {
			t.Errorf("after editing the API shows %v", p["name"])
		}
		f.run("deleting with a flag",
			click(`button[aria-label="Delete project Shop"]`),
			click(`dialog button.danger`),
			waitJS(`!document.querySelector('main .alert').hidden`, "an error"))
		if got := f.textOf("main .alert"); !strings.Contains(strings.ToLower(got), "flag") {
			t.Errorf("refusal says %q", got)
		}
		if st, _ := call(t, "GET", s.url+"/api/admin/projects/web-shop", adminToken, nil); st != http.StatusOK {
			t.Errorf("project gone after a refused delete: %d", st)
		}
		f.visit("/projects/web-shop", "Shop")
		f.run("turning production off for the project", clickButton("Environments"),
			click(`dialog input[name=env-production]`),
			waitJS(`!document.querySelector('dialog input[name=env-production]').disabled`, "the change saved"),
			clickButton("Done"), waitText("h1", "Shop"),
			waitJS(`!document.querySelector('button[aria-label="Toggle shop-banner in production"]')`, "no production switch"))
		json.Unmarshal(adminCall(t, s.url, "GET", "/api/admin/projects/web-shop", nil), &p)
		if strings.Contains(fmt.Sprint(p["environments"]), "production") {
			t.Errorf("production still in the project: %v", p["environments"])
		}
	})

	t.Run("projects: health as the API counts it", func(t *testing.T) {
		t.Parallel()
		adminCall(t, s.url, "POST", "/api/admin/projects", obj{"id": "ailing", "name": "Ailing"})
		for _, name := range []string{"ailing-a", "ailing-b", "ailing-c"} {
			adminCall(t, s.url, "POST", "/api/admin/projects/ailing/features", obj{"name": name})
		}
		adminCall(t, s.url, "POST", "/api/admin/projects/ailing/stale", obj{"features": []string{"ailing-a", "ailing-b"}, "stale": true})
		var list struct {
			Projects []struct {
				ID     string `json:"id"`
				Health int    `json:"health"`
			} `json:"projects"`
		}
		json.Unmarshal(adminCall(t, s.url, "GET", "/api/admin/projects", nil), &list)
		want := -1
		for _, p := range list.Projects {
			if p.ID == "ailing" {
				want = p.Health
			}
		}
		if want != 33 {
			t.Fatalf("the API gives health %d for one healthy flag of three, want 33", want)
		}
		f := s.newFlow(t)
		f.login("admin", s.password)
		f.visit("/projects", "Projects")
		f.run("the health column", waitText(`tr[data-project="ailing"] td.health[data-health="poor"]`, "33 %"))
		f.screenshot("projects-health")
	})

	t.Run("flags: create, toggle in two environments", func(t *testing.T) {
		t.Parallel()
		toggleFlow(t, s, prodToken)
	})

	t.Run("strategies: add and edit a flexibleRollout, payload check, reorder", func(t *testing.T) {
		t.Parallel()
		strategyFlow(t, s)
	})

	t.Run("the Node SDK sees a rollout edited in the UI", func(t *testing.T) {
		t.Parallel()
		sdkFlow(t, s)
	})

	t.Run("API tokens: create, use the secret once, delete", func(t *testing.T) {
		t.Parallel()
		tokensFlow(t, s)
	})

	t.Run("profile: a personal token and a password change", func(t *testing.T) {
		t.Parallel()
		profileFlow(t, s)
	})

	t.Run("users: create a Viewer, sign in as her, change her role, delete her", func(t *testing.T) {
		t.Parallel()
		usersFlow(t, s)
	})

	t.Run("groups: a member gets the group's project role until it is deleted", func(t *testing.T) {
		t.Parallel()
		groupsFlow(t, s)
	})

	t.Run("project health and lead time as the API reports them", func(t *testing.T) {
		t.Parallel()
		healthFlow(t, s)
	})

	t.Run("change requests: required in settings, proposed from the flag page, reviewed by another user, applied", func(t *testing.T) {
		t.Parallel()
		changeRequestFlow(t, s)
	})

	t.Run("change requests: strategies and variants proposed from the flag page", func(t *testing.T) {
		t.Parallel()
		strategyProposalFlow(t, s)
	})

	t.Run("change requests: a project Owner reviews and applies, a Member proposes", func(t *testing.T) {
		t.Parallel()
		projectRoleFlow(t, s)
	})

	t.Run("change requests: comment, two approvals, schedule, cancel", func(t *testing.T) {
		t.Parallel()
		changeRequestCommentScheduleFlow(t, s)
	})

	t.Run("change requests: a switch on the flag list proposes", func(t *testing.T) {
		t.Parallel()
		flagListProposalFlow(t, s, prodToken)
	})

	t.Run("change requests: applied on schedule", func(t *testing.T) {
		t.Parallel()
		scheduledApplyFlow(t, s, prodToken)
	})

	t.Run("archive and revive", func(t *testing.T) {
		t.Parallel()
		archiveFlow(t, s)
	})

	t.Run("event log filters and diff", func(t *testing.T) {
		t.Parallel()
		eventsFlow(t, s)
	})

	t.Run("flag variants with weights, payloads and overrides", func(t *testing.T) {
		t.Parallel()
		variantsFlow(t, s)
	})

	t.Run("segments, context fields, environments", func(t *testing.T) {
		t.Parallel()
		segmentsContextFlow(t, s)
	})

	t.Run("playground explains a result", func(t *testing.T) {
		t.Parallel()
		playgroundFlow(t, s)
	})

	t.Run("a custom strategy by its definition", func(t *testing.T) {
		t.Parallel()
		customStrategyFlow(t, s)
	})

	t.Run("a long flag list in pages", func(t *testing.T) {
		t.Parallel()
		pagesFlow(t, s)
	})

	t.Run("flag dependencies", func(t *testing.T) {
		t.Parallel()
		dependencyFlow(t, s)
	})

	t.Run("usage from client metrics", func(t *testing.T) {
		t.Parallel()
		usageFlow(t, s)
	})

	t.Run("the API documentation in Swagger UI", func(t *testing.T) {
		t.Parallel()
		docsFlow(t, s)
	})

	t.Run("writes from another origin are refused", func(t *testing.T) {
		t.Parallel()
		csrfFlow(t, s)
	})

	t.Run("a viewer sees no write controls and a forged write is refused", func(t *testing.T) {
		t.Parallel()
		adminCall(t, s.url, "POST", "/api/admin/user-admin", obj{"username": "vera", "name": "Vera Viewer", "password": "Vera-Pass-1234", "rootRole": "Viewer"})
		adminCall(t, s.url, "POST", "/api/admin/projects/default/features", obj{"name": "viewer-visible"})
		f := s.newFlow(t)
		f.login("vera", "Vera-Pass-1234")
		if n := f.count(`main button.primary, main button.danger`); n != 0 {
			t.Errorf("%d write buttons on the projects page", n)
		}
		f.visit("/projects/default", "Default")
		f.run("flag list", chromedp.WaitVisible(chromedp.CSS(`tr[data-flag="viewer-visible"]`)))
		if n := eval[int](f, `[...document.querySelectorAll('button')].filter(b => b.textContent === 'New flag').length`); n != 0 {
			t.Errorf("viewer sees New flag")
		}
		if n := f.count(`button[role=switch]:not([disabled])`); n != 0 {
			t.Errorf("viewer has %d live switches", n)
		}
		st := f.fetchJSON("POST", "/api/admin/projects/default/features/viewer-visible/environments/development/on", nil)
		if st != http.StatusForbidden {
			t.Errorf("forged toggle answered %d, want 403", st)
		}
		if on := clientFeature(t, s.url, clientToken, "viewer-visible")["enabled"]; on != false {
			t.Errorf("the forged write went through")
		}
	})

	t.Run("password reset link: a new password, once", func(t *testing.T) {
		t.Parallel()
		resetLinkFlow(t, s)
	})

	t.Run("invite link: join, sign in, link disabled", func(t *testing.T) {
		t.Parallel()
		inviteLinkFlow(t, s)
	})
}

// TestUIPostgres runs the sign-in, toggle and strategy flows against a
// server on PostgreSQL.
func TestUIPostgres(t *testing.T) {
	s := startUISuite(t, pgtest.NewDatabase(t))
	prodToken := productionToken(t, s)
	t.Run("first login with the printed password", func(t *testing.T) {
		t.Parallel()
		firstLoginFlow(t, s)
	})
	t.Run("flags: create, toggle in two environments", func(t *testing.T) {
		t.Parallel()
		toggleFlow(t, s, prodToken)
	})
	t.Run("strategies: add and edit a flexibleRollout, payload check, reorder", func(t *testing.T) {
		t.Parallel()
		strategyFlow(t, s)
	})
}

// productionToken creates a client token for production.
func productionToken(t *testing.T, s *uiSuite) string {
	t.Helper()
	var tok struct {
		Secret string `json:"secret"`
	}
	json.Unmarshal(adminCall(t, s.url, "POST", "/api/admin/api-tokens", obj{
		"tokenName": "ui-prod", "type": "client", "environment": "production", "projects": []string{"*"},
	}), &tok)
	return tok.Secret
}

// adminCall sends an admin API request with the admin token and fails on a
// non-2xx answer.
func adminCall(t *testing.T, server, method, path string, body any) []byte {
	t.Helper()
	status, data := call(t, method, server+path, adminToken, body)
	if status/100 != 2 {
		t.Fatalf("%s %s: %d %s", method, path, status, data)
	}
	return data
}

// firstLoginFlow signs in with the password the server printed at its
// first start, after a wrong one, and signs out.
func firstLoginFlow(t *testing.T, s *uiSuite) {
	f := s.newFlow(t)
	// Signed out, a page sends you to the sign-in page.
	f.run("opening the projects signed out", chromedp.Navigate(s.url+"/projects"), waitText("h1", "Sign in"))
	f.run("wrong password",
		typeInto(`input[name=username]`, "admin"),
		typeInto(`input[name=password]`, "not-the-password"),
		click(`form.login button[type=submit]`),
		waitText(".alert", "wrong username or password"))
	f.screenshot("login")
	f.run("the printed password",
		typeInto(`input[name=password]`, s.password),
		click(`form.login button[type=submit]`),
		waitText("h1", "Projects"), waitText("table.list a", "Default"))
	if got := f.textOf(".who .user"); got != "Admin" && got != "admin" {
		t.Errorf("signed in as %q", got)
	}
	f.screenshot("projects")
	// Signing out ends the session: the API no longer answers the page.
	f.run("signing out", click(`.who button`), waitText("h1", "Sign in"))
	if st := f.fetchJSON("GET", "/api/admin/projects", nil); st != http.StatusUnauthorized {
		t.Errorf("after signing out the API answered %d", st)
	}
}

// toggleFlow creates a flag with the name checked as typed, and toggles it
// in two environments, production asking first, with the mouse and the
// keyboard; the client API shows each change.
func toggleFlow(t *testing.T, s *uiSuite, prodToken string) {
	f := s.newFlow(t)
	f.login("admin", s.password)
	f.visit("/projects/default", "Default")
	f.run("new flag form",
		clickButton("New flag"),
		chromedp.WaitVisible(chromedp.CSS(`dialog input[name=name]`)),
		typeInto(`dialog input[name=name]`, "bad name!"),
		waitJS(`document.querySelector('dialog input[name=name]').getAttribute('aria-invalid') === 'true'`, "the name refused as typed"))
	if got := f.textOf("dialog .field-error"); got == "" {
		t.Error("no message next to the name")
	}
	f.run("a valid name",
		typeInto(`dialog input[name=name]`, "checkout-v2"),
		waitJS(`document.querySelector('dialog input[name=name]').getAttribute('aria-invalid') === null`, "the name accepted"),
		typeInto(`dialog textarea[name=description]`, "New checkout"),
		click(`dialog input[name=impressionData]`),
		click(`dialog button[type=submit]`),
		waitText("h1", "checkout-v2"))
	var created map[string]any
	json.Unmarshal(adminCall(t, s.url, "GET", "/api/admin/projects/default/features/checkout-v2", nil), &created)
	if created["description"] != "New checkout" || created["impressionData"] != true {
		t.Errorf("created as %v", created)
	}
	// The flag needs a strategy to be on for SDKs.
	for _, env := range []string{"development", "production"} {
		adminCall(t, s.url, "POST", "/api/admin/projects/default/features/checkout-v2/environments/"+env+"/strategies", obj{"name": "default"})
	}
	f.visit("/projects/default", "Default")
	dev := `button[role=switch][aria-label="Toggle checkout-v2 in development"]`
	prod := `button[role=switch][aria-label="Toggle checkout-v2 in production"]`
	f.run("toggle in development", click(dev),
		chromedp.WaitVisible(chromedp.CSS(dev+`[aria-checked="true"]`)))
	if on := clientFeature(t, s.url, clientToken, "checkout-v2")["enabled"]; on != true {
		t.Errorf("development: client API says enabled=%v", on)
	}
	// Production asks first; cancelling changes nothing.
	f.run("production asks", click(prod), waitText("dialog p", "production environment"))
	f.screenshot("flags-confirm-production")
	f.run("cancel", clickButton("Cancel"), chromedp.WaitNotPresent(chromedp.CSS("dialog")))
	if on := clientFeature(t, s.url, prodToken, "checkout-v2")["enabled"]; on != false {
		t.Errorf("production after cancel: enabled=%v", on)
	}
	f.run("confirm", click(prod), click(`dialog button.primary`),
		chromedp.WaitVisible(chromedp.CSS(prod+`[aria-checked="true"]`)))
	if on := clientFeature(t, s.url, prodToken, "checkout-v2")["enabled"]; on != true {
		t.Errorf("production: client API says enabled=%v", on)
	}
	f.run("toggle development off", click(dev),
		chromedp.WaitVisible(chromedp.CSS(dev+`[aria-checked="false"]`)))
	if on := clientFeature(t, s.url, clientToken, "checkout-v2")["enabled"]; on != false {
		t.Errorf("development after off: enabled=%v", on)
	}
	// The switches work from the keyboard: focus and Space.
	f.run("toggle development with the keyboard", chromedp.Focus(chromedp.CSS(dev)), chromedp.KeyEvent(" "),
		chromedp.WaitVisible(chromedp.CSS(dev+`[aria-checked="true"]`)))
	if on := clientFeature(t, s.url, clientToken, "checkout-v2")["enabled"]; on != true {
		t.Errorf("development after the keyboard toggle: enabled=%v", on)
	}
	adminCall(t, s.url, "POST", "/api/admin/features/checkout-v2/tags", obj{"type": "simple", "value": "ui-tag"})
	f.visit("/projects/default", "Default")
	f.run("filter by tag", choose(`select[aria-label=Tag]`, "simple:ui-tag"),
		waitJS(`[...document.querySelectorAll('tr[data-flag]')].map(r => r.dataset.flag).join() === 'checkout-v2'`, "only the tagged flag"),
		choose(`select[aria-label=Tag]`, ""))
	f.run("search as you type", typeInto(`#flag-search`, "checkout-v2"),
		waitJS(`document.querySelectorAll('tr[data-flag]').length === 1`, "one row"))
	f.screenshot("flags")
}
