package e2e

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// resetLinkFlow: an admin makes a reset link for a person, who opens it,
// sets a new password (after a mismatch is caught), and signs in with it;
// the old password no longer works and the link works only once.
func resetLinkFlow(t *testing.T, s *uiSuite) {
	adminCall(t, s.url, "POST", "/api/admin/user-admin", obj{"email": "rosa@example.com", "name": "Rosa Reset", "password": "Rosa-Pass-1234", "rootRole": "Viewer"})
	var link struct {
		ResetPasswordURL string `json:"resetPasswordUrl"`
	}
	if err := json.Unmarshal(adminCall(t, s.url, "POST", "/api/admin/user-admin/reset-password", obj{"id": "rosa@example.com"}), &link); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(link.ResetPasswordURL, s.url+"/reset-password?token=") {
		t.Fatalf("the link is %q", link.ResetPasswordURL)
	}
	f := s.newFlow(t)
	f.run("opening the link", chromedp.Navigate(link.ResetPasswordURL),
		waitText("h1", "Set a new password"), waitText("p", "Rosa Reset (rosa@example.com)"))
	f.screenshot("reset-password")
	f.run("two different passwords",
		typeInto(`input[name=password]`, "Rosa-New-Pass-5678"),
		typeInto(`input[name=confirm]`, "Rosa-New-Pass-5679"),
		click(`form.login button[type=submit]`),
		waitText(".field-error", "The two passwords differ"))
	f.run("the same password twice",
		typeInto(`input[name=confirm]`, "Rosa-New-Pass-5678"),
		click(`form.login button[type=submit]`),
		waitText("h1", "Your password is set"))
	f.run("on to sign in", click(`a[href="/login"]`), waitText("h1", "Sign in"))
	f.login("rosa@example.com", "Rosa-New-Pass-5678")

	if status, _ := call(t, "POST", s.url+"/auth/simple/login", "", obj{"username": "rosa@example.com", "password": "Rosa-Pass-1234"}); status != http.StatusUnauthorized {
		t.Errorf("the old password answered %d, want 401", status)
	}
	f.run("the link again", chromedp.Navigate(link.ResetPasswordURL),
		waitText("h1", "This link does not work"), waitText(".alert", "unknown, used or expired"))
}

// inviteLinkFlow: an admin makes an invite link; a newcomer opens it,
// creates an account and signs in as a Viewer; the admin sees them among
// the link's users, and once the link is disabled it no longer opens.
func inviteLinkFlow(t *testing.T, s *uiSuite) {
	var link struct {
		Secret string `json:"secret"`
		URL    string `json:"url"`
	}
	body := adminCall(t, s.url, "POST", "/api/admin/invite-link/tokens", obj{"name": "Newcomers", "expiresAt": time.Now().Add(24 * time.Hour).UTC().Format(time.RFC3339)})
	if err := json.Unmarshal(body, &link); err != nil || link.URL != s.url+"/new-user?invite="+link.Secret {
		t.Fatalf("created %s", body)
	}
	f := s.newFlow(t)
	f.run("opening the invite", chromedp.Navigate(link.URL), waitText("h1", "Join Signalbox"))
	f.screenshot("invite-signup")
	f.run("a weak password",
		typeInto(`input[name=name]`, "Nico Newcomer"),
		typeInto(`input[name=email]`, "nico@example.com"),
		typeInto(`input[name=password]`, "password"),
		click(`form.login button[type=submit]`),
		waitText(".field-error", "the password"))
	f.run("a good one",
		typeInto(`input[name=password]`, "Nico-Pass-2468"),
		click(`form.login button[type=submit]`),
		waitText("h1", "Your account is ready"))
	f.login("nico@example.com", "Nico-Pass-2468")
	if got := f.textOf(".who .user"); !strings.Contains(got, "Nico") {
		t.Errorf("signed in as %q", got)
	}
	_, data := call(t, "GET", s.url+"/api/admin/invite-link/tokens/"+url.PathEscape(link.Secret), adminToken, nil)
	var got struct {
		Users []struct {
			Email    string `json:"email"`
			RootRole int    `json:"rootRole"`
		} `json:"users"`
	}
	if err := json.Unmarshal(data, &got); err != nil || len(got.Users) != 1 || got.Users[0].Email != "nico@example.com" || got.Users[0].RootRole != 3 {
		t.Errorf("the link's users: %s", data)
	}

	adminCall(t, s.url, "PUT", "/api/admin/invite-link/tokens/"+url.PathEscape(link.Secret), obj{"enabled": false})
	g := s.newFlow(t)
	g.run("the disabled invite", chromedp.Navigate(link.URL),
		waitText("h1", "This invite link does not work"), waitText(".alert", "disabled"))
}
