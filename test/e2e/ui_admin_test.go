package e2e

import (
	"net/http"
	"strings"
	"testing"

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
