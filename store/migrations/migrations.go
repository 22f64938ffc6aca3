// Package migrations embeds the schema migrations of store/sqlstore, one
// directory per dialect, applied in order by goose. DDL differs too much
// between SQLite and PostgreSQL to share files; each change is written
// twice, with the same version number and file name in both directories.
package migrations

import "embed"

// FS holds sqlite/*.sql and postgres/*.sql.
//
//go:embed sqlite/*.sql postgres/*.sql
var FS embed.FS
