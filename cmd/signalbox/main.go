// Command signalbox is the Signalbox feature-flag platform in one binary:
//
//	signalbox server   the admin API, client API and frontend API
//	signalbox proxy    the evaluation proxy for browser and mobile SDKs
//	signalbox edge     an Edge-mode node serving many tokens
//	signalbox backup   copy the server's SQLite database, also while it runs
//	signalbox admin    maintenance on the server's database (reset-password)
//	signalbox migrate  copy a running Unleash into Signalbox, verify the copy
//	signalbox version  print the version
//	signalbox healthcheck  exit 0 when the local server answers /health
//
// Configuration comes from flags and environment variables, read only here.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/signalbox/signalbox/internal/buildinfo"
)

var commands = map[string]func(ctx context.Context, args []string, stdout, stderr io.Writer) error{
	"server":      runServer,
	"proxy":       runProxy,
	"edge":        runEdge,
	"backup":      runBackup,
	"admin":       runAdmin,
	"version":     runVersion,
	"healthcheck": runHealthcheck,
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches to a subcommand and returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	if args[0] == "migrate" {
		return runMigrate(ctx, args[1:], stdout, stderr)
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "signalbox: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	stopProfile, err := startCPUProfile(os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "signalbox %s: %v\n", args[0], err)
		return 2
	}
	err = cmd(ctx, args[1:], stdout, stderr)
	if perr := stopProfile(); perr != nil {
		fmt.Fprintf(stderr, "signalbox %s: %v\n", args[0], perr)
	}
	if err != nil {
		var ue usageError
		if errors.As(err, &ue) {
			fmt.Fprintf(stderr, "signalbox %s: %v\n", args[0], err)
			return 2
		}
		fmt.Fprintf(stderr, "signalbox %s: %v\n", args[0], err)
		return 1
	}
	return 0
}

// usageError marks configuration mistakes (exit code 2) as opposed to
// failures at run time (exit code 1).
type usageError struct{ error }

func usage(w io.Writer) {
	fmt.Fprint(w, `usage: signalbox <command> [flags]

commands:
  server    run the flag server (admin, client and frontend API)
  proxy     run the evaluation proxy in front of a server
  edge      run an Edge-mode node: many tokens, frontend and backend SDKs
  backup    copy the server's SQLite database (safe while it runs)
  admin     maintenance: "admin reset-password USER" sets a new password
  migrate   copy a running Unleash into Signalbox and verify the result
  version   print the version, commit, build date and Go version
  healthcheck  exit 0 when the server on PORT answers /health (for containers)

Run "signalbox <command> -h" for a command's flags and environment variables.
`)
}

func runVersion(_ context.Context, _ []string, stdout, _ io.Writer) error {
	fmt.Fprintln(stdout, buildinfo.Get())
	return nil
}

// buildVersion is the version the start-up logs and the server report.
func buildVersion() string { return buildinfo.Version() }
