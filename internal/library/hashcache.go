package library

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"casebook/internal/atomicfile"
)

// A warm start reads every file of the library only to learn that its hash
// has not changed: at 10,000 incidents that was a third of the start. A
// hash cache, kept beside the read models, records for a layer's folder the
// hash and every file's path, size, inode and change times when it was
// read; the next Read of the folder stats its files (a directory walk, no
// file opened) and reuses the hash when all of them match, as Git's index
// does for its working tree.
//
// A file rewritten after its read changes its ctime, which no program can
// set, unless the rewrite falls in the same tick of the filesystem's clock
// as the read. So the cache is not written while any file changed less than
// racyWindow before the walk: such a folder is read in full until it
// settles.

// racyWindow is how recently a file may have changed for its stats to be
// trusted; tests shorten it.
var racyWindow = 2 * time.Second

// hashCacheVersion changes with the cache's format or the hash's recipe.
const hashCacheVersion = 2

// layerStats is a layer's folder as last read for its hash.
type layerStats struct {
	Version int
	Dir     string
	Hash    string
	Files   []fileStat
}

// fileStat is what a file's stat says about its content.
type fileStat struct {
	Path         string
	Size         int64
	Mtime, Ctime int64 // nanoseconds
	Ino, Dev     uint64
}

// CacheHashesIn keeps the hash cache of the stack's on-disk layers in dir
// (the data folder). Call it before the first Read.
func (s *Stack) CacheHashesIn(dir string) { s.hashCache = dir }

// hashCacheFile is the cache file of a layer folder.
func hashCacheFile(cacheDir, layerDir string) string {
	sum := sha256.Sum256([]byte(layerDir))
	return filepath.Join(cacheDir, "hashes-"+hex.EncodeToString(sum[:8])+".gob")
}

// readHashCache returns the cache of layerDir, or nil.
func readHashCache(cacheDir, layerDir string) *layerStats {
	data, err := os.ReadFile(hashCacheFile(cacheDir, layerDir))
	if err != nil {
		return nil
	}
	var st layerStats
	if gob.NewDecoder(bytes.NewReader(data)).Decode(&st) != nil || st.Version != hashCacheVersion || st.Dir != layerDir || st.Hash == "" {
		return nil
	}
	return &st
}

// writeHashCache replaces the cache of st.Dir. A cache that cannot be
// written costs the next start a full read, nothing more.
func writeHashCache(cacheDir string, st *layerStats) {
	if os.MkdirAll(cacheDir, 0o755) != nil {
		return
	}
	_ = atomicfile.Write(hashCacheFile(cacheDir, st.Dir), 0o600, func(w io.Writer) error {
		return gob.NewEncoder(w).Encode(st)
	})
}

// statFiles stats the walked files, or says they cannot be cached: a
// folder whose files the platform gives no change time for, or one where a
// file changed within racyWindow.
func statFiles(fsys fs.FS, files []string) ([]fileStat, bool) {
	now := time.Now().UnixNano()
	out := make([]fileStat, len(files))
	for i, p := range files {
		fi, err := fs.Stat(fsys, p)
		if err != nil {
			return nil, false
		}
		st, ok := sysStat(fi)
		if !ok {
			return nil, false
		}
		st.Path = p
		if now-max(st.Mtime, st.Ctime) < int64(racyWindow) {
			return nil, false
		}
		out[i] = st
	}
	return out, true
}

// unchanged reports whether the files stat as they did for the cache.
func (st *layerStats) unchanged(files []fileStat) bool {
	return st != nil && slices.Equal(st.Files, files)
}
