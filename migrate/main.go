// Package migrate copies a running Unleash into Signalbox through Unleash's
// admin API, and verifies afterwards that SDKs get the same answers from
// both.
//
//	signalbox migrate from-unleash --url … --token …   copy into the target database
//	signalbox migrate verify --url … --token … --client-token … --signalbox-url …
//
// The copy writes through the store like the admin API does: every object
// in its own transaction together with its audit events, so a run that
// stops half-way leaves consistent data and the next run carries on from
// there. A run compares before it writes, so running it again changes
// nothing.
package migrate

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/signalbox/signalbox/store"
	"github.com/signalbox/signalbox/store/sqlstore"
)

const usageText = `usage: signalbox migrate <command> [flags]

commands:
  from-unleash   copy a running Unleash (projects, environments, flags,
                 strategies, segments, context fields, tags, tokens, users)
                 into the database the server uses
  verify         compare what SDKs get from Unleash and from Signalbox

Run "signalbox migrate <command> -h" for its flags.
`

const fromEnv = `environment:
  UNLEASH_SOURCE_URL     Unleash base URL (as --url)
  UNLEASH_SOURCE_TOKEN   admin API token or personal access token (as --token)
  DATABASE_URL           postgres://… for PostgreSQL; empty for embedded SQLite
  DATA_DIR               directory of the SQLite file (default ./data)
`

const verifyEnv = `environment:
  UNLEASH_SOURCE_URL     Unleash base URL (as --url)
  UNLEASH_SOURCE_TOKEN   admin API token of Unleash (as --token)
  UNLEASH_CLIENT_TOKENS  comma-separated client tokens (as --client-token)
  SIGNALBOX_URL          base URL of the Signalbox server (as --signalbox-url)
`

// Main runs "signalbox migrate" with args (after "migrate") and returns the
// exit code: 0 success, 1 failure (or differences found by verify), 2 bad
// usage.
func Main(ctx context.Context, args []string, env func(string) string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stderr, usageText)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	var err error
	switch args[0] {
	case "from-unleash":
		err = fromUnleash(ctx, args[1:], env, stdout, stderr)
	case "verify":
		err = verifyMain(ctx, args[1:], env, stdout, stderr)
	default:
		fmt.Fprintf(stderr, "signalbox migrate: unknown command %q\n\n%s", args[0], usageText)
		return 2
	}
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "signalbox migrate %s: %v\n", args[0], err)
		return 2
	default:
		fmt.Fprintf(stderr, "signalbox migrate %s: %v\n", args[0], err)
		return 1
	}
}

type usageError struct{ error }

func envOr(env func(string) string, name, def string) string {
	if v := env(name); v != "" {
		return v
	}
	return def
}

// checkURL accepts http and https URLs and drops a trailing slash, so that
// the same source is recognised however it is written.
func checkURL(raw, flagName string) (string, error) {
	if raw == "" {
		return "", usageError{fmt.Errorf("--%s is required", flagName)}
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", usageError{fmt.Errorf("--%s %q is not an http(s) URL", flagName, raw)}
	}
	return strings.TrimRight(raw, "/"), nil
}

// logger writes one timestamped line per call.
func logger(w io.Writer) func(string, ...any) {
	return func(format string, args ...any) {
		fmt.Fprintf(w, "%s %s\n", time.Now().UTC().Format("15:04:05"), fmt.Sprintf(format, args...))
	}
}

func fromUnleash(ctx context.Context, args []string, env func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("from-unleash", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: signalbox migrate from-unleash --url URL --token TOKEN [flags]\n\nflags:\n")
		fs.PrintDefaults()
		fmt.Fprint(stderr, "\n"+fromEnv)
	}
	rawURL := fs.String("url", env("UNLEASH_SOURCE_URL"), "base URL of the Unleash to copy (env UNLEASH_SOURCE_URL)")
	token := fs.String("token", env("UNLEASH_SOURCE_TOKEN"), "Unleash admin API token or personal access token (env UNLEASH_SOURCE_TOKEN)")
	dbURL := fs.String("database-url", env("DATABASE_URL"), "target PostgreSQL URL; empty for SQLite (env DATABASE_URL)")
	dataDir := fs.String("data-dir", envOr(env, "DATA_DIR", "data"), "target SQLite data directory (env DATA_DIR)")
	dry := fs.Bool("dry-run", false, "print what would be created and every problem; write nothing")
	merge := fs.Bool("merge", false, "add to a target that holds other data")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected arguments %q", fs.Args())}
	}
	base, err := checkURL(*rawURL, "url")
	if err != nil {
		return err
	}
	if *token == "" {
		return usageError{errors.New("--token is required")}
	}
	target := *dbURL
	if target == "" {
		target = filepath.Join(*dataDir, "signalbox.db")
	}
	logf := logger(stderr)
	openCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	st, err := sqlstore.Open(openCtx, target)
	cancel()
	if err != nil {
		return fmt.Errorf("opening the target database: %w", err)
	}
	defer st.Close()
	opts := Options{URL: base, Token: *token, DryRun: *dry, Merge: *merge, Logf: logf}
	if isTerminal(stderr) {
		opts.Progress = progressBar(stderr)
	}
	report, err := Run(ctx, st, opts)
	if report != nil {
		printReport(stdout, report)
	}
	return err
}

// isTerminal reports whether w is a terminal, where a progress bar can
// redraw itself; elsewhere (files, CI logs) progress goes in log lines.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// progressBar redraws one line: a bar and the count of flags written.
func progressBar(w io.Writer) func(done, total int) {
	return func(done, total int) {
		const width = 30
		filled := width
		if total > 0 {
			filled = done * width / total
		}
		fmt.Fprintf(w, "\r[%s%s] %d/%d flags", strings.Repeat("#", filled), strings.Repeat(".", width-filled), done, total)
		if done == total {
			fmt.Fprintln(w)
		}
	}
}

// Options of one migration run.
type Options struct {
	URL, Token    string
	DryRun, Merge bool
	// Logf receives progress lines; nil discards them.
	Logf func(format string, args ...any)
	// Progress, when set, is told how many flags are written so far,
	// instead of a log line every 25 flags.
	Progress func(done, total int)
	// client overrides the HTTP client's retry settings in tests.
	client func(*client)
}

// Run copies the Unleash at o.URL into st and reports what it did.
func Run(ctx context.Context, st store.Store, o Options) (*Report, error) {
	logf := o.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	c := newClient(o.URL, o.Token, logf)
	if o.client != nil {
		o.client(c)
	}
	logf("reading Unleash at %s", c.base)
	src, err := fetch(ctx, c, logf)
	if err != nil {
		return nil, err
	}
	logf("read %d projects, %d environments, %d segments, %d flags, %d API tokens, %d users",
		len(src.Projects), len(src.Environments), len(src.Segments), len(src.Flags), len(src.Tokens), len(src.Users))
	if o.DryRun {
		logf("dry run: nothing is written")
	}
	return apply(ctx, st, src, o.Merge, o.DryRun, logf, o.Progress)
}

// printReport writes the summary table and what was not carried.
func printReport(w io.Writer, r *Report) {
	if r.DryRun {
		fmt.Fprintln(w, "Dry run: nothing was written. This is what a real run would do:")
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "object\tcreated\tupdated\tunchanged\tnot carried\t")
	for _, k := range r.Kinds {
		c := r.Counts[k]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t\n", k, c[created], c[updated], c[unchanged], c[skipped])
	}
	tw.Flush()
	fmt.Fprintf(w, "\n%d objects created or updated.\n", r.Changes)
	if len(r.NotCarried) == 0 {
		fmt.Fprintln(w, "\nEverything was carried over.")
		return
	}
	notes := append([]Note{}, r.NotCarried...)
	sort.SliceStable(notes, func(i, j int) bool { return notes[i].Object < notes[j].Object })
	fmt.Fprintln(w, "\nNot carried over, or carried with a change:")
	for _, n := range notes {
		fmt.Fprintf(w, "  - %s: %s\n", n.Object, n.Reason)
	}
}
