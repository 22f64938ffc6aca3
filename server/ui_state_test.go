package server

import (
	"net/http"
	"testing"
)

func TestFeedbackAndSplash(t *testing.T) {
	ts := newTestServer(t)
	ref := unleashReference(t)
	createTestUser(t, ts, "ed", "Editor", strongPassword)
	cookie := signIn(t, ts, "ed", strongPassword)

	mark := auditMark(t, ts)
	res := ts.asSession(cookie, "POST", "/api/admin/feedback", map[string]any{"feedbackId": "pnps", "neverShow": true}).must(t, http.StatusOK)
	matchesUnleash(t, ref, "feedbackResponseSchema", res.Body)
	res = ts.asSession(cookie, "PUT", "/api/admin/feedback/pnps", map[string]any{"neverShow": false}).must(t, http.StatusOK)
	matchesUnleash(t, ref, "feedbackResponseSchema", res.Body)
	res = ts.asSession(cookie, "POST", "/api/admin/splash/new-ui", nil).must(t, http.StatusOK)
	matchesUnleash(t, ref, "splashResponseSchema", res.Body)
	if ev := auditAfter(t, ts, mark); len(ev) != 3 || ev[0].Type != "setting-updated" {
		t.Errorf("events %+v", ev)
	}

	var me struct {
		Feedback []struct {
			FeedbackID string
			NeverShow  bool
			Given      *string
		}
		Splash map[string]bool
	}
	ts.asSession(cookie, "GET", "/api/admin/user", nil).must(t, http.StatusOK).Decode(t, &me)
	if len(me.Feedback) != 1 || me.Feedback[0].FeedbackID != "pnps" || me.Feedback[0].NeverShow || me.Feedback[0].Given == nil || !me.Splash["new-ui"] {
		t.Errorf("me %+v", me)
	}
	// Another person's state is their own.
	createTestUser(t, ts, "al", "Viewer", strongPassword)
	other := signIn(t, ts, "al", strongPassword)
	me.Feedback, me.Splash = nil, nil
	ts.asSession(other, "GET", "/api/admin/user", nil).must(t, http.StatusOK).Decode(t, &me)
	if len(me.Feedback) != 0 || len(me.Splash) != 0 {
		t.Errorf("al sees %+v", me)
	}

	ts.asSession(cookie, "POST", "/api/admin/feedback", map[string]any{"neverShow": true}).must(t, http.StatusBadRequest)
	ts.admin("POST", "/api/admin/feedback", map[string]any{"feedbackId": "pnps"}).must(t, http.StatusBadRequest)
	ts.admin("POST", "/api/admin/splash/x", nil).must(t, http.StatusBadRequest)
	ts.request("POST", "/api/admin/splash/x", "", nil).must(t, http.StatusUnauthorized)
}
