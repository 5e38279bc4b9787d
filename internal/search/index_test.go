package search

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestOpenReusesIndexOfSameContent(t *testing.T) {
	lib := loadLibrary(t)
	dir := t.TempDir()

	ix, err := Open(dir, lib)
	if err != nil {
		t.Fatal(err)
	}
	first := ix.Info()
	if first.Reused || first.Rejected != nil {
		t.Fatalf("first open: %+v, want a fresh build", first)
	}
	if first.Docs != len(lib.Incidents)+len(lib.Playbooks) {
		t.Errorf("first open indexed %d documents, want %d", first.Docs, len(lib.Incidents)+len(lib.Playbooks))
	}
	ix.Close()
	before := snapshotFiles(t, dir)

	ix, err = Open(dir, lib)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if info := ix.Info(); !info.Reused || info.Rejected != nil || info.Path != first.Path {
		t.Fatalf("second open: %+v, want the index at %s reused", info, first.Path)
	}
	if after := snapshotFiles(t, dir); after != before {
		t.Errorf("reopening rewrote the index:\nbefore %s\nafter  %s", before, after)
	}
	res, err := ix.Search(context.Background(), Request{Query: "pending"})
	if err != nil || res.Total == 0 {
		t.Fatalf("search on reused index: %v, %+v", err, res)
	}
}

func TestOpenBuildsNewIndexWhenContentChanges(t *testing.T) {
	lib, changed := loadLibrary(t), changedLibrary(t)
	if lib.Hash == changed.Hash {
		t.Fatal("editing a file did not change the content hash")
	}
	dir := t.TempDir()
	old, err := Open(dir, lib)
	if err != nil {
		t.Fatal(err)
	}
	old.Close()

	ix, err := Open(dir, changed)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if info := ix.Info(); info.Reused || info.Path == old.Info().Path {
		t.Fatalf("changed content: %+v, want a new index beside %s", info, old.Info().Path)
	}
	if _, err := os.Stat(old.Info().Path); err != nil {
		t.Fatalf("the old index must stay until RemoveStale: %v", err)
	}
	if err := ix.RemoveStale(); err != nil {
		t.Fatal(err)
	}
	if names := dirNames(t, dir); len(names) != 1 || names[0] != filepath.Base(ix.Info().Path) {
		t.Errorf("after RemoveStale the data folder holds %v, want only %s", names, filepath.Base(ix.Info().Path))
	}
}

func TestOpenRebuildsDamagedIndex(t *testing.T) {
	lib := loadLibrary(t)
	tests := []struct {
		name   string
		damage func(t *testing.T, path string)
	}{
		{"truncated forward file", func(t *testing.T, path string) {
			name := filepath.Join(path, fwdFileName)
			fi, _ := os.Stat(name)
			if err := os.Truncate(name, fi.Size()/2); err != nil {
				t.Fatal(err)
			}
		}},
		{"missing positions file", func(t *testing.T, path string) {
			if err := os.Remove(filepath.Join(path, posFileName)); err != nil {
				t.Fatal(err)
			}
		}},
		{"overwritten fields file bytes", func(t *testing.T, path string) {
			f, err := os.OpenFile(filepath.Join(path, memFileName), os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteAt([]byte("garbage garbage garbage"), 100); err != nil {
				t.Fatal(err)
			}
		}},
		{"empty fields file", func(t *testing.T, path string) {
			if err := os.WriteFile(filepath.Join(path, memFileName), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"missing manifest (crash during build)", func(t *testing.T, path string) {
			if err := os.Remove(filepath.Join(path, manifestName)); err != nil {
				t.Fatal(err)
			}
		}},
		{"unreadable manifest", func(t *testing.T, path string) {
			if err := os.WriteFile(filepath.Join(path, manifestName), []byte("{"), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"not an index at all", func(t *testing.T, path string) {
			if err := os.RemoveAll(path); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(path, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(path, memFileName), []byte("nonsense"), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			ix, err := Open(dir, lib)
			if err != nil {
				t.Fatal(err)
			}
			path := ix.Info().Path
			ix.Close()
			tt.damage(t, path)

			ix, err = Open(dir, lib)
			if err != nil {
				t.Fatalf("open damaged index: %v (must rebuild, not fail)", err)
			}
			defer ix.Close()
			info := ix.Info()
			if info.Reused || info.Rejected == nil {
				t.Fatalf("open damaged index: %+v, want it rejected and rebuilt", info)
			}
			t.Logf("rejected: %v", info.Rejected)
			res, err := ix.Search(context.Background(), Request{Query: "AcceleratedHardwareReady"})
			if err != nil || len(res.Hits) == 0 {
				t.Fatalf("search after rebuild: %v, %+v", err, res)
			}
		})
	}
}

func TestRemoveStaleLeavesCurrentAndRunningBuilds(t *testing.T) {
	dir := t.TempDir()
	keep := "0123456789abcdef0123"
	for _, name := range []string{DirName(keep), "index-aaaaaaaaaaaaaaaa", ".building-old", ".building-new", "store.db"} {
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * staleBuildAge)
	if err := os.Chtimes(filepath.Join(dir, ".building-old"), old, old); err != nil {
		t.Fatal(err)
	}
	if err := RemoveStale(dir, keep); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(dirNames(t, dir), " ")
	if want := ".building-new " + DirName(keep) + " store.db"; got != want {
		t.Errorf("after RemoveStale: %s, want %s", got, want)
	}
}

// snapshotFiles lists every file under dir with its size and modification
// time, to show that reopening an index wrote nothing.
func snapshotFiles(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			b.WriteString(rel + " " + fi.ModTime().Format(time.RFC3339Nano) + "; ")
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
