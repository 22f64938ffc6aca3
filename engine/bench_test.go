package engine_test

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/engine"
	"github.com/signalbox/signalbox/internal/fixture"
)

func BenchmarkEvaluateOne(b *testing.B) {
	cases := []struct {
		name string
		f    clientapi.Feature
	}{
		{"default", clientapi.Feature{Name: "f", Enabled: true, Strategies: []clientapi.Strategy{{Name: "default"}}}},
		{"flexibleRollout-3-constraints", clientapi.Feature{Name: "f", Enabled: true, Strategies: []clientapi.Strategy{{
			Name:       "flexibleRollout",
			Parameters: clientapi.Parameters{"rollout": "99", "stickiness": "default", "groupId": "f"}, // below 100: hashed
			Constraints: []clientapi.Constraint{
				{ContextName: "environment", Operator: "IN", Values: []string{"staging", "production"}},
				{ContextName: "email", Operator: "STR_ENDS_WITH", Values: []string{"@example.com"}, CaseInsensitive: true},
				{ContextName: "age", Operator: "NUM_GTE", Value: "18"},
			},
		}}}},
		{"variants", clientapi.Feature{Name: "f", Enabled: true, Strategies: []clientapi.Strategy{{Name: "default"}}, Variants: []clientapi.Variant{
			{Name: "a", Weight: 334, Payload: &clientapi.Payload{Type: "string", Value: "a"}},
			{Name: "b", Weight: 333}, {Name: "c", Weight: 333},
		}}},
	}
	ctx := engine.Context{UserID: "123", Environment: "production", Properties: map[string]string{"email": "someone@example.com", "age": "42"}}
	for _, c := range cases {
		snap := oneFlag(c.f, engine.Options{})
		if !snap.IsEnabled("f", &ctx) {
			b.Fatalf("%s: benchmark context must switch the flag on", c.name)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := processCPU()
			for b.Loop() {
				_ = snap.Evaluate("f", &ctx)
			}
			b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

func BenchmarkEvaluateAll(b *testing.B) {
	for _, n := range []int{60, 500, 5000} {
		snap := engine.Compile(fixture.Features(n, 1), engine.Options{})
		wc := fixture.Context(7)
		ctx := engine.ContextFromWire(&wc)
		dst := make([]engine.Result, 0, n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := processCPU()
			for b.Loop() {
				dst = snap.EvaluateAll(&ctx, dst[:0])
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/flag")
			b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N)/float64(n), "cpu-ns/flag")
		})
	}
}

// BenchmarkEvaluateEach is EvaluateAll without the results array, as an
// answer that encodes each result as it comes uses it.
func BenchmarkEvaluateEach(b *testing.B) {
	for _, n := range []int{60, 500, 5000} {
		snap := engine.Compile(fixture.Features(n, 1), engine.Options{})
		wc := fixture.Context(7)
		ctx := engine.ContextFromWire(&wc)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			on := 0
			cpu0 := processCPU()
			for b.Loop() {
				snap.EvaluateEach(&ctx, func(r *engine.Result) {
					if r.Enabled {
						on++
					}
				})
			}
			if on == 0 {
				b.Fatal("no flag was on")
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/flag")
			b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N)/float64(n), "cpu-ns/flag")
		})
	}
}

func BenchmarkCompile(b *testing.B) {
	for _, n := range []int{500, 5000} {
		payload := fixture.Features(n, 1)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = engine.Compile(payload, engine.Options{})
			}
		})
	}
}

// processCPU is the user and system CPU time of the process so far. Wall
// time per op suffers when other processes share the cores; the process's
// CPU time per op does much less, so the benchmarks report both.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPlan evaluates the flags whose answers read the user (those a
// shared answer re-evaluates for each user) for a new user every time:
// with EvaluateSome, and with a Plan made once for the users' context,
// writing out results (Plan) or naming outcomes (Outcomes, as answers
// from a template do).
func BenchmarkPlan(b *testing.B) {
	for _, n := range []int{500, 5000} {
		snap := engine.Compile(fixture.Features(n, 1), engine.Options{})
		wc := fixture.Context(7)
		base := engine.ContextFromWire(&wc)
		var positions []int32
		for _, r := range snap.EvaluateAll(&base, nil) {
			if r.PerUser || r.Volatile {
				positions = append(positions, r.Index)
			}
		}
		plan := snap.Plan(&base, positions)
		ids := make([]string, 1024)
		for i := range ids {
			ids[i] = fmt.Sprint("user-", i)
		}
		out := make([]int32, plan.Steps())
		for _, way := range []string{"EvaluateSome", "Plan", "Outcomes", "Decide"} {
			b.Run(fmt.Sprintf("%d/%s", n, way), func(b *testing.B) {
				b.ReportAllocs()
				ctx, on, i := base, 0, 0
				count := func(r *engine.Result) {
					if r.Enabled {
						on++
					}
				}
				enabled := make([]bool, plan.Outcomes())
				for o := range enabled {
					r, _ := plan.Outcome(int32(o))
					enabled[o] = r.Enabled
				}
				countNamed := func(_ int, o int32, full *engine.Result) {
					if o >= 0 && enabled[o] || o < 0 && full.Enabled {
						on++
					}
				}
				for b.Loop() {
					ctx.UserID = ids[i%len(ids)]
					i++
					switch way {
					case "Plan":
						plan.Evaluate(&ctx, count)
					case "Outcomes":
						plan.EvaluateOutcomes(&ctx, nil, countNamed)
					case "Decide":
						if !plan.Decide(&ctx, out) {
							b.Fatal("not decided")
						}
						plan.EvaluateFull(&ctx, func(_ int, r *engine.Result) { count(r) })
						for _, o := range out {
							if o >= 0 && enabled[o] {
								on++
							}
						}
					default:
						snap.EvaluateSome(&ctx, positions, count)
					}
				}
				if on == 0 {
					b.Fatal("no flag was on")
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(positions)), "ns/flag")
			})
		}
	}
}
