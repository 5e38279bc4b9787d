package store

import (
	"context"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"casebook/internal/library"
)

// TestLayers: the store keeps each entry's layer and provenance, filters
// by layer and counts the Source facet.
func TestLayers(t *testing.T) {
	ctx := context.Background()
	stack := library.NewStack(library.Layer{FS: os.DirFS(goodLibrary), Root: "good"}, library.Layer{FS: os.DirFS("../library/testdata/layers/acme"), Root: "acme"})
	lib, problems, err := stack.Load()
	if err != nil || len(problems) > 0 {
		t.Fatal(err, problems)
	}
	s, err := Build(ctx, t.TempDir(), lib, []library.Problem{{Path: "acme/incidents/x.md", Line: 3, Msg: "TODO: fill in", Layer: "acme", Todo: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	items, total, err := s.ListIncidents(ctx, Filter{Layers: []string{"acme"}}, SortNewest, 1, 10)
	if err != nil || total != 2 || items[0].ID != "ACME-0002" || items[0].Layer != "acme" {
		t.Errorf("layer filter: %d items %+v, %v", total, items, err)
	}
	counts, err := s.FacetCounts(ctx, Filter{Terms: map[library.Facet][]string{library.FacetSymptom: {"pod-pending"}}}, lib.Taxonomy)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]FacetCount{{Term: "public", Label: "public", Count: 1}, {Term: "acme", Label: "acme", Count: 1}}, counts["layer"]); diff != "" {
		t.Errorf("Source facet among pod-pending incidents, public first (-want +got):\n%s", diff)
	}

	in, err := s.Incident(ctx, "ACME-0001")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := lib.Incident("ACME-0001")
	if diff := cmp.Diff(want.Provenance, in.Provenance); diff != "" {
		t.Errorf("provenance after the round trip (-loaded +stored):\n%s", diff)
	}
	pb, err := s.Playbook(ctx, "pod-pending")
	if err != nil || pb.Layer != "acme" || pb.Overrides == nil || pb.Overrides.Layer != "public" || pb.Overrides.Path != "playbooks/pod-pending.md" {
		t.Errorf("override after the round trip: %+v, %v", pb, err)
	}
	list, _ := s.Playbooks(ctx)
	for _, p := range list {
		if p.ID == "pod-pending" && (p.Layer != "acme" || p.Overrides != "public") {
			t.Errorf("playbook list row: %+v", p)
		}
	}
	ps, _ := s.Problems(ctx)
	if len(ps) != 1 || ps[0].Layer != "acme" || !ps[0].Todo {
		t.Errorf("problems keep layer and TODO: %+v", ps)
	}
}
