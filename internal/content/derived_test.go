package content

import (
	"context"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"casebook/internal/library"
	"casebook/internal/store"
)

// The derived data a page needs is built once per load and carried by the
// Content: the whole-library graph, the organisation names, the checks and
// the search index. A Content read after a reload is a whole other library.
func TestDerivedDataIsBuiltWithTheContent(t *testing.T) {
	ctx := context.Background()
	lib := libDir(t)
	l := newLoader(t, lib, t.TempDir())
	c, err := l.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	links, err := c.Store.Links(ctx, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(drawGraph(c.Taxonomy, links, ""), c.Graph); diff != "" {
		t.Errorf("the precomputed graph differs from one drawn from the store (-drawn +precomputed):\n%s", diff)
	}
	whole, err := c.GraphOf(ctx, store.Filter{}, "")
	if err != nil || !cmp.Equal(whole, c.Graph) {
		t.Errorf("GraphOf(no filter) is not the precomputed graph (err %v)", err)
	}
	narrow, err := c.GraphOf(ctx, store.Filter{Terms: map[library.Facet][]string{library.FacetComponent: {"kube-scheduler"}}}, "")
	if err != nil || len(narrow.Nodes) == 0 || len(narrow.Nodes) >= len(c.Graph.Nodes) {
		t.Errorf("filtered graph has %d nodes, whole %d (err %v)", len(narrow.Nodes), len(c.Graph.Nodes), err)
	}
	if len(c.Orgs) == 0 {
		t.Fatal("no organisations")
	}
	for slug, name := range c.Orgs {
		if library.Slug(name) != slug {
			t.Errorf("Orgs[%q] = %q, whose slug is %q", slug, name, library.Slug(name))
		}
	}
	if c.Search == nil || c.Search.Info().Docs != c.Incidents+c.Playbooks {
		t.Errorf("search index missing or incomplete: %+v", c.Search)
	}
	if c.Checks == nil || c.Triage == nil {
		t.Error("checks or triage catalogue missing")
	}
}

// The whole-library graph is drawn from the parsed library's links: they
// must be the read model's unfiltered links, edge for edge and in order,
// for the shipped library.
func TestLibraryLinksAreTheStoreLinks(t *testing.T) {
	lib, problems, err := library.Load(os.DirFS("../../library"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Build(context.Background(), t.TempDir(), lib, problems)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	want, err := st.Links(context.Background(), store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	got := libraryLinks(lib)
	if len(want) < 1000 {
		t.Fatalf("the shipped library has only %d links", len(want))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("links (-store +library):\n%s", diff)
	}
}
