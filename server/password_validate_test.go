package server

import (
	"net/http"
	"testing"
)

func TestValidatePassword(t *testing.T) {
	ts := newTestServer(t)
	const path = "/auth/reset/validate-password"
	mark := auditMark(t, ts)
	for _, tt := range []struct {
		body any
		want int
	}{
		{map[string]string{"password": testAdminPassword}, 200},
		{map[string]string{"password": strongPassword}, 200},
		{map[string]string{"password": "hunter2"}, 400},
		{map[string]string{"password": "alllowercaseletters"}, 400},
		{map[string]string{}, 400},
		{"{", 400},
	} {
		res := ts.request("POST", path, "", tt.body).must(t, tt.want)
		if tt.want == 400 {
			if o := res.Object(); o["message"] == "" || o["name"] == nil {
				t.Errorf("%v: body %s", tt.body, res.Body)
			}
		}
	}
	if ev := auditAfter(t, ts, mark); len(ev) != 0 {
		t.Errorf("events %+v", ev)
	}
	ts.request("POST", path, "", "<x/>", "Content-Type", "application/xml").must(t, http.StatusUnsupportedMediaType)
}
