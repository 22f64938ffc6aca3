package proxy

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/signalbox/signalbox/clientapi"
)

// genPayload builds a realistic configuration of n flags, the same for the
// same n: mostly enabled flags with a mix of default, gradual, user-list,
// remote-address and segment strategies, a quarter with constraints of
// several operators, a fifth with variants carrying string or JSON
// payloads, and some flags switched off.
func genPayload(n int) *clientapi.Features {
	rng := rand.New(rand.NewPCG(uint64(n), 42))
	teams := []string{"checkout", "search", "growth", "platform", "mobile", "ads", "billing", "identity"}
	f := &clientapi.Features{Version: 2, Segments: []clientapi.Segment{
		{ID: 1, Name: "beta-users", Constraints: []clientapi.Constraint{{ContextName: "beta", Operator: "IN", Values: []string{"true"}}}},
		{ID: 2, Name: "eu", Constraints: []clientapi.Constraint{{ContextName: "region", Operator: "IN", Values: []string{"eu-west", "eu-central", "eu-north"}}}},
	}}
	for i := range n {
		team := teams[i%len(teams)]
		ft := clientapi.Feature{
			Name:           fmt.Sprintf("%s.feature-%04d", team, i),
			Type:           "release",
			Project:        "default",
			Enabled:        rng.IntN(100) >= 8,
			ImpressionData: rng.IntN(10) == 0,
		}
		st := clientapi.Strategy{Name: "default", Parameters: clientapi.Parameters{}}
		switch k := rng.IntN(100); {
		case k < 30:
		case k < 60:
			st = clientapi.Strategy{Name: "flexibleRollout", Parameters: clientapi.Parameters{
				"rollout": strconv.Itoa([]int{0, 10, 25, 50, 100, 100}[rng.IntN(6)]), "stickiness": "default", "groupId": ft.Name}}
		case k < 72:
			var users strings.Builder
			for u := range 20 {
				if u > 0 {
					users.WriteString(",")
				}
				users.WriteString(fmt.Sprintf("user-%d", rng.IntN(1000)))
			}
			st = clientapi.Strategy{Name: "userWithId", Parameters: clientapi.Parameters{"userIds": users.String()}}
		case k < 78:
			st = clientapi.Strategy{Name: "remoteAddress", Parameters: clientapi.Parameters{"IPs": "10.0.0.0/8,192.168.1.7"}}
		case k < 86:
			st.Segments = []int{1 + rng.IntN(2)}
		default:
			st = clientapi.Strategy{Name: "gradualRolloutSessionId", Parameters: clientapi.Parameters{"percentage": "50", "groupId": ft.Name}}
		}
		if rng.IntN(4) == 0 {
			st.Constraints = genConstraints(rng)
		}
		ft.Strategies = []clientapi.Strategy{st}
		if rng.IntN(3) == 0 {
			ft.Strategies = append(ft.Strategies, clientapi.Strategy{Name: "userWithId", Parameters: clientapi.Parameters{"userIds": "qa-1,qa-2"}})
		}
		if rng.IntN(5) == 0 {
			ft.Variants = []clientapi.Variant{
				{Name: "control", Weight: 500, WeightType: "variable", Stickiness: "default",
					Payload: &clientapi.Payload{Type: "string", Value: "control-" + ft.Name}},
				{Name: "treatment", Weight: 500, WeightType: "variable", Stickiness: "default",
					Payload: &clientapi.Payload{Type: "json", Value: `{"color":"blue","limit":` + strconv.Itoa(i) + `,"copy":"Try the \"new\" flow"}`}},
			}
		}
		f.Features = append(f.Features, ft)
	}
	return f
}

func genConstraints(rng *rand.Rand) []clientapi.Constraint {
	all := []clientapi.Constraint{
		{ContextName: "region", Operator: "IN", Values: []string{"eu-west", "us-east", "ap-south"}},
		{ContextName: "email", Operator: "STR_ENDS_WITH", Values: []string{"@example.com"}, CaseInsensitive: true},
		{ContextName: "age", Operator: "NUM_GTE", Value: "18"},
		{ContextName: "appVersion", Operator: "SEMVER_GTE", Value: "2.3.0"},
		{ContextName: "currentTime", Operator: "DATE_AFTER", Value: "2024-01-01T00:00:00.000Z"},
		{ContextName: "userId", Operator: "NOT_IN", Values: []string{"banned-1", "banned-2"}},
	}
	n := 1 + rng.IntN(2)
	out := make([]clientapi.Constraint, 0, n)
	for range n {
		out = append(out, all[rng.IntN(len(all))])
	}
	return out
}
