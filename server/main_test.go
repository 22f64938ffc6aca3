package server

import (
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/signalbox/signalbox/internal/pgtest"
)

// TestMain shares one throwaway PostgreSQL among the tests that run the
// server on PostgreSQL, and reports afterwards how much of Unleash's API
// the tests checked against its schemas.
func TestMain(m *testing.M) {
	bcryptCost = bcrypt.MinCost
	pgtest.Main(m, refReport)
}
