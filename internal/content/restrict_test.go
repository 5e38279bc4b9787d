package content

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"casebook/internal/library"
	"casebook/internal/search"
)

// copyTree copies a fixture folder into a temp folder a test may edit.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	copyDir(t, src, dst)
	return dst
}

// restrictedLoader loads the good fixture with the acme layer on top,
// acme restricted.
func restrictedLoader(t *testing.T, pub, team, data string) *Loader {
	t.Helper()
	stack := library.NewStack(library.Layer{FS: os.DirFS(pub), Root: "good"}, library.Layer{FS: os.DirFS(team), Root: "acme"})
	l := NewStackLoader(stack, data, slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(l.Close)
	if err := l.Restrict([]string{"acme"}); err != nil {
		t.Fatal(err)
	}
	return l
}

// teamHits counts the hits of the team's layer for q.
func teamHits(t *testing.T, c *Content, q string) int {
	t.Helper()
	res, err := c.Search.Search(context.Background(), search.Request{Query: q})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, h := range res.Hits {
		if strings.HasPrefix(h.ID, "ACME-") || strings.HasPrefix(h.ID, "acme-") || h.Title == "Pod stuck in Pending (ACME)" {
			n++
		}
	}
	return n
}

// Every read model of the view without the restricted layer — store,
// search index, triage catalogue, graph, organisations, layers — is built
// without it, while the full view has it.
func TestRestrictedLayerIsInTheFullViewOnly(t *testing.T) {
	ctx := context.Background()
	l := restrictedLoader(t, libDir(t), copyTree(t, filepath.Join(fixtures, "layers", "acme")), t.TempDir())
	c, err := l.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	full, pub := c.For(true), c.For(false)
	if full != c || pub == c || l.CurrentFor(false) != pub {
		t.Fatal("For does not choose between the two views")
	}
	for _, tc := range []struct {
		what      string
		full, pub any
	}{
		{"incidents", full.Incidents, 6},
		{"incidents of the view", pub.Incidents, 4},
		{"store total", total(t, full), 6},
		{"store total of the view", total(t, pub), 4},
		{"team hits for gateway", teamHits(t, full, "gateway drained pool") > 0, true},
		{"team hits for it in the view", teamHits(t, pub, "gateway drained pool"), 0},
		{"team hits for pending in the view", teamHits(t, pub, "pending"), 0},
		{"layers of the view", strings.Join(pub.LayerNames(), ","), library.PublicLayer},
		{"org ACME in the view", pub.Orgs["acme-corp"], ""},
	} {
		if tc.full != tc.pub {
			t.Errorf("%s = %v, want %v", tc.what, tc.full, tc.pub)
		}
	}
	if _, ok := full.Triage.Tree("acme-gateway"); !ok {
		t.Error("the team's triage tree is missing from the full view")
	}
	if _, ok := pub.Triage.Tree("acme-gateway"); ok {
		t.Error("the team's triage tree is in the view without it")
	}
	for _, n := range pub.Graph.Nodes {
		if strings.HasPrefix(n.ID, "case:ACME-") || n.ID == "cause:gateway-misroute" {
			t.Errorf("graph node %s in the view without the team's layer", n.ID)
		}
	}
}

// Restriction turned off between two runs: the view's read models left in
// the data folder are removed once the library without them is loaded.
func TestViewFolderRemovedWhenNothingIsRestricted(t *testing.T) {
	ctx := context.Background()
	pub, team, data := libDir(t), copyTree(t, filepath.Join(fixtures, "layers", "acme")), t.TempDir()
	l := restrictedLoader(t, pub, team, data)
	if _, err := l.Load(ctx); err != nil {
		t.Fatal(err)
	}
	l.Close()
	view := filepath.Join(data, viewDir)
	if entries, err := os.ReadDir(view); err != nil || len(entries) == 0 {
		t.Fatalf("the restricted run left no view folder to remove (%v)", err)
	}
	stack := library.NewStack(library.Layer{FS: os.DirFS(pub), Root: "good"}, library.Layer{FS: os.DirFS(team), Root: "acme"})
	l2 := NewStackLoader(stack, data, slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(l2.Close)
	if _, err := l2.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(view); !os.IsNotExist(err) {
		t.Errorf("%s is still there after a load with nothing restricted (%v)", view, err)
	}
}

// A change to the restricted layer rebuilds the full view and reuses the
// other, which stays open after the previous full view retires; a change
// to the public layer rebuilds both, together.
func TestReloadKeepsBothViewsConsistent(t *testing.T) {
	ctx := context.Background()
	pub, team := libDir(t), copyTree(t, filepath.Join(fixtures, "layers", "acme"))
	l := restrictedLoader(t, pub, team, t.TempDir())
	l.retire = 10 * time.Millisecond
	c1, err := l.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	src, _ := os.ReadFile(filepath.Join(team, "incidents/ACME-0002-driver-upgrade-stalled.md"))
	writeFile(t, filepath.Join(team, "incidents/ACME-0003-copy.md"), strings.Replace(string(src), "ACME-0002", "ACME-0003", 1))
	c2, err := l.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c2 == c1 || c2.Incidents != 7 {
		t.Fatalf("after the team's change: %d incidents, want 7", c2.Incidents)
	}
	if c2.For(false) != c1.For(false) {
		t.Error("a change to the restricted layer rebuilt the view without it")
	}
	time.Sleep(100 * time.Millisecond) // c1 retires
	if n := total(t, c2.For(false)); n != 4 {
		t.Errorf("the shared view after its first owner retired: %d incidents, want 4", n)
	}

	addIncident(t, pub)
	c3, err := l.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c3.Incidents != 8 || c3.For(false).Incidents != 5 || total(t, c3.For(false)) != 5 {
		t.Errorf("after the public change: %d and %d incidents, want 8 and 5", c3.Incidents, c3.For(false).Incidents)
	}
}

// The layers to leave out must exist: a misspelt name would publish the
// team's layer to everyone.
func TestRestrictUnknownLayer(t *testing.T) {
	stack := library.NewStack(library.Layer{FS: os.DirFS(libDir(t)), Root: "good"},
		library.Layer{FS: os.DirFS(copyTree(t, filepath.Join(fixtures, "layers", "acme"))), Root: "acme"})
	l := NewStackLoader(stack, t.TempDir(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	err := l.Restrict([]string{"acne"})
	if err == nil || !strings.Contains(err.Error(), `"acne"`) || !strings.Contains(err.Error(), "public, acme") {
		t.Errorf("Restrict(acne) = %v, want an error naming it and the layers", err)
	}
}

// The restricted layers are chosen by folder when the loader starts: a
// restricted layer renamed in its layer.yaml stays out of the view.
func TestRestrictedLayerRenamedStaysRestricted(t *testing.T) {
	ctx := context.Background()
	team := copyTree(t, filepath.Join(fixtures, "layers", "acme"))
	l := restrictedLoader(t, libDir(t), team, t.TempDir())
	if _, err := l.Load(ctx); err != nil {
		t.Fatal(err)
	}
	src, _ := os.ReadFile(filepath.Join(team, "layer.yaml"))
	writeFile(t, filepath.Join(team, "layer.yaml"), strings.Replace(string(src), "name: acme", "name: acme-renamed", 1))
	c, err := l.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.LayerNames(); !slices.Contains(got, "acme-renamed") {
		t.Fatalf("the whole library's layers are %v, want the renamed layer", got)
	}
	if pub := c.For(false); pub.Incidents != 4 || slices.Contains(pub.LayerNames(), "acme-renamed") {
		t.Errorf("the view holds %d incidents and layers %v after the rename, want 4 and public only", pub.Incidents, pub.LayerNames())
	}
}

// A failed reload lists its problems to a reader not on the allow-list
// without those of the restricted layer. (A reload fails only on the
// bottom layer, before the team's files are read, so the failure is set
// here directly.)
func TestFailureForHidesRestrictedProblems(t *testing.T) {
	l := restrictedLoader(t, libDir(t), copyTree(t, filepath.Join(fixtures, "layers", "acme")), t.TempDir())
	if _, err := l.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	l.failure.Store(&LoadFailure{Err: "content: load library: broken", Problems: []library.Problem{
		{Path: "good/taxonomy.yaml", Layer: library.PublicLayer, Msg: "bad"},
		{Path: "acme/incidents/ACME-0009-secret.md", Layer: "acme", Msg: "bad"},
	}})
	if got := len(l.FailureFor(true).Problems); got != 2 {
		t.Errorf("the allowed reader sees %d problems, want 2", got)
	}
	if got := l.FailureFor(false).Problems; len(got) != 1 || got[0].Layer != library.PublicLayer {
		t.Errorf("a reader not on the allow-list sees %v, want the public problem only", got)
	}
}
