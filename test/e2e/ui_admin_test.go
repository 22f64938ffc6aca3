package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// tokensFlow creates a client token on the API tokens page, uses its
// secret (shown once) against the client API, then deletes it there and
// sees the same request refused.
func tokensFlow(t *testing.T, s *uiSuite) {
	f := s.newFlow(t)
	f.login("admin", s.password)
	f.visit("/admin/api-tokens", "API tokens")
	f.run("creating a client token",
		clickButton("New token"),
		chromedp.WaitVisible(chromedp.CSS(`dialog input[name=tokenName]`)),
		typeInto(`dialog input[name=tokenName]`, "ui-made-client"),
		choose(`dialog select[name=type]`, "client"),
		choose(`dialog select[name=environment]`, "production"),
		click(`dialog button[type=submit]`),
		chromedp.WaitVisible(chromedp.CSS(`dialog output.secret`)))
	secret := strings.TrimSpace(f.textOf(`dialog output.secret`))
	if !strings.HasPrefix(secret, "*:production.") {
		t.Fatalf("the page shows the secret %q", secret)
	}
	if n := f.count(`dialog button.cancel:not([hidden])`); n != 0 || f.count(`dialog output.secret + button, dialog .notice button`) != 1 {
		t.Error("after creating: want the copy button and no cancel button")
	}
	f.screenshot("api-token-secret")
	f.run("closing", click(`dialog button[type=submit]`), chromedp.WaitNotPresent(chromedp.CSS("dialog")),
		waitText(`main table th`, "ui-made-client"))
	if strings.Contains(eval[string](f, `document.querySelector('main').textContent`), secret) {
		t.Error("the list shows the whole secret")
	}
	if st, body := call(t, "GET", s.url+"/api/client/features", secret, nil); st != http.StatusOK {
		t.Fatalf("the new token on the client API: %d %s", st, body)
	}
	f.run("deleting it",
		click(`button[aria-label="Delete token ui-made-client"]`),
		click(`dialog button.danger`),
		waitJS(`![...document.querySelectorAll('main table th')].some(th => th.textContent === 'ui-made-client')`, "the row gone"))
	if st, _ := call(t, "GET", s.url+"/api/client/features", secret, nil); st != http.StatusUnauthorized {
		t.Errorf("the deleted token on the client API: %d, want 401", st)
	}
	f.screenshot("api-tokens")
}

// profileFlow has an editor make a personal access token on their profile
// page and use it, and change their password, a refused one first.
func profileFlow(t *testing.T, s *uiSuite) {
	adminCall(t, s.url, "POST", "/api/admin/user-admin", obj{"username": "paula", "name": "Paula Profile", "password": "Paula-Pass-1234", "rootRole": "Editor"})
	f := s.newFlow(t)
	f.login("paula", "Paula-Pass-1234")
	f.run("opening the profile", click(`header a.user`), waitText("h1", "Your profile"))
	f.run("creating a personal token",
		typeInto(`input[name=description]`, "my script"),
		click(`form.inline-form button[type=submit]`),
		chromedp.WaitVisible(chromedp.CSS(`main output.secret`)),
		waitText(`main table th`, "my script"))
	secret := strings.TrimSpace(f.textOf(`main output.secret`))
	if st, body := call(t, "GET", s.url+"/api/admin/user", secret, nil); st != http.StatusOK || !strings.Contains(string(body), "paula") {
		t.Errorf("the personal token on the admin API: %d %s", st, body)
	}

	f.run("a password the rules refuse",
		typeInto(`input[name=oldPassword]`, "Paula-Pass-1234"),
		typeInto(`input[name=password]`, "short"),
		typeInto(`input[name=confirmPassword]`, "short"),
		clickButton("Change password"),
		waitJS(`[...document.querySelectorAll('.password-form .field-error, .password-form .alert')].some(e => !e.hidden && e.textContent.trim() !== '')`, "the refusal"))
	f.screenshot("profile-password-refused")
	f.run("a good one",
		typeInto(`input[name=password]`, "Paula-New-Pass-5678"),
		typeInto(`input[name=confirmPassword]`, "Paula-New-Pass-5678"),
		clickButton("Change password"),
		waitText("p.done", "Your password was changed"))
	if n := f.count(`.password-form .field-error:not([hidden])`); n != 0 {
		t.Errorf("%d stale field errors after the change", n)
	}
	if st, _ := call(t, "POST", s.url+"/auth/simple/login", "", obj{"username": "paula", "password": "Paula-New-Pass-5678"}); st != http.StatusOK {
		t.Errorf("signing in with the new password: %d", st)
	}
	f.screenshot("profile")
}

// usersFlow creates a Viewer on the users page, signs in as them and sees
// only what a Viewer may do, then changes their role and deletes them. The
// list (with the roles the form offers) comes a second late, and "New
// user" is clicked before it.
func usersFlow(t *testing.T, s *uiSuite) {
	f := s.newFlow(t)
	f.login("admin", s.password)
	f.slowRequests("/api/admin/user-admin", time.Second)
	f.visit("/admin/users", "Users")
	f.run("creating a Viewer",
		clickButton("New user"),
		chromedp.WaitVisible(chromedp.CSS(`dialog input[name=name]`)),
		typeInto(`dialog input[name=name]`, "Vicky Viewer"),
		typeInto(`dialog input[name=username]`, "vicky"),
		choose(`dialog select[name=rootRole]`, "3"),
		typeInto(`dialog input[name=password]`, "short"),
		click(`dialog button[type=submit]`),
		waitJS(`[...document.querySelectorAll('dialog .field-error, dialog .alert')].some(e => !e.hidden && e.textContent.trim() !== '')`, "the password refused"))
	f.run("with a good password",
		typeInto(`dialog input[name=password]`, "Vicky-Pass-1234"),
		click(`dialog button[type=submit]`), chromedp.WaitNotPresent(chromedp.CSS("dialog")),
		waitText(`tr[data-user="vicky"] td`, "Viewer"))
	f.slowRequests("/api/admin/user-admin", 0)
	f.screenshot("users")

	v := s.newFlow(t)
	v.login("vicky", "Vicky-Pass-1234")
	if n := v.count(`main button.primary, main button.danger`); n != 0 {
		t.Errorf("a Viewer sees %d write buttons on the projects page", n)
	}
	if n := v.count(`header nav a[href="/admin/users"]`); n != 0 {
		t.Error("a Viewer sees the users page in the navigation")
	}
	if st := v.fetchJSON("POST", "/api/admin/projects", obj{"id": "vicky-project"}); st != http.StatusForbidden {
		t.Errorf("a Viewer creating a project: %d, want 403", st)
	}

	f.run("making her an Editor",
		click(`button[aria-label="Edit user Vicky Viewer"]`),
		chromedp.WaitVisible(chromedp.CSS(`dialog select[name=rootRole]`)),
		choose(`dialog select[name=rootRole]`, "2"),
		click(`dialog button[type=submit]`), chromedp.WaitNotPresent(chromedp.CSS("dialog")),
		waitText(`tr[data-user="vicky"] td`, "Editor"))
	if st := v.fetchJSON("POST", "/api/admin/projects", obj{"id": "vicky-project"}); st != http.StatusCreated {
		t.Errorf("an Editor creating a project: %d, want 201", st)
	}
	f.run("deleting her",
		click(`button[aria-label="Delete user Vicky Viewer"]`),
		click(`dialog button.danger`),
		waitJS(`!document.querySelector('tr[data-user="vicky"]')`, "the row gone"))
	if st, _ := call(t, "POST", s.url+"/auth/simple/login", "", obj{"username": "vicky", "password": "Vicky-Pass-1234"}); st != http.StatusUnauthorized {
		t.Errorf("a deleted user signing in: %d, want 401", st)
	}
}

// groupsFlow makes a group with a member on the groups page; the group's
// project Member role lets her create flags there and nowhere else, until
// the group is deleted. The list comes a second late, and "New group" is
// clicked before it: the button works from the moment it shows.
func groupsFlow(t *testing.T, s *uiSuite) {
	adminCall(t, s.url, "POST", "/api/admin/user-admin", obj{"username": "gina", "name": "Gina Grouped", "password": "Gina-Pass-1234", "rootRole": "Viewer"})
	adminCall(t, s.url, "POST", "/api/admin/projects", obj{"id": "gproj", "name": "Group project"})
	f := s.newFlow(t)
	f.login("admin", s.password)
	f.slowRequests("/api/admin/groups", time.Second)
	f.visit("/admin/groups", "Groups")
	f.run("creating a group",
		clickButton("New group"),
		chromedp.WaitVisible(chromedp.CSS(`dialog input[name=name]`)),
		typeInto(`dialog input[name=name]`, "release-team"),
		typeInto(`dialog input[name=description]`, "Ships things"),
		evalJS(`[...document.querySelectorAll('dialog label.check')].find(l => l.textContent.includes('Gina Grouped')).querySelector('input').click()`),
		click(`dialog button[type=submit]`), chromedp.WaitNotPresent(chromedp.CSS("dialog")),
		waitText(`tr[data-group="release-team"] td`, "Gina Grouped"))
	f.slowRequests("/api/admin/groups", 0)
	f.screenshot("groups")
	var groups struct {
		Groups []struct {
			ID    int `json:"id"`
			Name  string
			Users []struct {
				User struct {
					Username string `json:"username"`
				} `json:"user"`
			} `json:"users"`
		} `json:"groups"`
	}
	json.Unmarshal(adminCall(t, s.url, "GET", "/api/admin/groups", nil), &groups)
	id := 0
	for _, g := range groups.Groups {
		if g.Name == "release-team" && len(g.Users) == 1 && g.Users[0].User.Username == "gina" {
			id = g.ID
		}
	}
	if id == 0 {
		t.Fatalf("the API shows %+v", groups)
	}
	adminCall(t, s.url, "POST", "/api/admin/projects/gproj/access", obj{"roles": []int{5}, "groups": []obj{{"id": id}}, "users": []obj{}})

	g := s.newFlow(t)
	g.login("gina", "Gina-Pass-1234")
	if st := g.fetchJSON("POST", "/api/admin/projects/gproj/features", obj{"name": "gina-flag"}); st != http.StatusCreated {
		t.Errorf("a group's project Member creating a flag there: %d, want 201", st)
	}
	if st := g.fetchJSON("POST", "/api/admin/projects/default/features", obj{"name": "gina-elsewhere"}); st != http.StatusForbidden {
		t.Errorf("creating a flag in another project: %d, want 403", st)
	}
	f.run("deleting the group",
		click(`button[aria-label="Delete group release-team"]`),
		click(`dialog button.danger`),
		waitJS(`!document.querySelector('tr[data-group="release-team"]')`, "the row gone"))
	if st := g.fetchJSON("POST", "/api/admin/projects/gproj/features", obj{"name": "gina-flag-2"}); st != http.StatusForbidden {
		t.Errorf("after the group is gone: %d, want 403", st)
	}
}
