package engine_test

import (
	"testing"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/engine"
)

func TestCheckConstraint(t *testing.T) {
	tests := []struct {
		c     clientapi.Constraint
		field string // "" when valid
	}{
		{clientapi.Constraint{ContextName: "userId", Operator: "IN", Values: []string{"a"}}, ""},
		{clientapi.Constraint{ContextName: "", Operator: "IN", Values: []string{"a"}}, "contextName"},
		{clientapi.Constraint{ContextName: "x", Operator: "LIKE", Values: []string{"a"}}, "operator"},
		{clientapi.Constraint{ContextName: "x", Operator: "NOT_IN"}, "values"},
		{clientapi.Constraint{ContextName: "ip", Operator: "IN_CIDR", Values: []string{"10.0.0.0/8", "::1"}}, ""},
		{clientapi.Constraint{ContextName: "ip", Operator: "IN_CIDR", Values: []string{"10.0.0.0/33"}}, "values"},
		{clientapi.Constraint{ContextName: "n", Operator: "NUM_GT", Value: "1.5"}, ""},
		{clientapi.Constraint{ContextName: "n", Operator: "NUM_GT", Value: "Inf"}, "value"},
		{clientapi.Constraint{ContextName: "d", Operator: "DATE_AFTER", Value: "2030-01-31T12:00:00Z"}, ""},
		{clientapi.Constraint{ContextName: "d", Operator: "DATE_AFTER", Value: "tomorrow"}, "value"},
		{clientapi.Constraint{ContextName: "v", Operator: "SEMVER_EQ", Value: "1.2.3-rc.1"}, ""},
		{clientapi.Constraint{ContextName: "v", Operator: "SEMVER_EQ", Value: "v1.2.3"}, "value"},
		{clientapi.Constraint{ContextName: "r", Operator: "REGEX", Value: `^a\d+$`}, ""},
		{clientapi.Constraint{ContextName: "r", Operator: "REGEX", Value: `(?=a)`}, "value"},
		{clientapi.Constraint{ContextName: "r", Operator: "REGEX", Value: ``}, "value"},
	}
	for _, tt := range tests {
		err := engine.CheckConstraint(tt.c)
		switch {
		case tt.field == "" && err != nil:
			t.Errorf("%+v: unexpected %v", tt.c, err)
		case tt.field != "" && (err == nil || err.Field != tt.field):
			t.Errorf("%+v: got %v, want an error about %s", tt.c, err, tt.field)
		}
	}
}
