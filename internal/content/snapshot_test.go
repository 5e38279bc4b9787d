package content

import (
	"github.com/google/go-cmp/cmp"

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

// coldLoad loads a copy of the test library into an empty data folder and
// closes its loader, which waits for the snapshot to be written.
func coldLoad(t *testing.T) (lib, data string, cold *Content) {
	t.Helper()
	lib, data = libDir(t), t.TempDir()
	l := quietLoader(lib, data)
	cold, err := l.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	return lib, data, cold
}

func TestWarmStartDecodesTheSnapshotInsteadOfParsing(t *testing.T) {
	ctx := context.Background()
	lib, data, cold := coldLoad(t)
	if _, err := os.Stat(snapshotPath(data, cold.Hash)); err != nil {
		t.Fatalf("no snapshot after a cold load: %v", err)
	}
	// The cold load's library, still served, reads its section texts from
	// the snapshot's bodies file (TestColdLoadMovesBodiesToTheFile);
	// deleting the data folder (it is safe to) leaves them readable.
	if err := os.RemoveAll(data); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"IL-9001", "IL-9002"} {
		in, ok := cold.Search.Incident(id)
		if !ok || len(in.FullSections()) == 0 || in.FullSections()[0].HTML == "" || (id == "IL-9001" && len(in.Ko.FullSections()) == 0) {
			t.Errorf("%s after the cold load's snapshot: %v", id, ok)
		}
	}
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	l0 := quietLoader(lib, data)
	if _, err := l0.Load(ctx); err != nil {
		t.Fatal(err)
	}
	l0.Close()

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
	files, err := l2.stack.Read(true)
	if err != nil || files.Hash != cold.Hash {
		t.Fatalf("read the library again: hash %v (cold load's %s), err %v", files, cold.Hash, err)
	}
	decoded, _, wasParsed, err := l2.parse(files, tax)
	if err != nil || wasParsed {
		t.Fatalf("parse with a stored read model: parsed %v, err %v", wasParsed, err)
	}
	if len(decoded.Incidents) != len(parsed.Incidents) {
		t.Fatalf("decoded %d incidents, parsed %d", len(decoded.Incidents), len(parsed.Incidents))
	}
	for _, in := range parsed.Incidents {
		got, ok := decoded.Incident(in.ID)
		if !ok || got.Title != in.Title {
			t.Errorf("incident %s differs after the snapshot", in.ID)
			continue
		}
		if diff := cmp.Diff(in.FullSections(), got.FullSections()); diff != "" {
			t.Errorf("incident %s: sections after the snapshot (-parsed +decoded):\n%s", in.ID, diff)
		}
		if diff := cmp.Diff(in.Ko.FullSections(), got.Ko.FullSections()); diff != "" {
			t.Errorf("incident %s: Korean sections after the snapshot (-parsed +decoded):\n%s", in.ID, diff)
		}
	}
}

// Once its snapshot is written, a cold-loaded library reads its section
// texts from the bodies file rather than holding them: zeroing the file in
// place leaves the served incidents without sections (a damaged body shows
// none rather than wrong text).
func TestColdLoadMovesBodiesToTheFile(t *testing.T) {
	_, data, cold := coldLoad(t)
	in, ok := cold.Search.Incident("IL-9001")
	if !ok || len(in.FullSections()) == 0 {
		t.Fatalf("IL-9001 has no sections after the cold load")
	}
	path := bodiesPath(data, cold.Hash)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, make([]byte, fi.Size()), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := in.FullSections(); got != nil {
		t.Errorf("IL-9001's sections still come from memory: %d sections", len(got))
	}
}

func TestDamagedSnapshotFallsBackToParsing(t *testing.T) {
	ctx := context.Background()
	lib, data, cold := coldLoad(t)
	// The snapshot itself damaged, its bodies file damaged, or gone.
	damage := map[string]func() error{
		"snapshot": func() error { return os.WriteFile(snapshotPath(data, cold.Hash), []byte("not a snapshot"), 0o644) },
		"bodies": func() error {
			b, err := os.ReadFile(bodiesPath(data, cold.Hash))
			if err != nil {
				return err
			}
			b[len(b)/3] ^= 0x10
			return os.WriteFile(bodiesPath(data, cold.Hash), b, 0o644)
		},
		"bodies gone": func() error { return os.Remove(bodiesPath(data, cold.Hash)) },
	}
	for _, name := range []string{"snapshot", "bodies", "bodies gone"} {
		if err := damage[name](); err != nil {
			t.Fatal(err)
		}
		l2 := quietLoader(lib, data)
		again, err := l2.Load(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if again.Warm || again.Incidents != cold.Incidents {
			t.Errorf("%s damaged: warm %v, %d incidents, want %d", name, again.Warm, again.Incidents, cold.Incidents)
		}
		l2.Close()
		// The parse wrote a good snapshot again.
		if _, err := loadSnapshot(data, cold.Hash, again.Taxonomy); err != nil {
			t.Errorf("%s damaged: no usable snapshot after parsing: %v", name, err)
		}
	}
}

func TestPruneSnapshots(t *testing.T) {
	dir := t.TempDir()
	keep, old := "aaaaaaaaaaaaaaaa1111", "bbbbbbbbbbbbbbbb2222"
	for _, name := range []string{filepath.Base(snapshotPath(dir, keep)), filepath.Base(snapshotPath(dir, old)),
		filepath.Base(bodiesPath(dir, keep)), filepath.Base(bodiesPath(dir, old)),
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
	want := []string{".library-aaaaaaaaaaaaaaaa-456.tmp", "casebook-other.db", "library-aaaaaaaaaaaaaaaa.bodies", "library-aaaaaaaaaaaaaaaa.gob"}
	if len(left) != len(want) {
		t.Fatalf("left %v, want %v", left, want)
	}
	for i := range want {
		if left[i] != want[i] {
			t.Errorf("left %v, want %v", left, want)
		}
	}
}
