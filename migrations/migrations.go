// Package migrations holds the SQLite schema of the read model as numbered
// SQL files, applied in order by internal/store.
package migrations

import "embed"

// FS holds NNNN_name.sql files.
//
//go:embed *.sql
var FS embed.FS
