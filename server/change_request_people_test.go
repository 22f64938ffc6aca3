package server

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/signalbox/signalbox/store"
)

// crProject are the change-request paths of one project.
type crProject string

func (p crProject) propose(env string) string {
	return "/api/admin/projects/" + string(p) + "/environments/" + env + "/change-requests"
}

func (p crProject) config(env string) string { return p.propose(env) + "/config" }

func (p crProject) state(id int) string {
	return "/api/admin/projects/" + string(p) + "/change-requests/" + strconv.Itoa(id) + "/state"
}

// as sends a request as a session (a cookie "name=value") or a token.
func (ts *testServer) as(auth, method, path string, body any) response {
	ts.t.Helper()
	if strings.Contains(auth, "=") {
		return ts.asSession(auth, method, path, body)
	}
	return ts.request(method, path, auth, body)
}

// newAdminToken creates an admin API token as auth and returns its secret.
func newAdminToken(t *testing.T, ts *testServer, auth, name string) string {
	t.Helper()
	var tok TokenJSON
	ts.as(auth, "POST", "/api/admin/api-tokens", map[string]any{"type": "admin", "tokenName": name}).
		must(t, http.StatusCreated).Decode(t, &tok)
	return tok.Secret
}

// TestChangeRequestReviewsArePeople checks that every approval is tied to
// a person: API tokens cannot review, a request proposed through a token
// counts as proposed by the user who created the token (also through a
// token that token created), and whoever changed a request cannot review
// it.
func TestChangeRequestReviewsArePeople(t *testing.T) { crReviewsArePeople(t, newTestServer(t)) }

// TestChangeRequestReviewsArePeoplePostgres is the same on PostgreSQL,
// where token creators are kept by the same migration.
func TestChangeRequestReviewsArePeoplePostgres(t *testing.T) {
	crReviewsArePeople(t, newPostgresTestServer(t))
}

func crReviewsArePeople(t *testing.T, ts *testServer) {
	crFlag(t, ts, "f")
	crFlag(t, ts, "g")
	crEnable(t, ts, "production", 1)
	alice := crUser(t, ts, "alice", "Admin")
	bob := crUser(t, ts, "bob", "Admin")
	carol := crUser(t, ts, "carol", "Editor")
	aliceBot := newAdminToken(t, ts, alice, "alice-bot")
	aliceBot2 := newAdminToken(t, ts, aliceBot, "alice-bot-2") // made by alice's token: still alice's
	def := crProject("default")
	on := func(flag string) map[string]any {
		return map[string]any{"feature": flag, "action": "updateEnabled", "payload": map[string]any{"enabled": true}}
	}
	inReview := func(auth, flag string) changeRequestJSON {
		t.Helper()
		cr := crDecode(t, ts.as(auth, "POST", def.propose("production"), on(flag)).must(t, http.StatusOK))
		ts.as(auth, "PUT", def.state(cr.ID), map[string]any{"state": "In review"}).must(t, http.StatusOK)
		return cr
	}
	approve := map[string]any{"state": "Approved"}

	// Proposed through alice's tokens: alice cannot approve, whichever way
	// she signs in; nor can any API token.
	for _, tok := range []string{aliceBot, aliceBot2} {
		cr := inReview(tok, "f")
		if cr.CreatedBy.ID != nil || cr.CreatedBy.Username == "alice" {
			t.Errorf("a token's request shows its token, not its creator: %+v", cr.CreatedBy)
		}
		mark := auditMark(t, ts)
		mustForbid(t, ts.as(alice, "PUT", def.state(cr.ID), approve), "which you created", "another user")
		for _, other := range []string{testAdminToken, aliceBot, aliceBot2} {
			mustForbid(t, ts.as(other, "PUT", def.state(cr.ID), approve), "API tokens cannot approve", "person")
			mustForbid(t, ts.as(other, "PUT", def.state(cr.ID), map[string]any{"state": "Rejected"}), "API tokens cannot")
		}
		mustNoAudit(t, ts, mark)
		// Another person can.
		ts.as(carol, "PUT", def.state(cr.ID), approve).must(t, http.StatusOK)
		mustOneAudit(t, ts, mark, "change-request-approved")
		ts.as(carol, "PUT", def.state(cr.ID), map[string]any{"state": "Applied"}).must(t, http.StatusOK)
	}

	// An admin API token cannot approve a person's request either.
	cr := inReview(bob, "g")
	mark := auditMark(t, ts)
	mustForbid(t, ts.as(testAdminToken, "PUT", def.state(cr.ID), approve), "API tokens cannot approve")
	mustForbid(t, ts.as(bob, "PUT", def.state(cr.ID), approve), "author")
	mustNoAudit(t, ts, mark)

	// An Admin may edit another's change, but then cannot approve it.
	change := crChangeIDs(cr)[0]
	ts.as(alice, "PUT", "/api/admin/projects/default/change-requests/"+strconv.Itoa(cr.ID)+"/changes/"+strconv.Itoa(change),
		map[string]any{"action": "updateEnabled", "payload": map[string]any{"enabled": false}}).must(t, http.StatusOK)
	mustForbid(t, ts.as(alice, "PUT", def.state(cr.ID), approve), "you made change")
	ts.as(carol, "PUT", def.state(cr.ID), approve).must(t, http.StatusOK)

	// A token made by a token made at start-up has no known creator.
	creators := map[string]int{}
	_ = ts.srv.store.View(t.Context(), func(r store.Reader) error {
		list, err := r.ListAPITokens(t.Context(), store.APITokenFilter{})
		for _, tok := range list {
			creators[tok.TokenName] = tok.CreatedByUserID
		}
		return err
	})
	if creators["alice-bot"] == 0 || creators["alice-bot-2"] != creators["alice-bot"] || creators["init-admin"] != 0 {
		t.Errorf("token creators %v", creators)
	}
}

// TestChangeRequestRequirementNeedsAdminToWeaken checks who may change the
// change-request requirement: project Owners (and Admins) may turn it on
// or ask for more approvals; only Admins may turn it off or ask for fewer,
// so nobody switches the review off alone. Each change is one event.
func TestChangeRequestRequirementNeedsAdminToWeaken(t *testing.T) {
	ts := newTestServer(t)
	editor := crUser(t, ts, "eddie", "Editor")
	admin := crUser(t, ts, "ada", "Admin")
	def, own := crProject("default"), crProject("eddies")
	ts.as(editor, "POST", "/api/admin/projects", map[string]any{"id": "eddies"}).must(t, http.StatusCreated)
	onWith := func(enabled bool, approvals int) map[string]any {
		return map[string]any{"changeRequestsEnabled": enabled, "requiredApprovals": approvals}
	}

	// Not an Owner of the default project: no say at all.
	crEnable(t, ts, "production", 1)
	crFlag(t, ts, "f")
	mark := auditMark(t, ts)
	mustForbid(t, ts.as(editor, "PUT", def.config("production"), onWith(false, 1)), "UPDATE_PROJECT")
	mustForbid(t, ts.as(editor, "PUT", def.config("production"), onWith(true, 3)), "UPDATE_PROJECT")
	// So the direct edit stays refused.
	mustForbid(t, ts.as(editor, "POST", crFlags+"/f/environments/production/on", nil), "change request")
	mustNoAudit(t, ts, mark)

	// In the project the Editor owns: on and stricter, yes; off or laxer, no.
	for _, tt := range []struct {
		name      string
		auth      string
		enabled   bool
		approvals int
		status    int
	}{
		{"owner turns on", editor, true, 2, http.StatusNoContent},
		{"owner asks for more", editor, true, 3, http.StatusNoContent},
		{"owner asks for fewer", editor, true, 1, http.StatusForbidden},
		{"owner turns off", editor, false, 3, http.StatusForbidden},
		{"admin asks for fewer", admin, true, 1, http.StatusNoContent},
		{"admin turns off", admin, false, 1, http.StatusNoContent},
		{"owner changes approvals while off", editor, false, 2, http.StatusNoContent},
	} {
		mark := auditMark(t, ts)
		res := ts.as(tt.auth, "PUT", own.config("production"), onWith(tt.enabled, tt.approvals))
		if tt.status == http.StatusForbidden {
			mustForbid(t, res, "only an Admin")
			mustNoAudit(t, ts, mark)
			continue
		}
		res.must(t, tt.status)
		e := mustOneAudit(t, ts, mark, "change-request-configuration-updated")
		want, _ := json.Marshal(configData{tt.enabled, tt.approvals})
		if e.Project != "eddies" || e.Environment != "production" || !sameJSONValue(e.Data, want) {
			t.Errorf("%s: event %+v data %s", tt.name, e, e.Data)
		}
	}

	// Removing the environment (from the project, or altogether) and
	// adding it back would drop the requirement too: Admins only.
	ts.admin("POST", "/api/admin/environments", map[string]any{"name": "staging", "type": "production"}).must(t, http.StatusCreated)
	ts.as(editor, "POST", "/api/admin/projects/eddies/environments", map[string]any{"environment": "staging"}).must(t, http.StatusOK)
	ts.as(editor, "PUT", own.config("staging"), onWith(true, 1)).must(t, http.StatusNoContent)
	mark = auditMark(t, ts)
	mustForbid(t, ts.as(editor, "DELETE", "/api/admin/projects/eddies/environments/staging", nil), "only an Admin")
	mustForbid(t, ts.as(editor, "DELETE", "/api/admin/environments/staging", nil), "only an Admin")
	mustNoAudit(t, ts, mark)
	ts.as(admin, "DELETE", "/api/admin/projects/eddies/environments/staging", nil).must(t, http.StatusOK)
	mustOneAudit(t, ts, mark, "project-environment-removed")
}

// TestChangeRequestProjectRoles checks that project roles take part in
// change requests as their permissions say: a Member proposes, an Owner
// who did not propose approves and applies, a Member does not approve or
// apply, and a user without a role in the project does nothing.
func TestChangeRequestProjectRoles(t *testing.T) {
	ts := newTestServer(t)
	ts.admin("POST", "/api/admin/projects", map[string]any{"id": "team"}).must(t, http.StatusCreated)
	ts.admin("POST", "/api/admin/projects/team/features", map[string]any{"name": "team-flag"}).must(t, http.StatusCreated)
	team := crProject("team")
	ts.admin("PUT", team.config("production"), map[string]any{"changeRequestsEnabled": true, "requiredApprovals": 1}).
		must(t, http.StatusNoContent)
	grant := func(name string, role int) string {
		id := createTestUser(t, ts, name, "Viewer", strongPassword)
		ts.admin("POST", "/api/admin/projects/team/access", map[string]any{"roles": []int{role}, "users": []map[string]int{{"id": id}}}).
			must(t, http.StatusOK)
		return signIn(t, ts, name, strongPassword)
	}
	member := grant("mia", store.RoleMember)
	owner := grant("otto", store.RoleOwner)
	owner2 := grant("olga", store.RoleOwner)
	member2 := grant("max", store.RoleMember)
	outsider := viewerSession(t, ts)
	on := map[string]any{"feature": "team-flag", "action": "updateEnabled", "payload": map[string]any{"enabled": true}}

	mustForbid(t, ts.as(outsider, "POST", team.propose("production"), on), "UPDATE_FEATURE")
	cr := crDecode(t, ts.as(member, "POST", team.propose("production"), on).must(t, http.StatusOK))
	ts.as(member, "PUT", team.state(cr.ID), map[string]any{"state": "In review"}).must(t, http.StatusOK)
	comments := "/api/admin/projects/team/change-requests/" + strconv.Itoa(cr.ID) + "/comments"
	mustForbid(t, ts.as(outsider, "POST", comments, map[string]any{"text": "hm"}), "UPDATE_FEATURE")
	mark := auditMark(t, ts)
	ts.as(member2, "POST", comments, map[string]any{"text": "looks right"}).must(t, http.StatusCreated)
	mustOneAudit(t, ts, mark, "change-request-comment-added")

	mark = auditMark(t, ts)
	mustForbid(t, ts.as(member, "PUT", team.state(cr.ID), map[string]any{"state": "Approved"}), "APPROVE_CHANGE_REQUEST")
	mustForbid(t, ts.as(member2, "PUT", team.state(cr.ID), map[string]any{"state": "Approved"}), "APPROVE_CHANGE_REQUEST", "team")
	mustForbid(t, ts.as(outsider, "PUT", team.state(cr.ID), map[string]any{"state": "Approved"}), "UPDATE_FEATURE")
	mustNoAudit(t, ts, mark)
	ts.as(owner, "PUT", team.state(cr.ID), map[string]any{"state": "Approved"}).must(t, http.StatusOK)
	mustOneAudit(t, ts, mark, "change-request-approved")
	mustForbid(t, ts.as(member, "PUT", team.state(cr.ID), map[string]any{"state": "Applied"}), "APPLY_CHANGE_REQUEST", "team")
	ts.as(owner, "PUT", team.state(cr.ID), map[string]any{"state": "Applied"}).must(t, http.StatusOK)
	var fe adminFeatureEnv
	ts.admin("GET", "/api/admin/projects/team/features/team-flag/environments/production", nil).must(t, http.StatusOK).Decode(t, &fe)
	if !fe.Enabled {
		t.Errorf("applied request did not switch the flag on")
	}

	// An Owner's own request needs another Owner (or an Editor or Admin).
	off := map[string]any{"feature": "team-flag", "action": "updateEnabled", "payload": map[string]any{"enabled": false}}
	cr = crDecode(t, ts.as(owner, "POST", team.propose("production"), off).must(t, http.StatusOK))
	ts.as(owner, "PUT", team.state(cr.ID), map[string]any{"state": "In review"}).must(t, http.StatusOK)
	mustForbid(t, ts.as(owner, "PUT", team.state(cr.ID), map[string]any{"state": "Approved"}), "author")
	ts.as(owner2, "PUT", team.state(cr.ID), map[string]any{"state": "Approved"}).must(t, http.StatusOK)
	ts.as(owner, "PUT", team.state(cr.ID), map[string]any{"state": "Applied"}).must(t, http.StatusOK)
}

// The UI shows the review and apply buttons from the permissions that GET
// /api/admin/user lists; they must follow the root roles.
func TestMeListsChangeRequestPermissions(t *testing.T) {
	ts := newTestServer(t)
	tests := []struct {
		role string
		want bool
	}{
		{"Editor", true},
		{"Viewer", false},
	}
	for _, tt := range tests {
		t.Run(tt.role, func(t *testing.T) {
			cookie := crUser(t, ts, "me-"+strings.ToLower(tt.role), tt.role)
			var me struct {
				Permissions []map[string]string `json:"permissions"`
			}
			ts.asSession(cookie, "GET", "/api/admin/user", nil).must(t, http.StatusOK).Decode(t, &me)
			for _, perm := range []Permission{PermApproveChangeRequest, PermApplyChangeRequest} {
				got := slices.ContainsFunc(me.Permissions, func(p map[string]string) bool { return p["permission"] == string(perm) })
				if got != tt.want {
					t.Errorf("%s: %s listed %v, want %v", tt.role, perm, got, tt.want)
				}
			}
		})
	}
}
