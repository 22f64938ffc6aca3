package server

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/signalbox/signalbox/store"
)

func TestInactiveUsers(t *testing.T) {
	ts := newTestServer(t)
	ref := unleashReference(t)
	old := createTestUser(t, ts, "old", "Viewer", strongPassword)
	recent := createTestUser(t, ts, "recent", "Viewer", strongPassword)
	also := createTestUser(t, ts, "also-old", "Editor", "")
	addServiceAdmin(t, ts) // service accounts are never inactive users
	// Half a year and more later; recent signed in yesterday.
	later := time.Now().Add(200 * 24 * time.Hour)
	ts.srv.now = func() time.Time { return later }
	ctx := context.Background()
	if err := ts.srv.store.Update(ctx, func(tx store.Tx) error {
		_, err := tx.RecordLogin(ctx, recent, true, later.Add(-24*time.Hour))
		return err
	}); err != nil {
		t.Fatal(err)
	}

	list := func() []int {
		t.Helper()
		res := ts.admin("GET", "/api/admin/user-admin/inactive", nil).must(t, http.StatusOK)
		matchesUnleash(t, ref, "inactiveUsersSchema", res.Body)
		var a struct{ InactiveUsers []struct{ ID int } }
		res.Decode(t, &a)
		var ids []int
		for _, u := range a.InactiveUsers {
			ids = append(ids, u.ID)
		}
		return ids
	}
	// The bootstrap admin (1) has not signed in either.
	if got := list(); !slices.Equal(got, []int{1, old, also}) {
		t.Fatalf("inactive %v", got)
	}

	mark := auditMark(t, ts)
	ts.admin("POST", "/api/admin/user-admin/inactive/delete", map[string]any{"ids": []int{old, recent, 999}}).must(t, http.StatusOK)
	if got := list(); !slices.Equal(got, []int{1, also}) {
		t.Errorf("after delete %v", got)
	}
	ev := auditAfter(t, ts, mark)
	if len(ev) != 1 || ev[0].Type != "user-deleted" {
		t.Errorf("events %+v", ev)
	}
	ts.admin("GET", "/api/admin/user-admin/"+strconv.Itoa(recent), nil).must(t, http.StatusOK)

	ts.admin("POST", "/api/admin/user-admin/inactive/delete", map[string]any{}).must(t, http.StatusBadRequest)
	ts.admin("POST", "/api/admin/user-admin/inactive/delete", map[string]any{"ids": "all"}).must(t, http.StatusBadRequest)
	ts.request("GET", "/api/admin/user-admin/inactive", "", nil).must(t, http.StatusUnauthorized)
	ts.request("POST", "/api/admin/user-admin/inactive/delete", testClientToken, map[string]any{"ids": []int{also}}).must(t, http.StatusForbidden)
}
