package server

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/signalbox/signalbox/store/sqlstore"
)

// strongPassword passes the password rules.
const strongPassword = "Sturdy-Lantern-42"

// createTestUser creates a user through the admin API and returns its id.
func createTestUser(t *testing.T, ts *testServer, username string, role any, password string) int {
	t.Helper()
	body := map[string]any{"username": username, "rootRole": role}
	if password != "" {
		body["password"] = password
	}
	var u struct{ ID int }
	ts.admin("POST", "/api/admin/user-admin", body).must(t, http.StatusCreated).Decode(t, &u)
	return u.ID
}

// signIn logs in and returns the Cookie header value of the session.
func signIn(t *testing.T, ts *testServer, login, password string) string {
	t.Helper()
	res := ts.request("POST", "/auth/simple/login", "", map[string]string{"username": login, "password": password}).must(t, http.StatusOK)
	for _, c := range res.Header.Values("Set-Cookie") {
		if v, _, _ := strings.Cut(c, ";"); strings.HasPrefix(v, SessionCookie+"=") {
			return v
		}
	}
	t.Fatal("login set no session cookie")
	return ""
}

// viewerSession creates a Viewer with a password and signs them in.
func viewerSession(t *testing.T, ts *testServer) string {
	t.Helper()
	createTestUser(t, ts, "vera-viewer", "Viewer", strongPassword)
	return signIn(t, ts, "vera-viewer", strongPassword)
}

// asSession sends a request authenticated by a session cookie.
func (ts *testServer) asSession(cookie, method, path string, body any) response {
	ts.t.Helper()
	return ts.request(method, path, "", body, "Cookie", cookie)
}

func TestCreateUserSeedForm(t *testing.T) {
	ts := newTestServer(t)
	tests := []struct {
		name     string
		body     map[string]any
		rootRole any
		stored   float64
	}{
		{"role id", map[string]any{"username": "ivy", "rootRole": 3}, float64(3), 3},
		{"role name", map[string]any{"email": "ed@example.com", "name": "Ed", "rootRole": "Editor"}, "Editor", 2},
		{"role name any case", map[string]any{"username": "al", "rootRole": "admin", "sendEmail": false}, "Admin", 1},
		{"project role", map[string]any{"username": "mo", "rootRole": "Member"}, "Member", 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mark := auditMark(t, ts)
			res := ts.admin("POST", "/api/admin/user-admin", tt.body).must(t, http.StatusCreated)
			body := res.Object()
			id := body["id"].(float64)
			if body["rootRole"] != tt.rootRole {
				t.Errorf("rootRole %v, want %v (%T)", body["rootRole"], tt.rootRole, tt.rootRole)
			}
			if loc := res.Header.Get("Location"); loc != "/api/admin/user-admin/"+strconv.Itoa(int(id)) {
				t.Errorf("location %q", loc)
			}
			if body["emailSent"] != false || body["createdAt"] == nil || body["accountType"] != "User" {
				t.Errorf("create response %s", res.Body)
			}
			got := ts.admin("GET", "/api/admin/user-admin/"+strconv.Itoa(int(id)), nil).must(t, http.StatusOK).Object()
			if got["rootRole"] != tt.stored {
				t.Errorf("stored rootRole %v, want %v", got["rootRole"], tt.stored)
			}
			e := mustOneAudit(t, ts, mark, "user-created")
			wantSend := tt.body["sendEmail"] == nil
			if !strings.Contains(string(e.Data), `"sendEmail":`+strconv.FormatBool(wantSend)) {
				t.Errorf("event data should record sendEmail %v: %s", wantSend, e.Data)
			}
		})
	}
}

func TestCreateUserValidation(t *testing.T) {
	ts := newTestServer(t)
	createTestUser(t, ts, "taken", 2, "")
	tests := []struct {
		name   string
		body   any
		status int
		kind   string
	}{
		{"neither username nor email", map[string]any{"name": "Nobody", "rootRole": 3}, 400, "ValidationError"},
		{"no rootRole", map[string]any{"username": "x1"}, 400, "ValidationError"},
		{"unknown role name", map[string]any{"username": "x2", "rootRole": "Overlord"}, 400, "ValidationError"},
		{"unknown role id", map[string]any{"username": "x3", "rootRole": 99}, 400, "ValidationError"},
		{"fractional role id", map[string]any{"username": "x4", "rootRole": 1.5}, 400, "ValidationError"},
		{"bad email", map[string]any{"email": "not-an-address", "rootRole": 3}, 400, "ValidationError"},
		{"email with display name", map[string]any{"email": "Ann <ann@example.com>", "rootRole": 3}, 400, "ValidationError"},
		{"password too long for bcrypt", map[string]any{"username": "x5", "rootRole": 3, "password": strings.Repeat("a", 73)}, 400, "ValidationError"},
		{"username taken", map[string]any{"username": "TAKEN", "rootRole": 3}, 400, "BadDataError"},
		{"malformed JSON", `{"username": `, 400, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mark := auditMark(t, ts)
			res := ts.admin("POST", "/api/admin/user-admin", tt.body)
			if tt.kind == "" {
				res.must(t, tt.status)
			} else {
				mustErrorRecord(t, res, tt.status, tt.kind, "")
			}
			mustNoAudit(t, ts, mark)
		})
	}
	mustErrorRecord(t, ts.request("POST", "/api/admin/user-admin", testAdminToken, `{}`, "Content-Type", "text/plain"), 415, "ContentTypeError", "")
	mustErrorRecord(t, ts.request("POST", "/api/admin/user-admin", "", map[string]any{"username": "y", "rootRole": 3}), 401, "AuthenticationRequired", "")
}

func TestUserAdminReadUpdateDelete(t *testing.T) {
	ts := newTestServer(t)
	id := createTestUser(t, ts, "uma", 3, "")
	path := "/api/admin/user-admin/" + strconv.Itoa(id)

	var list struct {
		Users     []map[string]any `json:"users"`
		RootRoles []map[string]any `json:"rootRoles"`
	}
	ts.admin("GET", "/api/admin/user-admin", nil).must(t, http.StatusOK).Decode(t, &list)
	if len(list.Users) != 2 || len(list.RootRoles) != 3 || list.RootRoles[0]["name"] != "Admin" {
		t.Errorf("user list %+v", list)
	}
	mustErrorRecord(t, ts.admin("GET", "/api/admin/user-admin/abc", nil), 400, "ValidationError", "id")
	mustErrorRecord(t, ts.admin("GET", "/api/admin/user-admin/999", nil), 404, "NotFoundError", "")

	mark := auditMark(t, ts)
	res := ts.admin("PUT", path, map[string]any{"email": "uma@example.com"}).must(t, http.StatusOK).Object()
	if res["email"] != "uma@example.com" || res["username"] != "uma" || res["rootRole"] != float64(3) {
		t.Errorf("after changing the e-mail: %v", res)
	}
	e := mustOneAudit(t, ts, mark, "user-updated")
	if !strings.Contains(string(e.Data), `uma@example.com`) || e.PreData == nil || strings.Contains(string(e.PreData), `uma@example.com`) {
		t.Errorf("event data %s, preData %s", e.Data, e.PreData)
	}
	res = ts.admin("PUT", path, map[string]any{"name": "Uma", "rootRole": "Editor"}).must(t, http.StatusOK).Object()
	if res["name"] != "Uma" || res["email"] != "uma@example.com" || res["rootRole"] != "Editor" {
		t.Errorf("after changing name and role: %v", res)
	}
	if got := ts.admin("GET", path, nil).must(t, http.StatusOK).Object(); got["rootRole"] != float64(2) {
		t.Errorf("stored role %v", got["rootRole"])
	}
	mustErrorRecord(t, ts.admin("PUT", path, map[string]any{"email": "", "username": ""}), 400, "ValidationError", "")
	mustErrorRecord(t, ts.admin("PUT", path, map[string]any{"email": "broken@"}), 400, "ValidationError", "email")
	mustErrorRecord(t, ts.admin("PUT", path, map[string]any{"rootRole": "Nope"}), 400, "ValidationError", "rootRole")
	mustErrorRecord(t, ts.admin("PUT", "/api/admin/user-admin/999", map[string]any{"name": "x"}), 404, "NotFoundError", "")

	mark = auditMark(t, ts)
	ts.admin("DELETE", path, nil).must(t, http.StatusOK)
	mustOneAudit(t, ts, mark, "user-deleted")
	ts.admin("GET", path, nil).must(t, http.StatusNotFound)
	ts.admin("DELETE", path, nil).must(t, http.StatusNotFound)
}

func TestUserPasswords(t *testing.T) {
	ts := newTestServer(t)
	id := createTestUser(t, ts, "pat-owner", 2, strongPassword)
	path := "/api/admin/user-admin/" + strconv.Itoa(id) + "/change-password"
	for _, weak := range []string{"short-1A", "alllowercase-123", "NoDigitsHere!!x", "Aaa-aaaa-1234x"} {
		mustErrorRecord(t, ts.admin("POST", path, map[string]any{"password": weak}), 400, "ValidationError", "password")
	}
	other := signIn(t, ts, "pat-owner", strongPassword)
	mark := auditMark(t, ts)
	ts.admin("POST", path, map[string]any{"password": "Another-Good-Pass7"}).must(t, http.StatusOK)
	e := mustOneAudit(t, ts, mark, "user-updated")
	if strings.Contains(string(e.Data), "$2") {
		t.Errorf("event leaks the hash: %s", e.Data)
	}
	ts.asSession(other, "GET", "/api/admin/user", nil).must(t, http.StatusUnauthorized)
	ts.request("POST", "/auth/simple/login", "", map[string]string{"username": "pat-owner", "password": strongPassword}).must(t, http.StatusUnauthorized)
	cookie := signIn(t, ts, "pat-owner", "Another-Good-Pass7")
	second := signIn(t, ts, "pat-owner", "Another-Good-Pass7")

	own := "/api/admin/user/change-password"
	tests := []struct {
		name   string
		body   map[string]any
		status int
		kind   string
	}{
		{"no old password", map[string]any{"password": strongPassword}, 400, "ValidationError"},
		{"confirmation differs", map[string]any{"password": strongPassword, "confirmPassword": "x", "oldPassword": "Another-Good-Pass7"}, 400, "ValidationError"},
		{"wrong old password", map[string]any{"password": strongPassword, "oldPassword": "guess"}, 401, "PasswordMismatch"},
		{"weak new password", map[string]any{"password": "weak", "oldPassword": "Another-Good-Pass7"}, 400, "ValidationError"},
	}
	for _, tt := range tests {
		mustErrorRecord(t, ts.asSession(cookie, "POST", own, tt.body), tt.status, tt.kind, "")
	}
	ts.asSession(cookie, "POST", own, map[string]any{"password": strongPassword, "confirmPassword": strongPassword, "oldPassword": "Another-Good-Pass7"}).must(t, http.StatusOK)
	ts.asSession(cookie, "GET", "/api/admin/user", nil).must(t, http.StatusOK)
	ts.asSession(second, "GET", "/api/admin/user", nil).must(t, http.StatusUnauthorized)
	signIn(t, ts, "pat-owner", strongPassword)
	mustErrorRecord(t, ts.admin("POST", own, map[string]any{"password": strongPassword, "oldPassword": "x"}), 400, "BadDataError", "")
}

func TestOwnUserAndProfile(t *testing.T) {
	ts := newTestServer(t)
	cookie := viewerSession(t, ts)

	var me struct {
		User        map[string]any      `json:"user"`
		Permissions []map[string]string `json:"permissions"`
	}
	ts.asSession(cookie, "GET", "/api/admin/user", nil).must(t, http.StatusOK).Decode(t, &me)
	if me.User["username"] != "vera-viewer" || me.User["rootRole"] != float64(3) || len(me.Permissions) != 0 {
		t.Errorf("viewer me %+v", me)
	}
	res := ts.admin("GET", "/api/admin/user", nil).must(t, http.StatusOK)
	if strings.Contains(string(res.Body), "admin-secret-for-tests") || !strings.Contains(string(res.Body), `"permission":"ADMIN"`) {
		t.Errorf("token me must name its permissions and never its secret: %s", res.Body)
	}

	var profile struct {
		RootRole map[string]any `json:"rootRole"`
		Projects []string       `json:"projects"`
		Features []any          `json:"features"`
	}
	ts.asSession(cookie, "GET", "/api/admin/user/profile", nil).must(t, http.StatusOK).Decode(t, &profile)
	if profile.RootRole["id"] != float64(3) || profile.RootRole["name"] != "Viewer" || profile.RootRole["type"] != "root" ||
		profile.RootRole["description"] == "" || profile.Projects == nil || profile.Features == nil || len(profile.Features) != 0 {
		t.Errorf("profile %+v", profile)
	}
	mustErrorRecord(t, ts.admin("GET", "/api/admin/user/profile", nil), 400, "BadDataError", "")
	mustErrorRecord(t, ts.request("GET", "/api/admin/user/profile", "", nil), 401, "AuthenticationRequired", "")
}

// TestViewerCannotWrite checks that a Viewer gets 403 NoAccessError naming
// the missing permission on every write of these areas, and changes nothing.
func TestViewerCannotWrite(t *testing.T) {
	ts := newTestServer(t)
	cookie := viewerSession(t, ts)
	tests := []struct {
		method, path string
		body         any
		perm         Permission
	}{
		{"POST", "/api/admin/projects", map[string]any{"id": "p"}, PermCreateProject},
		{"PUT", "/api/admin/projects/default", map[string]any{"name": "x"}, PermUpdateProject},
		{"DELETE", "/api/admin/projects/default", nil, PermDeleteProject},
		{"POST", "/api/admin/projects/default/environments", map[string]any{"environment": "production"}, PermUpdateProject},
		{"DELETE", "/api/admin/projects/default/environments/production", nil, PermUpdateProject},
		{"POST", "/api/admin/projects/default/environments/production/default-strategy", map[string]any{"name": "default"}, PermUpdateProject},
		{"POST", "/api/admin/environments", map[string]any{"name": "qa", "type": "test"}, PermCreateEnvironment},
		{"PUT", "/api/admin/environments/production", map[string]any{"type": "x"}, PermUpdateEnvironment},
		{"DELETE", "/api/admin/environments/production", nil, PermDeleteEnvironment},
		{"POST", "/api/admin/environments/production/off", nil, PermUpdateEnvironment},
		{"PUT", "/api/admin/environments/sort-order", map[string]int{"production": 1}, PermUpdateEnvironment},
		{"POST", "/api/admin/segments", map[string]any{"name": "s", "constraints": []any{}}, PermCreateSegment},
		{"PUT", "/api/admin/segments/1", map[string]any{"name": "s", "constraints": []any{}}, PermUpdateSegment},
		{"DELETE", "/api/admin/segments/1", nil, PermDeleteSegment},
		{"POST", "/api/admin/context", map[string]any{"name": "tenant"}, PermCreateContextField},
		{"PUT", "/api/admin/context/userId", map[string]any{"description": "x"}, PermUpdateContextField},
		{"DELETE", "/api/admin/context/tenant", nil, PermDeleteContextField},
		{"POST", "/api/admin/tag-types", map[string]any{"name": "team"}, PermCreateTagType},
		{"PUT", "/api/admin/tag-types/simple", map[string]any{"description": "x"}, PermUpdateTagType},
		{"DELETE", "/api/admin/tag-types/simple", nil, PermDeleteTagType},
		{"POST", "/api/admin/strategies", map[string]any{"name": "custom", "parameters": []any{}}, PermCreateStrategy},
		{"PUT", "/api/admin/strategies/custom", map[string]any{"parameters": []any{}}, PermUpdateStrategy},
		{"POST", "/api/admin/strategies/userWithId/deprecate", nil, PermUpdateStrategy},
		{"DELETE", "/api/admin/strategies/custom", nil, PermDeleteStrategy},
		{"POST", "/api/admin/user-admin", map[string]any{"username": "z", "rootRole": 1}, PermAdmin},
		{"GET", "/api/admin/user-admin", nil, PermAdmin},
		{"PUT", "/api/admin/user-admin/1", map[string]any{"rootRole": 3}, PermAdmin},
		{"DELETE", "/api/admin/user-admin/1", nil, PermAdmin},
		{"POST", "/api/admin/user-admin/1/change-password", map[string]any{"password": strongPassword}, PermAdmin},
		{"POST", "/api/admin/api-tokens", map[string]any{"type": "client", "tokenName": "t"}, PermCreateAPIToken},
		{"GET", "/api/admin/api-tokens", nil, PermReadAPIToken},
		{"PUT", "/api/admin/api-tokens/1", map[string]any{"expiresAt": "2040-01-01T00:00:00Z"}, PermUpdateAPIToken},
		{"DELETE", "/api/admin/api-tokens/1", nil, PermDeleteAPIToken},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			mark := auditMark(t, ts)
			res := ts.asSession(cookie, tt.method, tt.path, tt.body)
			mustErrorRecord(t, res, http.StatusForbidden, "NoAccessError", "")
			if !strings.Contains(res.Object()["message"].(string), string(tt.perm)) {
				t.Errorf("message should name %s: %s", tt.perm, res.Body)
			}
			mustNoAudit(t, ts, mark)
		})
	}
	// Reading is allowed.
	for _, path := range []string{"/api/admin/projects", "/api/admin/environments", "/api/admin/segments", "/api/admin/context",
		"/api/admin/tag-types", "/api/admin/strategies", "/api/admin/events", "/api/admin/metrics/applications"} {
		ts.asSession(cookie, "GET", path, nil).must(t, http.StatusOK)
	}
}

func TestUserSearchAndPasswordCheck(t *testing.T) {
	ts := newTestServer(t)
	createTestUser(t, ts, "searchable-sam", 3, "")
	var found []map[string]any
	ts.admin("GET", "/api/admin/user-admin/search?q=SEARCHABLE", nil).must(t, http.StatusOK).Decode(t, &found)
	if len(found) != 1 || found[0]["username"] != "searchable-sam" {
		t.Errorf("search found %v", found)
	}
	ts.admin("GET", "/api/admin/user-admin/search?q=s", nil).must(t, http.StatusOK).Decode(t, &found)
	if len(found) != 0 {
		t.Errorf("a one-letter query finds nothing, got %v", found)
	}
	ts.admin("POST", "/api/admin/user-admin/validate-password", map[string]any{"password": strongPassword}).must(t, http.StatusOK)
	mustErrorRecord(t, ts.admin("POST", "/api/admin/user-admin/validate-password", map[string]any{"password": "weak"}), 400, "ValidationError", "password")
}

// newFuzzServer is a server over a fresh SQLite file for in-process fuzzing.
func newFuzzServer(tb testing.TB) http.Handler {
	tb.Helper()
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, filepath.Join(tb.TempDir(), "fuzz.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	if _, err := Bootstrap(ctx, st, BootstrapConfig{AdminTokens: []string{testAdminToken}, AdminPassword: testAdminPassword}); err != nil {
		tb.Fatal(err)
	}
	srv, err := New(ctx, st, Config{Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		tb.Fatal(err)
	}
	return srv.Handler()
}

// fuzzPost posts body in-process and fails on any 5xx.
func fuzzPost(t *testing.T, h http.Handler, path string, body []byte) {
	req := httptest.NewRequest("POST", path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", testAdminToken)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code >= 500 {
		t.Fatalf("POST %s %q: status %d: %s", path, body, rec.Code, rec.Body)
	}
}

func FuzzCreateUser(f *testing.F) {
	for _, seed := range []string{
		`{"username":"a","rootRole":1}`, `{"email":"a@b.co","rootRole":"Editor","sendEmail":false}`,
		`{"username":"b","rootRole":99999999999999999999}`, `{"username":"\u0000","rootRole":3}`,
		`{"username":"c","rootRole":[1]}`, `{"username":"d","rootRole":3,"password":"x"}`, `null`, `[]`, `{"rootRole":null}`,
		`{"email":"` + strings.Repeat("x", 300) + `@example.com","rootRole":3}`,
	} {
		f.Add([]byte(seed))
	}
	h := newFuzzServer(f)
	f.Fuzz(func(t *testing.T, body []byte) { fuzzPost(t, h, "/api/admin/user-admin", body) })
}
