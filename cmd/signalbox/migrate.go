package main

import (
	"context"
	"io"
	"os"

	"github.com/signalbox/signalbox/migrate"
)

// runMigrate runs "signalbox migrate …", which parses its own flags and
// environment and prints its own errors; it returns the exit code.
func runMigrate(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return migrate.Main(ctx, args, os.Getenv, stdout, stderr)
}
