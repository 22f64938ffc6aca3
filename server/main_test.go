package server

import (
	"testing"

	"github.com/signalbox/signalbox/internal/pgtest"
)

// TestMain shares one throwaway PostgreSQL among the tests that run the
// server on PostgreSQL.
func TestMain(m *testing.M) { pgtest.Main(m) }
