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

func quietLoader(lib, data string) *Loader {
	return NewLoader(os.DirFS(lib), data, slog.New(slog.NewTextHandler(io.Discard, nil)))
}

func TestWarmStartDecodesTheSnapshotInsteadOfParsing(t *testing.T) {
	ctx := context.Background()
	lib, data := libDir(t), t.TempDir()
	l1 := quietLoader(lib, data)
	cold, err := l1.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	l1.Close() // waits for the snapshot
	if _, err := os.Stat(snapshotPath(data, cold.Hash)); err != nil {
		t.Fatalf("no snapshot after a cold load: %v", err)
	}

	l2 := quietLoader(lib, data)
	t.Cleanup(l2.Close)
	warm, err := l2.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !warm.Warm || !warm.Search.Info().Reused {
		t.Errorf("second start parsed or indexed again despite the snapshot (warm %v)", warm.Warm)
	}
	parsed, _, err := library.Load(os.DirFS(lib))
	if err != nil {
		t.Fatal(err)
	}
	tax, err := l2.stack.Taxonomy()
	if err != nil {
		t.Fatal(err)
	}
	decoded, _, wasParsed, err := l2.parse(cold.Hash, tax)
	if err != nil || wasParsed {
		t.Fatalf("parse with a stored read model: parsed %v, err %v", wasParsed, err)
	}
	if len(decoded.Incidents) != len(parsed.Incidents) {
		t.Fatalf("decoded %d incidents, parsed %d", len(decoded.Incidents), len(parsed.Incidents))
	}
	for _, in := range parsed.Incidents {
		if got, ok := decoded.Incident(in.ID); !ok || got.Title != in.Title || len(got.Sections) != len(in.Sections) {
			t.Errorf("incident %s differs after the snapshot", in.ID)
		}
	}
}

func TestDamagedSnapshotFallsBackToParsing(t *testing.T) {
	ctx := context.Background()
	lib, data := libDir(t), t.TempDir()
	l1 := quietLoader(lib, data)
	cold, err := l1.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	l1.Close()
	if err := os.WriteFile(snapshotPath(data, cold.Hash), []byte("not a snapshot"), 0o644); err != nil {
		t.Fatal(err)
	}
	l2 := quietLoader(lib, data)
	again, err := l2.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if again.Warm || again.Incidents != cold.Incidents {
		t.Errorf("damaged snapshot: warm %v, %d incidents, want %d", again.Warm, again.Incidents, cold.Incidents)
	}
	l2.Close()
	// The parse wrote a good snapshot again.
	if _, err := loadSnapshot(data, cold.Hash, again.Taxonomy); err != nil {
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
