package corpus

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"casebook/internal/content"
	"casebook/internal/library"
	deflib "casebook/library"
)

func measureShipped(t *testing.T) *Stats {
	t.Helper()
	lib, _, err := library.Load(deflib.FS)
	if err != nil {
		t.Fatalf("load shipped library: %v", err)
	}
	return Measure(lib)
}

// readTree returns every file under dir by slash path.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestGenerateIsDeterministic(t *testing.T) {
	st := measureShipped(t)
	a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
	for _, run := range []struct {
		dir     string
		seed    uint64
		workers int
	}{{a, 7, 1}, {b, 7, 4}, {c, 8, 2}} {
		if err := Generate(run.dir, deflib.FS, st, Options{N: 30, Seed: run.seed, Workers: run.workers}); err != nil {
			t.Fatal(err)
		}
	}
	ta, tb, tc := readTree(t, a), readTree(t, b), readTree(t, c)
	if len(ta) != len(tb) {
		t.Fatalf("same seed wrote %d and %d files", len(ta), len(tb))
	}
	for p, data := range ta {
		if !bytes.Equal(data, tb[p]) {
			t.Errorf("same seed, different %s", p)
		}
	}
	byID := func(tree map[string][]byte) map[string][]byte {
		m := map[string][]byte{}
		for p, data := range tree {
			if strings.HasPrefix(p, "incidents/") {
				m[p[len("incidents/"):len("incidents/IL-0001")]] = data
			}
		}
		return m
	}
	ia, ic := byID(ta), byID(tc)
	if len(ia) != 30 || len(ic) != 30 {
		t.Fatalf("wrote %d and %d incidents, want 30", len(ia), len(ic))
	}
	for id, data := range ia {
		if bytes.Equal(data, ic[id]) {
			t.Errorf("a different seed wrote the same %s", id)
		}
	}
}

func TestGeneratedLibraryLintsClean(t *testing.T) {
	st := measureShipped(t)
	dir := t.TempDir()
	if err := Generate(dir, deflib.FS, st, Options{N: 50, Seed: 1, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	problems, err := content.Lint(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("lint: %s", p)
	}
	lib, _, err := library.Load(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(lib.Incidents) != 50 {
		t.Errorf("loaded %d incidents, want 50", len(lib.Incidents))
	}
}

func TestGenerateRefusesNonEmptyFolder(t *testing.T) {
	st := measureShipped(t)
	dir := t.TempDir()
	if err := Generate(dir, deflib.FS, st, Options{N: 2, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	if err := Generate(dir, deflib.FS, st, Options{N: 2, Seed: 1}); err == nil {
		t.Error("second Generate into the same folder succeeded")
	}
}

func TestIDsPastFourDigits(t *testing.T) {
	st := measureShipped(t)
	for _, i := range []int{1, 9999, 10000, 123456} {
		name, data := st.incident(i, Options{N: 200000, Seed: 1})
		id := name[:bytes.IndexByte([]byte(name[3:]), '-')+3]
		if !library.IsIncidentID(id) {
			t.Errorf("incident %d has id %q", i, id)
		}
		if !bytes.Contains(data, []byte("id: "+id+"\n")) {
			t.Errorf("incident %d: front matter lacks id %s", i, id)
		}
	}
}
