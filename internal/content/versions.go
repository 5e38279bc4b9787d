package content

import (
	"strconv"

	"casebook/internal/library"
	"casebook/internal/search"
	"casebook/internal/store"
)

// DataVersions names, in one place, the layout of each thing the loader
// keeps in the data folder; each is owned by the package that writes it.
// A file of another version is never read as this one: the read model's
// migrations are counted when it is reopened, the index's version is part
// of its folder's name, and the snapshot's is in its header, so each is
// rebuilt when its version differs and reused when it does not. A change
// to what one of them holds must change its version (docs/operations.md,
// Upgrade; test/replicas starts the current server on a previous version's
// data folder and the other way round).
func DataVersions() map[string]string {
	return map[string]string{
		"read_model": strconv.Itoa(store.SchemaVersion()),
		"index":      strconv.Itoa(search.SchemaVersion),
		"snapshot":   library.SnapshotVersion(),
	}
}
