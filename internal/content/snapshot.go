package content

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"

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

// saveSnapshot writes lib's snapshot under temporary names and renames it
// into place when complete, its bodies file first, so a reader never sees
// half of it. Then lib's bodies are read from that file instead of held in
// memory.
func saveSnapshot(dir string, lib *library.Library) (err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("content: library snapshot: %w", err)
		}
	}()
	tmp := func() (*os.File, error) {
		return os.CreateTemp(dir, "."+snapshotPrefix+shortHash(lib.Hash)+"-*.tmp")
	}
	f, err := tmp()
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	bf, err := tmp()
	if err != nil {
		f.Close()
		return err
	}
	defer os.Remove(bf.Name())
	w, bw := bufio.NewWriterSize(f, 1<<20), bufio.NewWriterSize(bf, 1<<20)
	places, err := library.WriteSnapshot(w, bw, lib)
	for _, e := range []error{w.Flush(), bw.Flush(), f.Close(), bf.Close()} {
		if err == nil {
			err = e
		}
	}
	if err == nil {
		err = os.Rename(bf.Name(), bodiesPath(dir, lib.Hash))
	}
	if err == nil {
		err = os.Rename(f.Name(), snapshotPath(dir, lib.Hash))
	}
	if err != nil {
		return err
	}
	rf, err := os.Open(bodiesPath(dir, lib.Hash))
	if err != nil {
		return err
	}
	places.MoveTo(rf)
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
// load does not wait for it.
func (l *Loader) saveSnapshot(lib *library.Library) {
	l.saving.Add(1)
	go func() {
		defer l.saving.Done()
		if err := saveSnapshot(l.dataDir, lib); err != nil {
			l.log.Warn("could not save the library snapshot; the next start will parse", "err", err)
		}
	}()
}
