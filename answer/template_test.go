package answer

import (
	"bytes"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/engine"
	"github.com/signalbox/signalbox/internal/fixture"
)

// TestTemplateAnswers: answers written from a template (the flags that
// are the same for every user kept encoded, the rest evaluated per
// request) have the bytes and ETag of answers evaluated whole, for many
// users of a few shared contexts, all flags or enabled ones, on realistic
// payloads and one with variants, dependencies and a launch date; and
// while the clock crosses that date. It also checks that templates were
// kept and answered from, so that it shows something.
func TestTemplateAnswers(t *testing.T) {
	launch := time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)
	dated := piecesPayload()
	dated.Features = append(dated.Features,
		clientapi.Feature{Name: "launch", Enabled: true, Strategies: []clientapi.Strategy{{Name: "default", Constraints: []clientapi.Constraint{
			{ContextName: "currentTime", Operator: "DATE_AFTER", Value: launch.Format(time.RFC3339)}}}}},
		clientapi.Feature{Name: "launch-for-some", Enabled: true, Strategies: []clientapi.Strategy{{Name: "flexibleRollout",
			Parameters: clientapi.Parameters{"rollout": "50", "stickiness": "default"}, Constraints: []clientapi.Constraint{
				{ContextName: "currentTime", Operator: "DATE_AFTER", Value: launch.Format(time.RFC3339)}}}}},
		clientapi.Feature{Name: "after-launch", Enabled: true, Dependencies: []clientapi.Dependency{{Feature: "launch"}}})
	payloads := map[string]*clientapi.Features{"fixture 1": fixture.Features(300, 1), "fixture 2": fixture.Features(300, 2), "pieces and a date": dated}

	var shared []engine.Context
	for i := range 3 {
		wc := fixture.Context(i)
		c := engine.ContextFromWire(&wc)
		c.UserID, c.SessionID, c.RemoteAddress = "", "", ""
		shared = append(shared, c)
	}
	users := []engine.Context{{}, {UserID: "1", SessionID: "s-1", RemoteAddress: "10.0.0.1"}, {UserID: "u1"}, {UserID: "u4", SessionID: "9"},
		{SessionID: "s-2"}, {RemoteAddress: "192.168.1.7"}, {UserID: "21", RemoteAddress: "2001:db8::1"}, {UserID: "user-7", SessionID: "s-7"}}

	for name, payload := range payloads {
		var now time.Time
		// A fixed draw, so that answers with random draws compare too.
		snap := engine.Compile(payload, engine.Options{Now: func() time.Time { return now }, Rand: func(n int) int { return n / 3 }})
		cached, fresh := New(snap, 1<<22), New(snap, 0)
		replayed := 0
		for _, step := range []time.Duration{-time.Hour, -time.Nanosecond, 0, time.Nanosecond, time.Hour} {
			now = launch.Add(step)
			for _, all := range []bool{false, true} {
				for si := range shared {
					for round := range 2 {
						for _, u := range users {
							ctx := shared[si]
							ctx.UserID, ctx.SessionID, ctx.RemoteAddress = u.UserID, u.SessionID, u.RemoteAddress
							if c, ok := cached.cache.get(templateKey(&ctx, all)); ok && c.tmpl != nil {
								replayed++
							}
							got, gotTag := write(cached, &ctx, all)
							want, wantTag := write(fresh, &ctx, all)
							if !bytes.Equal(got, want) || gotTag != wantTag {
								t.Fatalf("%s at %v, all %v, context %d, user %+v, round %d:\n got %s %s\nwant %s %s",
									name, step, all, si, u, round, gotTag, got, wantTag, want)
							}
						}
					}
				}
			}
		}
		if replayed == 0 {
			t.Errorf("%s: no answer from a template", name)
		}
	}
}

func write(a *Writer, ctx *engine.Context, all bool) ([]byte, string) {
	rec := httptest.NewRecorder()
	a.Write(rec, httptest.NewRequest("GET", "/proxy", nil), ctx, nil, all, true)
	if rec.Code != 200 {
		panic(fmt.Sprint("status ", rec.Code))
	}
	return rec.Body.Bytes(), rec.Header().Get("ETag")
}

// TestAnswerKeysTellContextsApart: contexts that differ get different
// answer and template keys, however their values are made to look like
// field boundaries; properties in any order give one key.
func TestAnswerKeysTellContextsApart(t *testing.T) {
	props := func(kv ...string) map[string]string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	pairs := []struct {
		what string
		a, b engine.Context
	}{
		{"separators in a value", engine.Context{Properties: props("a", "x\x01b\x00y")}, engine.Context{Properties: props("a", "x", "b", "y")}},
		{"zero bytes in a value", engine.Context{Properties: props("a", "x\x00b\x00y")}, engine.Context{Properties: props("a", "x", "b", "y")}},
		{"separators in a name", engine.Context{Properties: props("a\x00x\x01b", "y")}, engine.Context{Properties: props("a", "x", "b", "y")}},
		{"a value moved to the next field", engine.Context{Environment: "x\x00"}, engine.Context{Environment: "x", AppName: "\x00"}},
		{"user and session", engine.Context{UserID: "ab"}, engine.Context{UserID: "a", SessionID: "b"}},
		{"an empty property and none", engine.Context{Properties: props("a", "")}, engine.Context{}},
		{"a property and the time", engine.Context{Properties: props("t", "2030")}, engine.Context{CurrentTime: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}},
	}
	for _, p := range pairs {
		for _, all := range []bool{false, true} {
			if answerKey(&p.a, all) == answerKey(&p.b, all) {
				t.Errorf("%s: one answer key for %+v and %+v", p.what, p.a, p.b)
			}
			sa, sb := p.a, p.b
			sa.UserID, sa.SessionID, sb.UserID, sb.SessionID = "", "", "", ""
			if sa.AppName != sb.AppName || sa.Environment != sb.Environment || len(sa.Properties) != len(sb.Properties) || !sa.CurrentTime.Equal(sb.CurrentTime) ||
				fmt.Sprint(sa.Properties) != fmt.Sprint(sb.Properties) {
				if templateKey(&sa, all) == templateKey(&sb, all) {
					t.Errorf("%s: one template key for %+v and %+v", p.what, sa, sb)
				}
			}
		}
	}
	a := engine.Context{UserID: "u", Properties: props("a", "1", "b", "2", "c", "3")}
	b := engine.Context{UserID: "u", Properties: props("c", "3", "a", "1", "b", "2")}
	if answerKey(&a, false) != answerKey(&b, false) || templateKey(&a, false) != templateKey(&b, false) {
		t.Error("the same properties give different keys")
	}
	if answerKey(&a, false) == answerKey(&a, true) || templateKey(&a, true) == answerKey(&a, true) {
		t.Error("keys of all flags, enabled ones and templates meet")
	}
}

// TestTemplatesKeepTheirHalf: templates take at most half of the cache's
// bound, so that answers of polling users still find room once many shared
// contexts have templates.
func TestTemplatesKeepTheirHalf(t *testing.T) {
	payload := &clientapi.Features{Version: 2}
	for i := range 20 {
		payload.Features = append(payload.Features,
			clientapi.Feature{Name: fmt.Sprint("shared-", i), Enabled: true},
			clientapi.Feature{Name: fmt.Sprint("per-user-", i), Enabled: true, Strategies: []clientapi.Strategy{
				{Name: "flexibleRollout", Parameters: clientapi.Parameters{"rollout": "50", "stickiness": "default"}}}})
	}
	snap := engine.Compile(payload, engine.Options{})
	const bound = 40_000
	a := New(snap, bound)
	for i := range 200 {
		for u := range 2 {
			ctx := engine.Context{AppName: fmt.Sprint("app-", i), UserID: fmt.Sprint("user-", u)}
			write(a, &ctx, false)
		}
		if b, tb := a.cache.bytes.Load(), a.cache.tmplBytes.Load(); b > bound || tb > bound/2 {
			t.Fatalf("after %d contexts: %d bytes, %d of templates; bound %d", i+1, b, tb, bound)
		}
	}
	if a.cache.tmplBytes.Load() == 0 {
		t.Fatal("no template kept")
	}
	// A poller still gets its answer kept.
	poller := engine.Context{AppName: "app-0", UserID: "poller"}
	write(a, &poller, false)
	write(a, &poller, false)
	if _, ok := a.cache.get(answerKey(&poller, false)); !ok {
		t.Errorf("no room left for answers: %d bytes, %d of templates", a.cache.bytes.Load(), a.cache.tmplBytes.Load())
	}
}

// TestOneRecordingPerTemplate: while one request records a context's
// template, its other new users get their answers evaluated whole (the
// same bytes) and record none; after it, the next one records it.
func TestOneRecordingPerTemplate(t *testing.T) {
	snap := engine.Compile(fixture.Features(300, 1), engine.Options{})
	cached, fresh := New(snap, 1<<22), New(snap, 0)
	wc := fixture.Context(0)
	shared := engine.ContextFromWire(&wc)
	user := func(i int) *engine.Context {
		c := shared
		c.UserID, c.SessionID = fmt.Sprint("user-", i), ""
		return &c
	}
	tkey := templateKey(user(0), false)
	if !cached.cache.startBuilding(tkey) {
		t.Fatal("a claim is held before any request")
	}
	if cached.cache.startBuilding(tkey) {
		t.Fatal("a second claim on the same template was granted")
	}
	for i := range 4 { // the first sees the context, the rest would record
		got, gotTag := write(cached, user(i), false)
		want, wantTag := write(fresh, user(i), false)
		if !bytes.Equal(got, want) || gotTag != wantTag {
			t.Fatalf("user %d while the template is recorded elsewhere: answer differs", i)
		}
	}
	if c, ok := cached.cache.get(tkey); ok && c.tmpl != nil {
		t.Fatal("a template was recorded while another request held the claim")
	}
	cached.cache.doneBuilding(tkey)
	write(cached, user(4), false)
	if c, ok := cached.cache.get(tkey); !ok || c.tmpl == nil {
		t.Fatal("no template recorded once the claim was released")
	}
	if !cached.cache.startBuilding(tkey) {
		t.Error("the recording request did not release its claim")
	}
}
