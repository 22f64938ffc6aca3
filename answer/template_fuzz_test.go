package answer

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/engine"
	"github.com/signalbox/signalbox/internal/fixture"
)

// FuzzTemplateAnswers: for any payload and shared context, the answers of
// several users written from a template (the flags shared by users kept
// encoded, the rest decided from a plan's outcomes and their toggles) have
// the bytes and ETag of answers evaluated whole. A payload that is not
// JSON (most mutations of one) stands for a generated one of n flags.
func FuzzTemplateAnswers(f *testing.F) {
	for _, p := range []*clientapi.Features{piecesPayload(), fixture.Features(40, 3)} {
		b, _ := json.Marshal(p)
		f.Add(b, uint64(1), uint8(0), []byte(`{"appName":"web","properties":{"country":"no","age":"30"}}`))
	}
	f.Add([]byte(`generated`), uint64(7), uint8(90), []byte(`{"environment":"production","properties":{"email":"a@example.com","age":"19","appVersion":"2.1.0"}}`))
	f.Add([]byte(`generated`), uint64(5), uint8(60), []byte(`{"userId":"a-user-whose-id-is-long-enough-for-several-blocks-ø","sessionId":"s9"}`))
	f.Add([]byte(`{"features":[{"name":"v","enabled":true,"strategies":[{"name":"flexibleRollout","parameters":{"rollout":"50"},`+
		`"variants":[{"name":"a","weight":0,"overrides":[{"contextName":"userId","values":["u2"]}]},{"name":"b","weight":1,"payload":{"type":"json","value":"{\"\\u2028\":1}"}}]}]}]}`),
		uint64(0), uint8(0), []byte(`{}`))
	users := [][3]string{{"u1", "s1", "10.0.0.1"}, {"u2", "", ""}, {"", "s3", ""}, {"", "", "::1"}, {"1", "1", "1"}, {"u1", "s1", "10.0.0.1"}}
	f.Fuzz(func(t *testing.T, payload []byte, seed uint64, n uint8, context []byte) {
		var p clientapi.Features
		if json.Unmarshal(payload, &p) != nil {
			p = *fixture.Features(int(n), seed)
		}
		var wc clientapi.Context
		_ = json.Unmarshal(context, &wc) // what it took, or nothing

		at := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
		snap := engine.Compile(&p, engine.Options{Hostname: "h", Now: func() time.Time { return at }, Rand: func(n int) int { return n / 2 }})
		cached, fresh := New(snap, 1<<22), New(snap, 0)
		shared := engine.ContextFromWire(&wc)
		// The context's own ids are one more user, so that ids of any
		// length and bytes reach the plan's hashes.
		users := append(users[:len(users):len(users)], [3]string{shared.UserID, shared.SessionID, shared.RemoteAddress})
		for _, all := range []bool{false, true} {
			for _, u := range users {
				ctx := shared
				ctx.UserID, ctx.SessionID, ctx.RemoteAddress = u[0], u[1], u[2]
				got, gotTag := write(cached, &ctx, all)
				want, wantTag := write(fresh, &ctx, all)
				if !bytes.Equal(got, want) || gotTag != wantTag {
					t.Fatalf("all %v, user %v:\n got %s %s\nwant %s %s", all, u, gotTag, got, wantTag, want)
				}
			}
		}
	})
}
