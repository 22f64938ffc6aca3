package server

import (
	"testing"
)

// TestGroupsAndAccessPostgres runs the group and project access flows on
// PostgreSQL. They share one database, one after the other: each uses names
// of its own, and the group flow, which counts every group, goes first.
func TestGroupsAndAccessPostgres(t *testing.T) {
	ts := newPostgresTestServer(t)
	for _, flow := range []struct {
		name string
		fn   func(*testing.T, *testServer)
	}{
		{"Groups", groupFlow},
		{"GroupRootRole", groupRootRoleFlow},
		{"ProjectAccess", projectAccessFlow},
	} {
		t.Run(flow.name, func(t *testing.T) {
			// Requests fail the subtest that sends them.
			sub := *ts
			sub.t = t
			flow.fn(t, &sub)
		})
	}
}
