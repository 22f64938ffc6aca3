package engine_test

import (
	"testing"
	"time"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/engine"
)

// constrained compiles one flag with a default strategy gated by c.
func constrained(c clientapi.Constraint) *engine.Snapshot {
	return engine.Compile(&clientapi.Features{Version: 2, Features: []clientapi.Feature{{
		Name: "f", Enabled: true,
		Strategies: []clientapi.Strategy{{Name: "default", Constraints: []clientapi.Constraint{c}}},
	}}}, engine.Options{Now: func() time.Time { return time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC) }})
}

func props(kv ...string) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

func TestConstraintOperatorEdgeCases(t *testing.T) {
	tests := []struct {
		name string
		c    clientapi.Constraint
		ctx  engine.Context
		want bool
	}{
		// IN / NOT_IN
		{"IN exact", clientapi.Constraint{ContextName: "userId", Operator: "IN", Values: []string{"a", "b"}}, engine.Context{UserID: "b"}, true},
		{"IN is case-sensitive even with caseInsensitive", clientapi.Constraint{ContextName: "userId", Operator: "IN", Values: []string{"A"}, CaseInsensitive: true}, engine.Context{UserID: "a"}, false},
		{"IN missing field", clientapi.Constraint{ContextName: "userId", Operator: "IN", Values: []string{"a"}}, engine.Context{}, false},
		{"IN inverted missing field", clientapi.Constraint{ContextName: "userId", Operator: "IN", Values: []string{"a"}, Inverted: true}, engine.Context{}, true},
		{"IN long list uses set", clientapi.Constraint{ContextName: "p", Operator: "IN", Values: []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14"}}, engine.Context{Properties: props("p", "13")}, true},
		{"IN long list miss", clientapi.Constraint{ContextName: "p", Operator: "IN", Values: []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14"}}, engine.Context{Properties: props("p", "15")}, false},
		{"NOT_IN missing field", clientapi.Constraint{ContextName: "p", Operator: "NOT_IN", Values: []string{"a"}}, engine.Context{}, true},
		{"NOT_IN inverted missing", clientapi.Constraint{ContextName: "p", Operator: "NOT_IN", Values: []string{"a"}, Inverted: true}, engine.Context{}, false},
		{"empty property is present", clientapi.Constraint{ContextName: "p", Operator: "IN", Values: []string{""}}, engine.Context{Properties: props("p", "")}, true},
		{"empty userId is missing", clientapi.Constraint{ContextName: "userId", Operator: "IN", Values: []string{""}}, engine.Context{UserID: ""}, false},
		// STR_*
		{"STR_STARTS_WITH fold", clientapi.Constraint{ContextName: "p", Operator: "STR_STARTS_WITH", Values: []string{"ABC"}, CaseInsensitive: true}, engine.Context{Properties: props("p", "abcdef")}, true},
		{"STR_STARTS_WITH case-sensitive", clientapi.Constraint{ContextName: "p", Operator: "STR_STARTS_WITH", Values: []string{"ABC"}}, engine.Context{Properties: props("p", "abcdef")}, false},
		{"STR_ENDS_WITH unicode fold", clientapi.Constraint{ContextName: "p", Operator: "STR_ENDS_WITH", Values: []string{"ØRLD"}, CaseInsensitive: true}, engine.Context{Properties: props("p", "hellø wørld")}, true},
		{"STR_CONTAINS inverted", clientapi.Constraint{ContextName: "p", Operator: "STR_CONTAINS", Values: []string{"x"}, Inverted: true}, engine.Context{Properties: props("p", "abc")}, true},
		{"STR_CONTAINS missing", clientapi.Constraint{ContextName: "p", Operator: "STR_CONTAINS", Values: []string{"x"}}, engine.Context{}, false},
		{"STR_CONTAINS no values", clientapi.Constraint{ContextName: "p", Operator: "STR_CONTAINS"}, engine.Context{Properties: props("p", "abc")}, false},
		// NUM_*
		{"NUM_EQ 12 == 12.0", clientapi.Constraint{ContextName: "p", Operator: "NUM_EQ", Value: "12.0"}, engine.Context{Properties: props("p", "12")}, true},
		{"NUM_GT strict", clientapi.Constraint{ContextName: "p", Operator: "NUM_GT", Value: "5"}, engine.Context{Properties: props("p", "5")}, false},
		{"NUM_GTE inclusive", clientapi.Constraint{ContextName: "p", Operator: "NUM_GTE", Value: "5"}, engine.Context{Properties: props("p", "5")}, true},
		{"NUM_LT negative", clientapi.Constraint{ContextName: "p", Operator: "NUM_LT", Value: "-1.5"}, engine.Context{Properties: props("p", "-2")}, true},
		{"NUM_LTE exponent", clientapi.Constraint{ContextName: "p", Operator: "NUM_LTE", Value: "1e3"}, engine.Context{Properties: props("p", "1000")}, true},
		{"NUM invalid context", clientapi.Constraint{ContextName: "p", Operator: "NUM_EQ", Value: "1"}, engine.Context{Properties: props("p", "one")}, false},
		{"NUM invalid context inverted", clientapi.Constraint{ContextName: "p", Operator: "NUM_EQ", Value: "1", Inverted: true}, engine.Context{Properties: props("p", "one")}, true},
		{"NUM invalid constraint value", clientapi.Constraint{ContextName: "p", Operator: "NUM_EQ", Value: "x"}, engine.Context{Properties: props("p", "1")}, false},
		{"NUM rejects NaN", clientapi.Constraint{ContextName: "p", Operator: "NUM_EQ", Value: "NaN"}, engine.Context{Properties: props("p", "NaN")}, false},
		{"NUM rejects Inf", clientapi.Constraint{ContextName: "p", Operator: "NUM_GT", Value: "1"}, engine.Context{Properties: props("p", "Inf")}, false},
		{"NUM rejects hex", clientapi.Constraint{ContextName: "p", Operator: "NUM_EQ", Value: "16"}, engine.Context{Properties: props("p", "0x10")}, false},
		{"NUM missing", clientapi.Constraint{ContextName: "p", Operator: "NUM_EQ", Value: "1"}, engine.Context{}, false},
		// DATE_*
		{"DATE_AFTER uses clock without currentTime", clientapi.Constraint{ContextName: "currentTime", Operator: "DATE_AFTER", Value: "2025-01-01T00:00:00Z"}, engine.Context{}, true},
		{"DATE_BEFORE strict", clientapi.Constraint{ContextName: "currentTime", Operator: "DATE_BEFORE", Value: "2025-06-01T00:00:00Z"}, engine.Context{CurrentTime: time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)}, false},
		{"DATE offsets", clientapi.Constraint{ContextName: "currentTime", Operator: "DATE_AFTER", Value: "2022-01-22T13:00:00.000+02:00"}, engine.Context{CurrentTime: time.Date(2022, 1, 22, 11, 0, 1, 0, time.UTC)}, true},
		{"DATE invalid constraint", clientapi.Constraint{ContextName: "currentTime", Operator: "DATE_AFTER", Value: "soon"}, engine.Context{}, false},
		{"DATE on a property", clientapi.Constraint{ContextName: "signup", Operator: "DATE_BEFORE", Value: "2024-01-01T00:00:00Z"}, engine.Context{Properties: props("signup", "2023-05-05")}, true},
		{"DATE property missing", clientapi.Constraint{ContextName: "signup", Operator: "DATE_BEFORE", Value: "2024-01-01T00:00:00Z"}, engine.Context{}, false},
		{"DATE property garbage", clientapi.Constraint{ContextName: "signup", Operator: "DATE_BEFORE", Value: "2024-01-01T00:00:00Z"}, engine.Context{Properties: props("signup", "yesterday")}, false},
		// SEMVER_*
		{"SEMVER_EQ", clientapi.Constraint{ContextName: "v", Operator: "SEMVER_EQ", Value: "1.2.3"}, engine.Context{Properties: props("v", "1.2.3")}, true},
		{"SEMVER build metadata ignored", clientapi.Constraint{ContextName: "v", Operator: "SEMVER_EQ", Value: "1.2.3"}, engine.Context{Properties: props("v", "1.2.3+build.5")}, true},
		{"SEMVER_GTE", clientapi.Constraint{ContextName: "v", Operator: "SEMVER_GTE", Value: "2.0.0-rc.1"}, engine.Context{Properties: props("v", "2.0.0")}, true},
		{"SEMVER_LTE", clientapi.Constraint{ContextName: "v", Operator: "SEMVER_LTE", Value: "2.0.0"}, engine.Context{Properties: props("v", "2.0.0-alpha")}, true},
		{"SEMVER v prefix invalid", clientapi.Constraint{ContextName: "v", Operator: "SEMVER_EQ", Value: "1.2.3"}, engine.Context{Properties: props("v", "v1.2.3")}, false},
		{"SEMVER two parts invalid", clientapi.Constraint{ContextName: "v", Operator: "SEMVER_LT", Value: "2.0.0"}, engine.Context{Properties: props("v", "1.2")}, false},
		{"SEMVER leading zero invalid", clientapi.Constraint{ContextName: "v", Operator: "SEMVER_LT", Value: "2.0.0"}, engine.Context{Properties: props("v", "01.2.3")}, false},
		{"SEMVER invalid inverted", clientapi.Constraint{ContextName: "v", Operator: "SEMVER_EQ", Value: "nope", Inverted: true}, engine.Context{Properties: props("v", "1.0.0")}, true},
		// REGEX
		{"REGEX search", clientapi.Constraint{ContextName: "p", Operator: "REGEX", Value: `\d+`}, engine.Context{Properties: props("p", "abc123")}, true},
		{"REGEX anchored", clientapi.Constraint{ContextName: "p", Operator: "REGEX", Value: `^\d+$`}, engine.Context{Properties: props("p", "abc123")}, false},
		{"REGEX caseInsensitive", clientapi.Constraint{ContextName: "p", Operator: "REGEX", Value: `^abc`, CaseInsensitive: true}, engine.Context{Properties: props("p", "ABCd")}, true},
		{"REGEX invalid", clientapi.Constraint{ContextName: "p", Operator: "REGEX", Value: `(a`}, engine.Context{Properties: props("p", "a")}, false},
		{"REGEX invalid inverted", clientapi.Constraint{ContextName: "p", Operator: "REGEX", Value: `(?=a)`, Inverted: true}, engine.Context{Properties: props("p", "a")}, true},
		{"REGEX missing", clientapi.Constraint{ContextName: "p", Operator: "REGEX", Value: `.*`}, engine.Context{}, false},
		// IN_CIDR
		{"IN_CIDR v4", clientapi.Constraint{ContextName: "remoteAddress", Operator: "IN_CIDR", Values: []string{"10.0.0.0/8"}}, engine.Context{RemoteAddress: "10.1.2.3"}, true},
		{"IN_CIDR v6", clientapi.Constraint{ContextName: "remoteAddress", Operator: "IN_CIDR", Values: []string{"2001:db8::/32"}}, engine.Context{RemoteAddress: "2001:db8::5"}, true},
		{"IN_CIDR v4 never in v6", clientapi.Constraint{ContextName: "remoteAddress", Operator: "IN_CIDR", Values: []string{"::/0"}}, engine.Context{RemoteAddress: "10.1.2.3"}, false},
		{"IN_CIDR single address", clientapi.Constraint{ContextName: "remoteAddress", Operator: "IN_CIDR", Values: []string{"bad", "127.0.0.1"}}, engine.Context{RemoteAddress: "127.0.0.1"}, true},
		{"IN_CIDR non-IP context", clientapi.Constraint{ContextName: "remoteAddress", Operator: "IN_CIDR", Values: []string{"0.0.0.0/0"}}, engine.Context{RemoteAddress: "localhost"}, false},
		{"IN_CIDR unmasked prefix", clientapi.Constraint{ContextName: "remoteAddress", Operator: "IN_CIDR", Values: []string{"10.9.9.9/8"}}, engine.Context{RemoteAddress: "10.1.1.1"}, true},
		// Unknown operator: false whatever inverted says.
		{"unknown operator", clientapi.Constraint{ContextName: "p", Operator: "STR_MATCHES", Values: []string{"a"}}, engine.Context{Properties: props("p", "a")}, false},
		{"unknown operator inverted", clientapi.Constraint{ContextName: "p", Operator: "STR_MATCHES", Values: []string{"a"}, Inverted: true}, engine.Context{Properties: props("p", "b")}, false},
		// Built-in fields read from the top level, not properties.
		{"appName field", clientapi.Constraint{ContextName: "appName", Operator: "IN", Values: []string{"web"}}, engine.Context{AppName: "web", Properties: props("appName", "ios")}, true},
		{"environment field", clientapi.Constraint{ContextName: "environment", Operator: "IN", Values: []string{"prod"}}, engine.Context{Environment: "prod"}, true},
		{"sessionId field", clientapi.Constraint{ContextName: "sessionId", Operator: "IN", Values: []string{"s1"}}, engine.Context{SessionID: "s1"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap := constrained(tt.c)
			if got := snap.IsEnabled("f", &tt.ctx); got != tt.want {
				t.Errorf("IsEnabled = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestUnknownOperatorOnlySwitchesOffItsStrategy(t *testing.T) {
	snap := engine.Compile(&clientapi.Features{Features: []clientapi.Feature{{
		Name: "f", Enabled: true,
		Strategies: []clientapi.Strategy{
			{Name: "default", Constraints: []clientapi.Constraint{{ContextName: "p", Operator: "BOGUS"}}},
			{Name: "userWithId", Parameters: clientapi.Parameters{"userIds": "u1"}},
		},
	}}}, engine.Options{})
	if len(snap.Warnings()) == 0 {
		t.Error("expected a warning for the unknown operator")
	}
	if !snap.IsEnabled("f", &engine.Context{UserID: "u1"}) {
		t.Error("second strategy should still switch the flag on")
	}
	if snap.IsEnabled("f", &engine.Context{UserID: "u2"}) {
		t.Error("first strategy must be off")
	}
}
