package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"github.com/signalbox/signalbox/auth/saml/samltest"
)

// The flows of the administration pages: project access, roles, instance
// settings (SAML, CORS origins, instance figures) and import/export.

// accessFlow grants a group project Member on the project's access page;
// its member then creates a flag there and is refused in another project.
// The role is then changed and the group removed, each seen in the API.
func accessFlow(t *testing.T, s *uiSuite) {
	adminCall(t, s.url, "POST", "/api/admin/projects", obj{"id": "acc-proj", "name": "Access project"})
	var ada struct {
		ID int `json:"id"`
	}
	json.Unmarshal(adminCall(t, s.url, "POST", "/api/admin/user-admin",
		obj{"username": "ada", "name": "Ada Access", "password": "Ada-Pass-12345", "rootRole": "Viewer"}), &ada)
	adminCall(t, s.url, "POST", "/api/admin/groups", obj{"name": "acc-team", "users": []obj{{"user": obj{"id": ada.ID}}}})

	f := s.newFlow(t)
	f.login("admin", s.password)
	f.visit("/projects/acc-proj", "Access project")
	f.run("the project links to its access", click(`a[href="/projects/acc-proj/access"]`), waitText("h1", "Access to Access project"))
	f.run("granting the group Member",
		clickButton("Add access"),
		chromedp.WaitVisible(chromedp.CSS(`dialog select[name=subject]`)),
		waitJS(`[...document.querySelectorAll('dialog select[name=subject] option')].some(o => o.textContent === 'Group: acc-team')`, "the group offered"),
		evalJS(`(() => { const s = document.querySelector('dialog select[name=subject]');
			s.value = [...s.options].find(o => o.textContent === 'Group: acc-team').value; })()`),
		evalJS(`(() => { const s = document.querySelector('dialog select[name=role]');
			s.value = [...s.options].find(o => o.textContent === 'Member').value; })()`),
		click(`dialog button[type=submit]`), chromedp.WaitNotPresent(chromedp.CSS("dialog")),
		waitText(`tr[data-access="group:acc-team"] th`, "acc-team"))
	f.screenshot("project-access")
	group := accessOf(t, s, "acc-proj", "acc-team")
	if group == nil || fmt.Sprint(group["roles"]) != "[5]" {
		t.Fatalf("the API shows the group as %v, want roles [5] (Member)", group)
	}

	g := s.newFlow(t)
	g.login("ada", "Ada-Pass-12345")
	g.visit("/projects/acc-proj", "Access project")
	g.run("a Member creates a flag in the project",
		clickButton("New flag"),
		chromedp.WaitVisible(chromedp.CSS(`dialog input[name=name]`)),
		typeInto(`dialog input[name=name]`, "ada-flag"),
		click(`dialog button[type=submit]`),
		waitText("h1", "ada-flag"))
	if st, body := call(t, "GET", s.url+"/api/admin/projects/acc-proj/features/ada-flag", adminToken, nil); st != http.StatusOK {
		t.Errorf("the flag the Member created: %d %s", st, body)
	}
	g.visit("/projects/default", "Default")
	g.run("the default project's flags", waitJS(`document.querySelector('table.list, p.muted') !== null`, "the flag list"))
	if n := eval[int](g, `[...document.querySelectorAll('button')].filter(b => b.textContent === 'New flag').length`); n != 0 {
		t.Error("a Member of another project sees New flag in the default project")
	}
	if st := g.fetchJSON("POST", "/api/admin/projects/default/features", obj{"name": "ada-elsewhere"}); st != http.StatusForbidden {
		t.Errorf("creating a flag in another project answered %d, want 403", st)
	}
	g.visit("/projects/acc-proj/access", "Access to Access project")
	if n := visibleCount(g, `main button.primary, main button.danger, main select`); n != 0 {
		t.Errorf("a Member sees %d controls to manage access", n)
	}

	f.run("making the group Owner",
		choose(`select[aria-label="Role of acc-team"]`, "4"),
		waitJS(`document.querySelector('select[aria-label="Role of acc-team"]').value === '4' && document.getElementById('status').textContent.includes('Owner')`, "the change saved"))
	if group := accessOf(t, s, "acc-proj", "acc-team"); group == nil || fmt.Sprint(group["roles"]) != "[4]" {
		t.Errorf("after the change the API shows %v, want roles [4] (Owner)", group)
	}
	// As an Owner through the group, Ada manages access herself: she finds
	// a user by name, as Owners may not list every user, and adds him.
	var otto struct {
		ID int `json:"id"`
	}
	json.Unmarshal(adminCall(t, s.url, "POST", "/api/admin/user-admin", obj{"username": "otto", "name": "Otto Added", "rootRole": "Viewer"}), &otto)
	g.visit("/projects/acc-proj/access", "Access to Access project")
	g.run("an Owner adds a user",
		clickButton("Add access"),
		typeInto(`dialog input[name=find]`, "Otto"),
		waitJS(`[...document.querySelectorAll('dialog select[name=subject] option')].some(o => o.textContent === 'User: Otto Added')`, "Otto offered"),
		choose(`dialog select[name=subject]`, fmt.Sprintf("user:%d", otto.ID)),
		click(`dialog button[type=submit]`), chromedp.WaitNotPresent(chromedp.CSS("dialog")),
		waitText(`tr[data-access="user:Otto Added"] th`, "Otto Added"))
	var access struct {
		Users []struct {
			ID    int   `json:"id"`
			Roles []int `json:"roles"`
		} `json:"users"`
	}
	json.Unmarshal(adminCall(t, s.url, "GET", "/api/admin/projects/acc-proj/access", nil), &access)
	if len(access.Users) != 1 || access.Users[0].ID != otto.ID || fmt.Sprint(access.Users[0].Roles) != "[5]" {
		t.Errorf("after the Owner's grant the API shows users %+v, want Otto as Member", access.Users)
	}
	f.run("removing the group",
		click(`button[aria-label="Remove acc-team"]`), click(`dialog button.danger`),
		waitJS(`!document.querySelector('tr[data-access="group:acc-team"]')`, "the row gone"))
	if group := accessOf(t, s, "acc-proj", "acc-team"); group != nil {
		t.Errorf("the group still holds %v", group)
	}
	if st := g.fetchJSON("POST", "/api/admin/projects/acc-proj/features", obj{"name": "ada-flag-2"}); st != http.StatusForbidden {
		t.Errorf("after the group is removed: %d, want 403", st)
	}
}

// accessOf is the group named name as GET …/access lists it; nil when it
// holds no role in project.
func accessOf(t *testing.T, s *uiSuite, project, name string) map[string]any {
	t.Helper()
	var access struct {
		Groups []map[string]any `json:"groups"`
	}
	json.Unmarshal(adminCall(t, s.url, "GET", "/api/admin/projects/"+project+"/access", nil), &access)
	for _, g := range access.Groups {
		if g["name"] == name {
			return g
		}
	}
	return nil
}

// viewerAdminFlow creates a Viewer on the users page; signed in, she has
// no administration entries, the administration pages refuse her, and the
// access page shows no controls.
func viewerAdminFlow(t *testing.T, s *uiSuite) {
	f := s.newFlow(t)
	f.login("admin", s.password)
	f.visit("/admin/users", "Users")
	f.run("creating a Viewer",
		clickButton("New user"),
		chromedp.WaitVisible(chromedp.CSS(`dialog input[name=username]`)),
		typeInto(`dialog input[name=name]`, "Val Viewer"),
		typeInto(`dialog input[name=username]`, "val"),
		typeInto(`dialog input[name=password]`, "Val-Viewer-Pass-9"),
		choose(`dialog select[name=rootRole]`, "3"),
		click(`dialog button[type=submit]`), chromedp.WaitNotPresent(chromedp.CSS("dialog")),
		waitText("table.list", "Val Viewer"))
	var me struct {
		User struct {
			RootRole int `json:"rootRole"`
		} `json:"user"`
	}
	v := s.newFlow(t)
	v.login("val", "Val-Viewer-Pass-9")
	if err := json.Unmarshal([]byte(eval[string](v, `fetch('/api/admin/user').then(r => r.text())`)), &me); err != nil || me.User.RootRole != 3 {
		t.Fatalf("the new user's root role: %+v %v", me, err)
	}
	for _, href := range []string{"/admin/roles", "/admin/settings", "/admin/import-export", "/admin/users"} {
		if n := v.count(fmt.Sprintf(`nav a[href=%q]`, href)); n != 0 {
			t.Errorf("a Viewer has the nav entry %s", href)
		}
	}
	v.visit("/admin/settings", "Something went wrong")
	if n := v.count(`main form, main button.primary`); n != 0 {
		t.Errorf("a Viewer gets %d forms or buttons on the settings page", n)
	}
	if st := v.fetchJSON("POST", "/api/admin/ui-config/cors", obj{"frontendApiOrigins": []string{"https://evil.example"}}); st != http.StatusForbidden {
		t.Errorf("a Viewer saving origins: %d, want 403", st)
	}
	v.visit("/projects/default/access", "Access to Default")
	if n := visibleCount(v, `main button.primary, main button.danger, main select`); n != 0 {
		t.Errorf("a Viewer sees %d access controls", n)
	}
	if st := v.fetchJSON("POST", "/api/admin/projects/default/access", obj{"roles": []int{4}, "users": []obj{{"id": 1}}}); st != http.StatusForbidden {
		t.Errorf("a Viewer granting a role: %d, want 403", st)
	}
	v.screenshot("viewer-access")
}

// rolesFlow finds every role on the roles page with the permissions the
// API lists for it.
func rolesFlow(t *testing.T, s *uiSuite) {
	var api struct {
		Roles []struct {
			Name        string `json:"name"`
			Permissions []struct {
				Name string `json:"name"`
			} `json:"permissions"`
		} `json:"roles"`
	}
	json.Unmarshal(adminCall(t, s.url, "GET", "/api/admin/roles", nil), &api)
	f := s.newFlow(t)
	f.login("admin", s.password)
	f.run("the nav entry", click(`nav a[href="/admin/roles"]`), waitText("h1", "Roles"))
	want := map[string]bool{"Admin": false, "Editor": false, "Viewer": false, "Owner": false, "Member": false}
	for _, r := range api.Roles {
		if _, ok := want[r.Name]; !ok {
			continue
		}
		want[r.Name] = true
		var names []string
		for _, p := range r.Permissions {
			names = append(names, p.Name)
		}
		shown := eval[[]string](f, fmt.Sprintf(`[...document.querySelectorAll('article[data-role=%q] li')].map(li => li.dataset.permission)`, r.Name))
		if len(names) == 0 || strings.Join(shown, ",") != strings.Join(names, ",") {
			t.Errorf("%s shows %v, the API lists %v", r.Name, shown, names)
		}
	}
	for name, seen := range want {
		if !seen {
			t.Errorf("the API lists no role %s", name)
		}
	}
	if got := f.textOf(`article[data-role="Member"] li[data-permission="CREATE_FEATURE"]`); !strings.Contains(got, "Create feature flags") {
		t.Errorf("Member's CREATE_FEATURE reads %q", got)
	}
	if n := f.count(`article[data-role="Viewer"] li`); n != 1 {
		t.Errorf("Viewer shows %d permissions, want 1 (reading)", n)
	}
	f.screenshot("roles")
}

// samlSettingsFlow saves the SAML settings through the form and signs in
// through the test identity provider in the browser: the service
// provider's redirect, the identity provider's answer posted back, and the
// session that follows. samlButtonFlow saves the same identity provider,
// so the two flows agree whichever runs last.
func samlSettingsFlow(t *testing.T, s *uiSuite, idp *samltest.IDP) {
	adminCall(t, s.url, "POST", "/api/admin/user-admin", obj{"email": "sam@example.com", "name": "Sam Saml", "rootRole": "Editor"})
	f := s.newFlow(t)
	f.login("admin", s.password)
	f.run("the nav entry", click(`nav a[href="/admin/settings"]`), waitText("h1", "Instance settings"))
	f.run("filling in the identity provider",
		typeInto(`input[name=entityId]`, idp.EntityID),
		typeInto(`input[name=signOnUrl]`, "not a url"),
		setInput(`textarea[name=certificate]`, idp.CertificatePEM),
		evalJS(`document.querySelector('input[name=enabled]').checked = true`),
		clickButton("Save SAML settings"),
		chromedp.WaitVisible(chromedp.CSS(`input[name=signOnUrl][aria-invalid=true]`)))
	if got := f.textOf(`.saml-settings .field-error:not([hidden])`); !strings.Contains(got, "signOnUrl") {
		t.Errorf("the refusal next to the URL says %q", got)
	}
	f.run("a valid URL",
		typeInto(`input[name=signOnUrl]`, idp.SignOnURL),
		clickButton("Save SAML settings"),
		waitText("#status", "SAML settings saved"))
	f.screenshot("settings")
	var set map[string]any
	json.Unmarshal(adminCall(t, s.url, "GET", "/api/admin/auth/saml/settings", nil), &set)
	if set["enabled"] != true || set["entityId"] != idp.EntityID || set["signOnUrl"] != idp.SignOnURL ||
		!strings.Contains(fmt.Sprint(set["certificate"]), strings.TrimSpace(strings.Split(idp.CertificatePEM, "\n")[1])) {
		t.Fatalf("the API shows %v", set)
	}
	if href := eval[string](f, `[...document.querySelectorAll('a.button')].find(a => a.textContent === 'Test sign-in').getAttribute('href')`); href != "/auth/saml/login" {
		t.Errorf("Test sign-in goes to %q", href)
	}

	// The identity provider trusts this server by its metadata, then signs
	// Sam in; the browser posts its answer back as a person's would.
	st, metadata := call(t, "GET", s.url+"/auth/saml/metadata", "", nil)
	if st != http.StatusOK {
		t.Fatalf("metadata: %d %s", st, metadata)
	}
	if err := idp.Trust(metadata); err != nil {
		t.Fatal(err)
	}
	idp.SignIn(samltest.User{NameID: "sam@example.com", Email: "sam@example.com", Name: "Sam Saml"})
	sam := s.newFlow(t)
	sam.run("signing in with SAML",
		chromedp.Navigate(s.url+"/login"), waitText("a.button", "Sign in with SAML"),
		click(`a.button[href="/auth/saml/login"]`),
		waitJS(`location.href.startsWith(`+jsString(idp.SignOnURL)+`) && document.forms.length === 1`, "the identity provider's answer form"),
		clickButton("Continue"),
		waitText("h1", "Projects"))
	if got := sam.textOf(".who .user"); got != "Sam Saml" {
		t.Errorf("signed in as %q", got)
	}
	var me struct {
		User struct {
			Email string `json:"email"`
		} `json:"user"`
	}
	json.Unmarshal([]byte(eval[string](sam, `fetch('/api/admin/user').then(r => r.text())`)), &me)
	if me.User.Email != "sam@example.com" {
		t.Errorf("the session is %+v", me)
	}
}

// visibleCount is the number of shown elements matching the CSS
// selector sel.
func visibleCount(f *flow, sel string) int {
	f.t.Helper()
	return eval[int](f, fmt.Sprintf(`[...document.querySelectorAll(%q)].filter(e => e.getClientRects().length > 0).length`, sel))
}

// jsString quotes s for JavaScript.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// corsFlow saves the frontend API's origins through the form; the
// frontend API then answers that origin's preflight and requests with its
// CORS headers, and no other origin's.
func corsFlow(t *testing.T, s *uiSuite) {
	const origin = "https://shop.example.test"
	f := s.newFlow(t)
	f.login("admin", s.password)
	f.visit("/admin/settings", "Instance settings")
	f.run("a bad origin",
		typeInto(`textarea[name=frontendApiOrigins]`, "https://shop.example.test/path"),
		clickButton("Save origins"),
		chromedp.WaitVisible(chromedp.CSS(`textarea[name=frontendApiOrigins][aria-invalid=true]`)))
	if got := f.textOf(`.cors-settings .field-error:not([hidden])`); !strings.Contains(got, "no path") {
		t.Errorf("the refusal says %q", got)
	}
	f.run("a good origin",
		typeInto(`textarea[name=frontendApiOrigins]`, origin),
		clickButton("Save origins"), waitText("#status", "Origins saved"))
	var cfg struct {
		FrontendAPIOrigins []string `json:"frontendApiOrigins"`
	}
	json.Unmarshal(adminCall(t, s.url, "GET", "/api/admin/ui-config", nil), &cfg)
	if fmt.Sprint(cfg.FrontendAPIOrigins) != "["+origin+"]" {
		t.Fatalf("the API shows origins %v", cfg.FrontendAPIOrigins)
	}
	tests := []struct {
		method, origin, want string
	}{
		{"OPTIONS", origin, origin},
		{"GET", origin, origin},
		{"OPTIONS", "https://other.example.test", ""},
		{"GET", "https://other.example.test", ""},
	}
	for _, tc := range tests {
		req, _ := http.NewRequest(tc.method, s.url+"/api/frontend", nil)
		req.Header.Set("Origin", tc.origin)
		if tc.method == "OPTIONS" {
			req.Header.Set("Access-Control-Request-Method", "GET")
			req.Header.Set("Access-Control-Request-Headers", "authorization")
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if got := res.Header.Get("Access-Control-Allow-Origin"); got != tc.want {
			t.Errorf("%s from %s: Access-Control-Allow-Origin %q, want %q (status %d)", tc.method, tc.origin, got, tc.want, res.StatusCode)
		}
	}
}

// instanceInfoFlow finds the statistics endpoint's counts on the settings
// page. Other flows add and remove things meanwhile, so it compares a page
// read between two equal answers of the API.
func instanceInfoFlow(t *testing.T, s *uiSuite) {
	keys := []string{"users", "featureToggles", "projects", "environments", "segments", "groups", "roles", "contextFields", "strategies"}
	counts := func() string {
		var st map[string]any
		json.Unmarshal(adminCall(t, s.url, "GET", "/api/admin/instance-admin/statistics", nil), &st)
		var out []string
		for _, k := range keys {
			out = append(out, fmt.Sprintf("%s=%v", k, st[k]))
		}
		return strings.Join(out, " ")
	}
	f := s.newFlow(t)
	f.login("admin", s.password)
	js := fmt.Sprintf(`%s.split(',').map(k => k + '=' + document.querySelector('[data-stat="' + k + '"] dd').textContent).join(' ')`, jsString(strings.Join(keys, ",")))
	for try := 0; ; try++ {
		before := counts()
		f.visit("/admin/settings", "Instance settings")
		f.run("the counts", chromedp.WaitVisible(chromedp.CSS(`[data-stat="users"]`)))
		shown := eval[string](f, js)
		if before != counts() {
			if try == 20 {
				t.Fatal("the counts never held still")
			}
			continue
		}
		if shown != before {
			t.Errorf("the page shows %s, the API %s", shown, before)
		}
		break
	}
	var info struct {
		Version  string `json:"version"`
		Database string `json:"database"`
	}
	json.Unmarshal(adminCall(t, s.url, "GET", "/api/admin/instance-admin/info", nil), &info)
	if got := f.textOf(`[data-info=version]`); got == "" || got != info.Version {
		t.Errorf("version shown %q, the API says %q", got, info.Version)
	}
	// The suite runs on the embedded SQLite database.
	if got := f.textOf(`[data-info=database]`); info.Database != "sqlite" || got != "SQLite (embedded)" {
		t.Errorf("database shown %q, the API says %q", got, info.Database)
	}
}

// importExportFlow exports a project's flags on the import/export page,
// changes and deletes some, uploads the file, sees the validation's
// warning, imports it, and finds the flags restored through the API.
func importExportFlow(t *testing.T, s *uiSuite) {
	const p = "/api/admin/projects/moving/features"
	adminCall(t, s.url, "POST", "/api/admin/projects", obj{"id": "moving", "name": "Moving"})
	adminCall(t, s.url, "POST", p, obj{"name": "move-a", "description": "First"})
	adminCall(t, s.url, "POST", p, obj{"name": "move-b", "description": "Second"})
	adminCall(t, s.url, "POST", p+"/move-a/environments/development/strategies", obj{"name": "flexibleRollout",
		"parameters": obj{"rollout": "40", "stickiness": "default", "groupId": "move-a"}})
	adminCall(t, s.url, "POST", p+"/move-a/environments/development/on", nil)

	f := s.newFlow(t)
	f.login("admin", s.password)
	f.run("the nav entry", click(`nav a[href="/admin/import-export"]`), waitText("h1", "Import and export"))
	f.run("exporting",
		choose(`select[name=exportProject]`, "moving"), choose(`select[name=exportEnvironment]`, "development"),
		clickButton("Export"), waitText(".export-result", "2 flags exported"))
	doc := f.download(`.export-result a[download]`)
	var exported struct {
		Features []struct {
			Name string `json:"name"`
		} `json:"features"`
	}
	if err := json.Unmarshal([]byte(doc), &exported); err != nil || len(exported.Features) != 2 {
		t.Fatalf("the download holds %v (%v): %.300s", exported, err, doc)
	}
	file := filepath.Join(t.TempDir(), "moving.json")
	if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}

	// Change one flag, delete the other for good.
	adminCall(t, s.url, "PATCH", p+"/move-a", []obj{{"op": "replace", "path": "/description", "value": "Changed"}})
	adminCall(t, s.url, "POST", p+"/move-a/environments/development/off", nil)
	adminCall(t, s.url, "DELETE", p+"/move-b", nil)
	adminCall(t, s.url, "DELETE", "/api/admin/archive/move-b", nil)

	f.run("uploading and validating",
		choose(`select[name=importProject]`, "moving"), choose(`select[name=importEnvironment]`, "development"),
		chromedp.SetUploadFiles(chromedp.CSS(`input[type=file]`), []string{file}),
		waitJS(`document.querySelector('textarea[name=document]').value.includes('move-b')`, "the file read"),
		clickButton("Validate"),
		waitText(`[data-findings=warnings]`, "move-a"))
	if got := f.textOf(`[data-findings=warnings]`); !strings.Contains(got, "exist in the project") {
		t.Errorf("the warnings say %q", got)
	}
	if n := f.count(`[data-findings=errors]`); n != 0 {
		t.Errorf("validation shows errors: %s", f.textOf(".import-report"))
	}
	f.screenshot("import-validated")
	f.run("importing", clickButton("Import"), waitText(`[data-result=imported]`, "Imported 2 flags into moving"))
	f.screenshot("import-export")

	for name, want := range map[string]string{"move-a": "First", "move-b": "Second"} {
		var flag map[string]any
		json.Unmarshal(adminCall(t, s.url, "GET", p+"/"+name, nil), &flag)
		if flag["description"] != want {
			t.Errorf("%s after the import: %v", name, flag)
		}
	}
	var tok struct {
		Secret string `json:"secret"`
	}
	json.Unmarshal(adminCall(t, s.url, "POST", "/api/admin/api-tokens", obj{
		"tokenName": "moving-dev", "type": "client", "environment": "development", "projects": []string{"moving"}}), &tok)
	if on := clientFeature(t, s.url, tok.Secret, "move-a")["enabled"]; on != true {
		t.Errorf("move-a is off in development after the import")
	}
	if st := clientFeature(t, s.url, tok.Secret, "move-a")["strategies"].([]any); len(st) != 1 ||
		st[0].(map[string]any)["name"] != "flexibleRollout" ||
		fmt.Sprint(st[0].(map[string]any)["parameters"]) != "map[groupId:move-a rollout:40 stickiness:default]" {
		t.Errorf("move-a's strategies after the import: %v", st)
	}
}

// download clicks the link matching the CSS selector sel and returns the
// file the browser saves.
func (f *flow) download(sel string) string {
	f.t.Helper()
	dir := f.t.TempDir()
	f.run("downloading", chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Call(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
			Behavior: browser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: dir,
			BrowserContextID: chromedp.FromContext(ctx).BrowserContextID,
		})
		return err
	}), click(sel))
	deadline := time.Now().Add(15 * time.Second)
	for {
		files, _ := os.ReadDir(dir)
		for _, e := range files {
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err == nil && json.Valid(data) {
				return string(data)
			}
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("no file downloaded from %s in 15 s", sel)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
