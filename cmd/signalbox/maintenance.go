package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/signalbox/signalbox/server"
	"github.com/signalbox/signalbox/store/sqlstore"
)

// stdin is where "admin reset-password -password-stdin" reads from.
var stdin io.Reader = os.Stdin

// databaseVars are the variables of serverVars that say where the database
// is; the maintenance commands read only these, so that they work with the
// server's environment and do not trip over the rest of it.
var databaseVars = map[string]bool{"DATABASE_URL": true, "DATA_DIR": true, "DATABASE_CONNECT_TIMEOUT": true}

// databaseConfig reads the database location from the environment and the
// -database-url and -data-dir flags, which fs gets here.
func databaseConfig(fs *flag.FlagSet, getenv func(string) string) (*serverConfig, error) {
	c := &serverConfig{dataDir: defaultDataDir, connectTimeout: defaultConnectTimeout}
	var errs []error
	for _, ev := range serverVars {
		if !databaseVars[ev.Name] {
			continue
		}
		if v := strings.TrimSpace(getenv(ev.Name)); v != "" {
			if err := ev.set(c, v); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", ev.Name, err))
			}
		}
	}
	fs.StringVar(&c.databaseURL, "database-url", c.databaseURL, "PostgreSQL URL; empty for SQLite (env DATABASE_URL)")
	fs.StringVar(&c.dataDir, "data-dir", c.dataDir, "SQLite data directory (env DATA_DIR)")
	return c, errors.Join(errs...)
}

// sqlitePath is the SQLite file of c, which must exist: the maintenance
// commands never create a database.
func (c *serverConfig) existingSQLite() (string, error) {
	path := c.storeURL()
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("no database at %s (the server's DATA_DIR, or -data-dir, names its directory): %w", path, err)
	}
	return path, nil
}

// runBackup writes a consistent copy of the SQLite database, safe while the
// server runs. Restoring is copying the file back while the server is
// stopped.
func runBackup(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("backup", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "file to write the copy to; it must not exist (required)")
	cfg, envErr := databaseConfig(fs, os.Getenv)
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: signalbox backup -out FILE [flags]

Writes a consistent copy of the server's SQLite database to FILE, also
while the server runs. To restore, stop the server and copy FILE to
signalbox.db in the data directory (removing any signalbox.db-wal and
signalbox.db-shm there), then start it again. PostgreSQL databases are
backed up with pg_dump instead.

flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected arguments %q", fs.Args())}
	}
	if envErr != nil {
		return usageError{envErr}
	}
	if *out == "" {
		return usageError{errors.New("-out FILE is required")}
	}
	if cfg.databaseURL != "" {
		return errors.New("the database is PostgreSQL (DATABASE_URL is set): back it up with PostgreSQL's tools, e.g.\n" +
			"  pg_dump --format=custom --file=signalbox.dump \"$DATABASE_URL\"\n" +
			"and restore with pg_restore --clean --if-exists --dbname=\"$DATABASE_URL\" signalbox.dump")
	}
	path, err := cfg.existingSQLite()
	if err != nil {
		return err
	}
	if err := sqlstore.BackupSQLite(ctx, path, *out); err != nil {
		return err
	}
	size := int64(0)
	if fi, err := os.Stat(*out); err == nil {
		size = fi.Size()
	}
	fmt.Fprintf(stdout, "Backed up %s to %s (%d bytes).\n", path, *out, size)
	return nil
}

// runAdmin runs the administration subcommands.
func runAdmin(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	adminUsage := func() {
		fmt.Fprint(stderr, `usage: signalbox admin <command>

commands:
  reset-password USER   give USER (a username or e-mail) a new password
`)
	}
	if len(args) == 0 {
		adminUsage()
		return usageError{errors.New("missing command")}
	}
	switch args[0] {
	case "reset-password":
		return runResetPassword(ctx, args[1:], stdout, stderr)
	case "-h", "--help", "help":
		adminUsage()
		return nil
	}
	adminUsage()
	return usageError{fmt.Errorf("unknown command %q", args[0])}
}

// runResetPassword sets a new password for a user directly in the
// configured database: the way back in when the only admin's password is
// lost. The change is audited and signs the user out everywhere.
func runResetPassword(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("admin reset-password", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fromStdin := fs.Bool("password-stdin", false, "read the new password from the first line of standard input instead of generating one")
	cfg, envErr := databaseConfig(fs, os.Getenv)
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: signalbox admin reset-password [flags] USER

Sets a new password for USER (a username or e-mail) in the server's
database (DATABASE_URL, or the SQLite file in DATA_DIR) and signs them out
everywhere. Without -password-stdin a strong password is generated and
printed. It works while the server runs.

flags:
`)
		fs.PrintDefaults()
	}
	// Flags may come before or after USER.
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil
			}
			return usageError{err}
		}
		if fs.NArg() == 0 {
			break
		}
		rest = append(rest, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(rest) != 1 {
		return usageError{errors.New("name exactly one user (username or e-mail)")}
	}
	if envErr != nil {
		return usageError{envErr}
	}
	password := ""
	if *fromStdin {
		line, err := bufio.NewReader(stdin).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("reading the password: %w", err)
		}
		password = strings.TrimRight(line, "\r\n")
		if password == "" {
			return usageError{errors.New("-password-stdin: standard input holds no password")}
		}
	}
	url := cfg.databaseURL
	if url == "" {
		path, err := cfg.existingSQLite()
		if err != nil {
			return err
		}
		url = path
	}
	openCtx, cancel := context.WithTimeout(ctx, cfg.connectTimeout+15*time.Second)
	st, err := sqlstore.OpenRetrying(openCtx, url, cfg.connectTimeout, func(attempt int, pause time.Duration, err error) {
		fmt.Fprintf(stderr, "the database is not reachable yet (attempt %d, retrying in %s): %v\n", attempt, pause, err)
	})
	cancel()
	if err != nil {
		return fmt.Errorf("opening the database: %w", err)
	}
	defer st.Close()
	generated, err := server.ResetPassword(ctx, st, rest[0], password)
	if err != nil {
		return err
	}
	if generated != "" {
		fmt.Fprintf(stdout, "New password of %s: %s\n", rest[0], generated)
	} else {
		fmt.Fprintf(stdout, "Password of %s changed.\n", rest[0])
	}
	return nil
}
