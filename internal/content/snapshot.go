package content

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"casebook/internal/atomicfile"
	"casebook/internal/library"
)

// The parsed library is persisted beside the read models, so that a warm
// start whose builders need the library (the search index keeps it for its
// hits and highlights) decodes it instead of parsing every Markdown file.
// At 10,000 incidents parsing costs seconds of CPU and decoding a fraction
// of that. Like the read models it is derived data: safe to delete.
const snapshotPrefix = "library-"

func shortHash(hash string) string {
	if len(hash) > 16 {
		return hash[:16]
	}
	return hash
}

func snapshotPath(dir, hash string) string {
	return filepath.Join(dir, snapshotPrefix+shortHash(hash)+".gob")
}

// bodiesPath is the snapshot's bodies file: the incidents' section texts,
// which the library served reads from there (library.Body).
func bodiesPath(dir, hash string) string {
	return filepath.Join(dir, snapshotPrefix+shortHash(hash)+".bodies")
}

// saveBodies writes the first half of lib's snapshot, its bodies file,
// under a temporary name and renames it into place when complete; then
// lib's bodies are read from that file instead of held in memory.
// saveEntries writes the other half, the file a warm start opens first,
// the same way: a reader never sees half of a snapshot.
func saveBodies(dir string, lib *library.Library) (*library.SnapshotBodies, error) {
	var b *library.SnapshotBodies
	err := writeSnapshotFile(bodiesPath(dir, lib.Hash), func(w io.Writer) (err error) {
		b, err = library.WriteBodies(w, lib)
		return err
	})
	if err != nil {
		return nil, err
	}
	rf, err := os.Open(bodiesPath(dir, lib.Hash))
	if err != nil {
		return nil, fmt.Errorf("content: library snapshot: %w", err)
	}
	b.Places.MoveTo(rf)
	return b, nil
}

// saveEntries writes the rest of lib's snapshot; see saveBodies.
func saveEntries(dir string, lib *library.Library, b *library.SnapshotBodies) error {
	return writeSnapshotFile(snapshotPath(dir, lib.Hash), func(w io.Writer) error {
		return library.WriteEntries(w, lib, b)
	})
}

// writeSnapshotFile writes a file of the snapshot (final) whole or not at
// all.
func writeSnapshotFile(final string, write func(io.Writer) error) error {
	if err := atomicfile.Write(final, 0o600, write); err != nil {
		return fmt.Errorf("content: library snapshot: %w", err)
	}
	return nil
}

// loadSnapshot reads the snapshot of the library with hash; an error
// wrapping fs.ErrNotExist means there is none.
func loadSnapshot(dir, hash string, tax *library.Taxonomy) (*library.Library, error) {
	f, err := os.Open(snapshotPath(dir, hash))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	bf, err := os.Open(bodiesPath(dir, hash))
	if err != nil {
		return nil, err
	}
	lib, err := library.ReadSnapshot(bufio.NewReaderSize(f, 1<<20), bf, tax, hash)
	if err != nil {
		bf.Close()
		return nil, err
	}
	return lib, nil
}

// pruneSnapshots removes snapshots, finished or not, of every hash but
// those in keep.
func pruneSnapshots(dir string, keep []string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		name := strings.TrimPrefix(e.Name(), ".")
		if !strings.HasPrefix(name, snapshotPrefix) {
			continue
		}
		rest := strings.TrimPrefix(name, snapshotPrefix)
		kept := false
		for _, h := range keep {
			if strings.HasPrefix(rest, shortHash(h)) {
				kept = true
			}
		}
		if !kept {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// saveSnapshot persists lib for the next warm start, in the background: a
// load does not wait for it. The bodies are written at once, and lib's
// bodies then read from their file, so what the load does next holds less
// in memory; the rest is written when the load calls finish with keep,
// so that its encoding does not compete with the load (and not at all
// without keep: the load failed).
func (l *Loader) saveSnapshot(lib *library.Library) (finish func(keep bool)) {
	loaded := make(chan bool, 1)
	l.saving.Add(1)
	go func() {
		defer l.saving.Done()
		b, err := saveBodies(l.dataDir, lib)
		if keep := <-loaded; err == nil && keep {
			err = saveEntries(l.dataDir, lib, b)
		}
		if err != nil {
			l.log.Warn("could not save the library snapshot; the next start will parse", "err", err)
		}
	}()
	var once sync.Once
	return func(keep bool) { once.Do(func() { loaded <- keep }) }
}
