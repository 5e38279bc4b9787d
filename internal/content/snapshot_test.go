package content

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"casebook/internal/library"
)

// libraryBuilder records the library a builder got and whether the load
// was warm when it asked.
type libraryBuilder struct {
	got *library.Library
}

func (b *libraryBuilder) builder() Builder {
	return Builder{Name: "lib", Build: func(_ context.Context, lib func() (*library.Library, error), _ *Content) (any, error) {
		l, err := lib()
		b.got = l
		return l, err
	}}
}

func TestWarmStartDecodesTheSnapshotInsteadOfParsing(t *testing.T) {
	ctx := context.Background()
	lib, data := libDir(t), t.TempDir()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))

	var b1 libraryBuilder
	l1 := NewLoader(os.DirFS(lib), data, log, b1.builder())
	cold, err := l1.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	l1.Close() // waits for the snapshot
	if _, err := os.Stat(snapshotPath(data, cold.Hash)); err != nil {
		t.Fatalf("no snapshot after a cold load: %v", err)
	}

	var b2 libraryBuilder
	l2 := NewLoader(os.DirFS(lib), data, log, b2.builder())
	t.Cleanup(l2.Close)
	warm, err := l2.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !warm.Warm {
		t.Error("a builder that needs the library made the warm start parse despite the snapshot")
	}
	if b2.got == nil || len(b2.got.Incidents) != len(b1.got.Incidents) || b2.got.Taxonomy != warm.Taxonomy {
		t.Fatalf("the warm builder got %v", b2.got)
	}
	for _, in := range b1.got.Incidents {
		if got, ok := b2.got.Incident(in.ID); !ok || got.Title != in.Title || len(got.Sections) != len(in.Sections) {
			t.Errorf("incident %s differs after the snapshot", in.ID)
		}
	}
}

func TestDamagedSnapshotFallsBackToParsing(t *testing.T) {
	ctx := context.Background()
	lib, data := libDir(t), t.TempDir()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	var b1 libraryBuilder
	l1 := NewLoader(os.DirFS(lib), data, log, b1.builder())
	cold, err := l1.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	l1.Close()
	if err := os.WriteFile(snapshotPath(data, cold.Hash), []byte("not a snapshot"), 0o644); err != nil {
		t.Fatal(err)
	}
	var b2 libraryBuilder
	l2 := NewLoader(os.DirFS(lib), data, log, b2.builder())
	warm, err := l2.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if warm.Warm || b2.got == nil || len(b2.got.Incidents) != len(b1.got.Incidents) {
		t.Errorf("damaged snapshot: warm %v, library %v", warm.Warm, b2.got)
	}
	l2.Close()
	// The parse wrote a good snapshot again.
	if _, err := loadSnapshot(data, cold.Hash, warm.Taxonomy); err != nil {
		t.Errorf("no usable snapshot after parsing: %v", err)
	}
}

func TestPruneSnapshots(t *testing.T) {
	dir := t.TempDir()
	keep, old := "aaaaaaaaaaaaaaaa1111", "bbbbbbbbbbbbbbbb2222"
	for _, name := range []string{filepath.Base(snapshotPath(dir, keep)), filepath.Base(snapshotPath(dir, old)),
		".library-" + old[:16] + "-123.tmp", ".library-" + keep[:16] + "-456.tmp", "casebook-other.db"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pruneSnapshots(dir, []string{keep})
	entries, _ := os.ReadDir(dir)
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	want := []string{".library-aaaaaaaaaaaaaaaa-456.tmp", "casebook-other.db", "library-aaaaaaaaaaaaaaaa.gob"}
	if len(left) != len(want) {
		t.Fatalf("left %v, want %v", left, want)
	}
	for i := range want {
		if left[i] != want[i] {
			t.Errorf("left %v, want %v", left, want)
		}
	}
}
