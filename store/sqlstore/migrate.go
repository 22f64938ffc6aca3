package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/signalbox/signalbox/store/migrations"
)

// migrate applies the pending migrations of d to db.
func migrate(ctx context.Context, db *sql.DB, d *dialect) error {
	fsys, err := fs.Sub(migrations.FS, d.migrations)
	if err != nil {
		return fmt.Errorf("sqlstore: migrations: %w", err)
	}
	// Global registrations are Go migrations other packages might add with
	// goose.AddMigration; ours are SQL only.
	opts := []goose.ProviderOption{goose.WithDisableGlobalRegistry(true)}
	if d == postgresDialect {
		// Several servers starting at once against one database take turns.
		locker, err := lock.NewPostgresSessionLocker()
		if err != nil {
			return fmt.Errorf("sqlstore: migration lock: %w", err)
		}
		opts = append(opts, goose.WithSessionLocker(locker))
	}
	p, err := goose.NewProvider(d.goose, db, fsys, opts...)
	if err != nil {
		return fmt.Errorf("sqlstore: migrations: %w", err)
	}
	// Not p.Close: that would close db.
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("sqlstore: applying %s migrations: %w", d.name, err)
	}
	return seedFlagTypes(ctx, db)
}

// seedFlagTypes adds the flag types that came after the first migration
// (Unleash 8's sunset) where they are missing. It inserts nothing that is
// there already, so a lifetime an admin set is kept, and instances opening
// one database at once do not conflict.
func seedFlagTypes(ctx context.Context, db *sql.DB) error {
	_, err := db.ExecContext(ctx, `INSERT INTO feature_types (id, name, description, lifetime_days) VALUES
    ('sunset', 'Sunset', 'Retires a feature: switched off for more and more users, then removed with its code.', 40)
    ON CONFLICT (id) DO NOTHING`)
	if err != nil {
		return fmt.Errorf("sqlstore: seeding flag types: %w", err)
	}
	return nil
}
