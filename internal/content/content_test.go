package content

import (
	"context"
	"crypto/rand"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"casebook/internal/library"
	"casebook/internal/store"
)

const fixtures = "../library/testdata"

// libDir copies the good fixture library into a temp folder a test may edit.
func libDir(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	copyDir(t, filepath.Join(fixtures, "good"), dst)
	return dst
}

// copyDir copies the tree at src into dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func newLoader(t *testing.T, lib, data string) *Loader {
	t.Helper()
	l := NewLoader(os.DirFS(lib), data, slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(l.Close)
	return l
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// addBroken copies a file of the loader's broken fixtures into lib.
func addBroken(t *testing.T, lib, file string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixtures, "broken", file))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(lib, file), string(data))
}

// addIncident writes IL-9005, a valid incident that is not in the fixture.
func addIncident(t *testing.T, lib string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(lib, "incidents/IL-9004-blocked-image-pulls.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(src), "id: IL-9004", "id: IL-9005", 1)
	s = strings.Replace(s, "title: Blocked image pulls kept nodes NotReady", "title: A fifth incident added while serving", 1)
	writeFile(t, filepath.Join(lib, "incidents/IL-9005-added-while-serving.md"), s)
}

func total(t *testing.T, c *Content) int {
	t.Helper()
	_, n, err := c.Store.ListIncidents(context.Background(), store.Filter{}, store.SortNewest, 1, 50)
	if err != nil {
		t.Fatalf("ListIncidents: %v", err)
	}
	return n
}

func pathProblems(c *Content, prefix string) []string {
	var out []string
	for _, p := range c.Problems {
		if strings.HasPrefix(p.Path, prefix) {
			out = append(out, p.String())
		}
	}
	return out
}

func TestColdThenWarm(t *testing.T) {
	ctx := context.Background()
	lib, data := libDir(t), t.TempDir()

	l1 := newLoader(t, lib, data)
	cold, err := l1.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if cold.Warm || cold.Incidents != 4 || cold.Playbooks != 2 || total(t, cold) != 4 {
		t.Fatalf("cold load: warm %v, %d incidents, %d playbooks", cold.Warm, cold.Incidents, cold.Playbooks)
	}
	if l1.Current() != cold {
		t.Error("the loaded Content is not published")
	}
	dbFile := cold.Store.Path()
	before, err := os.Stat(dbFile)
	if err != nil {
		t.Fatal(err)
	}
	coldProblems := cold.Problems
	l1.Close()

	// A restart with the same files reuses the database built before.
	l2 := newLoader(t, lib, data)
	warm, err := l2.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !warm.Warm {
		t.Error("second start with unchanged files was not warm")
	}
	if warm.Hash != cold.Hash || warm.Incidents != cold.Incidents || warm.Playbooks != cold.Playbooks || total(t, warm) != 4 {
		t.Errorf("warm load differs: hash %s/%s, incidents %d/%d, playbooks %d/%d",
			warm.Hash, cold.Hash, warm.Incidents, cold.Incidents, warm.Playbooks, cold.Playbooks)
	}
	if diff := cmp.Diff(coldProblems, warm.Problems); diff != "" {
		t.Errorf("problems differ after a warm start (-cold +warm):\n%s", diff)
	}
	after, err := os.Stat(warm.Store.Path())
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
		t.Error("warm start rebuilt the database")
	}
	if warm.Taxonomy == nil || warm.Taxonomy.Label(library.FacetComponent, "gpu-driver") != "GPU driver" {
		t.Error("warm start has no taxonomy")
	}

	// Loading again without a change keeps the same Content.
	again, err := l2.Load(ctx)
	if err != nil || again != warm {
		t.Errorf("reload without a change swapped in a new Content (err %v)", err)
	}
}

func TestReloadAfterChange(t *testing.T) {
	ctx := context.Background()
	lib := libDir(t)
	l := newLoader(t, lib, t.TempDir())
	first, err := l.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}

	path := filepath.Join(lib, "incidents/IL-9002-scheduler-change-left-pods-pending.md")
	src, _ := os.ReadFile(path)
	writeFile(t, path, strings.Replace(string(src), "title: Scheduler change left pods Pending", "title: Scheduler profile change left pods Pending", 1))
	addIncident(t, lib)

	second, err := l.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if second == first || second.Hash == first.Hash || l.Current() != second {
		t.Fatal("the changed library was not swapped in")
	}
	if second.Incidents != 5 || total(t, second) != 5 {
		t.Errorf("after adding an incident: %d incidents (store %d), want 5", second.Incidents, total(t, second))
	}
	in, err := second.Store.Incident(ctx, "IL-9002")
	if err != nil || in.Title != "Scheduler profile change left pods Pending" {
		t.Errorf("edited title not served: %q, %v", in.Title, err)
	}
	// A request that started on the old Content can still finish on it.
	if n := total(t, first); n != 4 {
		t.Errorf("old Content reads %d incidents, want its own 4", n)
	}
}

func TestReloadWithInvalidTaxonomyKeepsPrevious(t *testing.T) {
	ctx := context.Background()
	lib := libDir(t)
	l := newLoader(t, lib, t.TempDir())
	first, err := l.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(lib, "taxonomy.yaml"), "causes:\n  - id: a\n    aliases: [x, y\n")

	c, err := l.Load(ctx)
	if err == nil {
		t.Fatal("Load accepted an invalid taxonomy")
	}
	if c != nil {
		t.Errorf("Load returned a Content with its error: %+v", c)
	}
	if want := "taxonomy.yaml:3:"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not name %s", err, want)
	}
	if l.Current() != first {
		t.Fatal("the previous Content is no longer published")
	}
	if n := total(t, l.Current()); n != 4 {
		t.Errorf("previous Content serves %d incidents, want 4", n)
	}
}

func TestBrokenIncidentKeepsServingTheRest(t *testing.T) {
	ctx := context.Background()
	lib := libDir(t)
	l := newLoader(t, lib, t.TempDir())
	if _, err := l.Load(ctx); err != nil {
		t.Fatal(err)
	}
	addBroken(t, lib, "incidents/IL-9107-unclosed-list.md") // left out
	addBroken(t, lib, "incidents/IL-9101-unknown-term.md")  // loads, with a problem

	c, err := l.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c.Incidents != 5 || total(t, c) != 5 {
		t.Errorf("serving %d incidents (store %d), want the 4 good ones and IL-9101", c.Incidents, total(t, c))
	}
	want := []string{
		`incidents/IL-9101-unknown-term.md:8: unknown Component "gpu-drivr" in components (did you mean "gpu-driver"?)`,
		`incidents/IL-9107-unclosed-list.md:7: malformed front matter: line 7: did not find expected ',' or ']'`,
	}
	if diff := cmp.Diff(want, pathProblems(c, "incidents/")); diff != "" {
		t.Errorf("Content.Problems (-want +got):\n%s", diff)
	}
	stored, err := c.Store.Problems(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(c.Problems, stored); diff != "" {
		t.Errorf("problems recorded in the store differ (-content +store):\n%s", diff)
	}
}

func TestNothingValidIsAnError(t *testing.T) {
	lib := libDir(t)
	for _, dir := range []string{"incidents", "playbooks"} {
		os.RemoveAll(filepath.Join(lib, dir))
		os.Mkdir(filepath.Join(lib, dir), 0o755)
	}
	addBroken(t, lib, "incidents/IL-9109-no-front-matter.md")
	l := newLoader(t, lib, t.TempDir())
	_, err := l.Load(context.Background())
	if !errors.Is(err, library.ErrNothingValid) {
		t.Fatalf("err = %v, want ErrNothingValid", err)
	}
	if l.Current() != nil {
		t.Error("something was published although nothing is valid")
	}
}

// A deleted or damaged database is derived data: the next start rebuilds it
// from the Markdown instead of failing.
func TestDamagedDatabaseIsRebuilt(t *testing.T) {
	tests := []struct {
		name   string
		damage func(path string) error
	}{
		{"deleted", os.Remove},
		{"truncated", func(p string) error {
			fi, err := os.Stat(p)
			if err != nil {
				return err
			}
			return os.Truncate(p, fi.Size()/3)
		}},
		// Pages past the schema and meta tables: opening the file works,
		// its integrity check (run beside the load) does not.
		{"a damaged page", func(p string) error {
			f, err := os.OpenFile(p, os.O_RDWR, 0)
			if err != nil {
				return err
			}
			defer f.Close()
			fi, err := f.Stat()
			if err != nil {
				return err
			}
			junk := make([]byte, 8192)
			rand.Read(junk)
			_, err = f.WriteAt(junk, fi.Size()-3*4096)
			return err
		}},
		{"garbage", func(p string) error {
			fi, err := os.Stat(p)
			if err != nil {
				return err
			}
			junk := make([]byte, fi.Size())
			rand.Read(junk)
			return os.WriteFile(p, junk, 0o644)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			lib, data := libDir(t), t.TempDir()
			l1 := newLoader(t, lib, data)
			c, err := l1.Load(ctx)
			if err != nil {
				t.Fatal(err)
			}
			dbFile := c.Store.Path()
			l1.Close()
			if err := tt.damage(dbFile); err != nil {
				t.Fatal(err)
			}

			l2 := newLoader(t, lib, data)
			c2, err := l2.Load(ctx)
			if err != nil {
				t.Fatalf("start with a %s database: %v", tt.name, err)
			}
			if c2.Warm {
				t.Error("a damaged database was reused")
			}
			if c2.Incidents != 4 || total(t, c2) != 4 {
				t.Errorf("rebuilt library has %d incidents (store %d), want 4", c2.Incidents, total(t, c2))
			}
			l2.Close()

			// The rebuilt file is good enough for the next warm start.
			c3, err := newLoader(t, lib, data).Load(ctx)
			if err != nil || !c3.Warm {
				t.Errorf("start after the rebuild: warm %v, err %v", c3 != nil && c3.Warm, err)
			}
		})
	}
}

// TestAfterCheck checks what a load makes of its reopened store's
// integrity check: only a check that failed on its own marks the file
// damaged (and so removed and rebuilt); one cut short by a cancelled load
// leaves the file alone.
func TestAfterCheck(t *testing.T) {
	live := context.Background()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	failed := errors.New("quick_check: page 7 is never used")
	stepErr := errors.New("a step failed")
	tests := []struct {
		name             string
		ctx              context.Context
		checkErr, err    error
		damaged, wantErr bool
	}{
		{"good file", live, nil, nil, false, false},
		{"good file, a step failed", live, nil, stepErr, false, true},
		{"damaged file", live, failed, nil, true, true},
		{"damaged file that failed a step too", live, failed, stepErr, true, true},
		{"check cut short by shutdown", cancelled, context.Canceled, nil, false, true},
		{"check cut short, a step failed", cancelled, context.Canceled, stepErr, false, true},
	}
	for _, tt := range tests {
		got := afterCheck(tt.ctx, tt.checkErr, tt.err)
		if errors.Is(got, errDamagedStore) != tt.damaged || (got != nil) != tt.wantErr {
			t.Errorf("%s: %v; want damaged %v, an error %v", tt.name, got, tt.damaged, tt.wantErr)
		}
	}
}
