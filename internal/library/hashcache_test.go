//go:build linux

package library

import (
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// countingFS counts the files opened through it; the walk and the stats
// go to the folder without opening files.
type countingFS struct {
	fs.FS
	opened *atomic.Int64
}

func (c countingFS) Open(name string) (fs.File, error) {
	c.opened.Add(1)
	return c.FS.Open(name)
}

func (c countingFS) ReadDir(name string) ([]fs.DirEntry, error) {
	return fs.ReadDir(c.FS, name)
}

func (c countingFS) Stat(name string) (fs.FileInfo, error) {
	return fs.Stat(c.FS, name)
}

// TestHashCache checks that a warm read of an unchanged folder takes its
// hash from the cache without opening a file, and that every change a
// user can make is seen: an edit that keeps the size and the modification
// time, a new file, a removed one.
func TestHashCache(t *testing.T) {
	defer func(w time.Duration) { racyWindow = w }(racyWindow)
	racyWindow = 100 * time.Millisecond
	settle := func() { time.Sleep(2 * racyWindow) }

	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/good")); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	var opened atomic.Int64
	read := func(keep bool) (hash string, opens int64) {
		t.Helper()
		stack := NewStack(Layer{FS: countingFS{os.DirFS(dir), &opened}, Dir: dir})
		stack.CacheHashesIn(cache)
		opened.Store(0)
		f, err := stack.Read(keep)
		if err != nil {
			t.Fatal(err)
		}
		return f.Hash, opened.Load()
	}
	truth := func() string {
		t.Helper()
		h, err := Hash(os.DirFS(dir))
		if err != nil {
			t.Fatal(err)
		}
		return h
	}

	settle()
	first, opens := read(false)
	if first != truth() || opens == 0 {
		t.Fatalf("first read: hash %s (want %s), %d files opened", first, truth(), opens)
	}
	if h, opens := read(false); h != first || opens != 0 {
		t.Fatalf("unchanged folder: hash %s (want %s), %d files opened, want 0", h, first, opens)
	}
	if h, opens := read(true); h != first || opens == 0 {
		t.Fatalf("a read for the bytes: hash %s (want %s), %d files opened", h, first, opens)
	}

	// The same number of bytes and the same modification time: only the
	// change time tells.
	var victim string
	_ = fs.WalkDir(os.DirFS(dir), "incidents", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && victim == "" {
			victim = filepath.Join(dir, p)
		}
		return err
	})
	fi, err := os.Stat(victim)
	if err != nil {
		t.Fatal(err)
	}
	src, _ := os.ReadFile(victim)
	for i, b := range src {
		if b == 'a' {
			src[i] = 'b'
			break
		}
	}
	if err := os.WriteFile(victim, src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(victim, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	edited := truth()
	if edited == first {
		t.Fatal("the edit changed nothing")
	}
	if h, _ := read(false); h != edited {
		t.Fatalf("right after an edit: hash %s, want %s", h, edited)
	}
	settle()
	if h, opens := read(false); h != edited || opens == 0 {
		t.Fatalf("an edit keeping size and mtime: hash %s (want %s), %d files opened", h, edited, opens)
	}
	if h, opens := read(false); h != edited || opens != 0 {
		t.Fatalf("settled after the edit: hash %s (want %s), %d files opened, want 0", h, edited, opens)
	}

	extra := filepath.Join(dir, "incidents", "notes.md")
	if err := os.WriteFile(extra, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	settle()
	added := truth()
	if h, _ := read(false); h != added || added == edited {
		t.Fatalf("a new file: hash %s, want %s", h, added)
	}
	if err := os.Remove(extra); err != nil {
		t.Fatal(err)
	}
	if h, _ := read(false); h != edited {
		t.Fatalf("the new file removed: hash %s, want %s", h, edited)
	}
}

// TestHashCacheRacy checks that a folder changed just now is not cached: a
// rewrite in the same tick of the filesystem's clock would keep its stats.
func TestHashCacheRacy(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/good")); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	stack := NewStack(Layer{FS: os.DirFS(dir), Dir: dir})
	stack.CacheHashesIn(cache)
	if _, err := stack.Read(false); err != nil {
		t.Fatal(err)
	}
	if st := readHashCache(cache, dir); st != nil {
		t.Fatalf("a folder written %v ago was cached", racyWindow)
	}
}
