package engine_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/engine"
	"github.com/signalbox/signalbox/internal/fixture"
)

// TestDecideMatchesOutcomes: Decide names, flag by flag, the outcome
// EvaluateOutcomes names (-1 for a flag evaluated in full, which
// EvaluateFull then gives as EvaluateOutcomes does), or for a flag whose
// parents read the user, which EvaluateOutcomes evaluates in full, the
// outcome whose result that evaluation gives; for ids of every
// length a key takes and prefixes of every alignment (from the payloads'
// many group names), and declines a context without a userId and an id too
// long for a key.
func TestDecideMatchesOutcomes(t *testing.T) {
	users := identities()
	for i := range 60 {
		users = append(users, engine.Context{UserID: strings.Repeat("u", i%7) + fmt.Sprint(i), SessionID: fmt.Sprint("s-", i)})
	}
	users = append(users, engine.Context{UserID: strings.Repeat("x", 64)}, engine.Context{UserID: strings.Repeat("y", 65)})
	payloads := map[string]*clientapi.Features{"every read": perUserReads(), "edges": planEdges(),
		"user lists": userLists(10), "user lists past the index": userLists(engine.MaxUserIndex)}
	for seed := range 2 {
		payloads[fmt.Sprint("fixture ", seed)] = fixture.Features(300, uint64(seed+1))
	}
	dependents := 0
	for name, payload := range payloads {
		snap := engine.Compile(payload, engine.Options{Rand: func(n int) int { return n / 3 }, CustomStrategies: byUser})
		decided, full, dependent := 0, 0, 0
		for _, base := range sharedContexts(identities(), 6) {
			plan := snap.Plan(&base, allPositions(snap))
			out := make([]int32, plan.Steps())
			for _, u := range users {
				ctx := base
				ctx.UserID, ctx.SessionID, ctx.RemoteAddress = u.UserID, u.SessionID, u.RemoteAddress
				ok := plan.Decide(&ctx, out)
				if want := ctx.UserID != "" && len(ctx.UserID) <= 64; ok != want {
					t.Fatalf("%s: Decide for userId %q reports %v", name, ctx.UserID, ok)
				}
				if !ok {
					continue
				}
				var fulls []engine.Result
				plan.EvaluateOutcomes(&ctx, nil, func(step int, o int32, r *engine.Result) {
					switch {
					case out[step] == o:
					case o < 0 && out[step] >= 0:
						// A dependent flag: decided from its parents' outcomes.
						if got, _ := plan.Outcome(out[step]); got != *r {
							t.Errorf("%s, user %q: step %d decided %+v, evaluated in full %+v", name, ctx.UserID, step, got, *r)
						}
						dependent++
						return
					default:
						t.Errorf("%s, user %q: step %d decided %d, named %d", name, ctx.UserID, step, out[step], o)
					}
					if o < 0 {
						fulls = append(fulls, *r)
					}
				})
				next := 0
				plan.EvaluateFull(&ctx, func(step int, r *engine.Result) {
					if out[step] != -1 || next >= len(fulls) || *r != fulls[next] {
						t.Fatalf("%s, user %q: step %d (decided %d) evaluated in full as %+v", name, ctx.UserID, step, out[step], *r)
					}
					next++
				})
				if next != len(fulls) {
					t.Fatalf("%s, user %q: %d flags evaluated in full, %d named so", name, ctx.UserID, next, len(fulls))
				}
				decided += plan.Steps() - next
				full += next
			}
		}
		if decided == 0 || full == 0 && !strings.HasPrefix(name, "user lists") {
			t.Errorf("%s: %d flags decided, %d evaluated in full: the test shows nothing", name, decided, full)
		}
		dependents += dependent
	}
	if dependents == 0 {
		t.Error("no dependent flag was decided: the test shows nothing of them")
	}
}

func TestFastMod(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	divisors := []uint32{1, 2, 3, 7, 100, 1000, 65535, 65536, 1 << 31, math.MaxUint32}
	for range 100 {
		divisors = append(divisors, r.Uint32()|1, r.Uint32N(2000)+1)
	}
	for _, d := range divisors {
		for _, x := range []uint32{0, 1, d - 1, d, d + 1, math.MaxUint32, math.MaxUint32 - 1, r.Uint32(), r.Uint32()} {
			if got, want := engine.FastMod(x, d), x%d; got != want {
				t.Fatalf("%d %% %d = %d, want %d", x, d, got, want)
			}
		}
	}
}
