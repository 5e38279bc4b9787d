package graph

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBuild(t *testing.T) {
	links := []Link{
		{"IL-1", "cause", "bug"}, {"IL-1", "component", "gpu-driver"},
		{"IL-2", "cause", "bug"}, {"IL-2", "component", "gpu-driver"}, {"IL-2", "symptom", "hang"},
		{"IL-3", "component", "dns"},
		{"IL-3", "component", "dns"}, // duplicate link counts once
	}
	tests := []struct {
		name      string
		opt       Options
		wantNodes map[string]int // id -> count
		wantCo    map[[2]string]int
	}{
		{
			name: "whole set",
			wantNodes: map[string]int{"case:IL-1": 2, "case:IL-2": 3, "case:IL-3": 1,
				"cause:bug": 2, "component:gpu-driver": 2, "symptom:hang": 1, "component:dns": 1},
			wantCo: map[[2]string]int{
				{"cause:bug", "component:gpu-driver"}:    2,
				{"cause:bug", "symptom:hang"}:            1,
				{"component:gpu-driver", "symptom:hang"}: 1,
			},
		},
		{
			name:      "focus keeps the neighbourhood",
			opt:       Options{Focus: "symptom:hang"},
			wantNodes: map[string]int{"case:IL-2": 3, "cause:bug": 1, "component:gpu-driver": 1, "symptom:hang": 1},
			wantCo: map[[2]string]int{
				{"cause:bug", "component:gpu-driver"}:    1,
				{"cause:bug", "symptom:hang"}:            1,
				{"component:gpu-driver", "symptom:hang"}: 1,
			},
		},
		{
			name:      "focus on an absent term is empty",
			opt:       Options{Focus: "cause:nothing"},
			wantNodes: map[string]int{},
			wantCo:    map[[2]string]int{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := Build(links, tt.opt)
			nodes := map[string]int{}
			for _, n := range g.Nodes {
				nodes[n.ID] = n.Count
			}
			if d := cmp.Diff(tt.wantNodes, nodes); d != "" {
				t.Errorf("nodes (-want +got):\n%s", d)
			}
			co := map[[2]string]int{}
			caseEdges := 0
			for _, e := range g.Edges {
				if e.Kind == "cooccurrence" {
					co[[2]string{e.Source, e.Target}] = e.Weight
				} else {
					caseEdges++
				}
			}
			if d := cmp.Diff(tt.wantCo, co); d != "" {
				t.Errorf("co-occurrence (-want +got):\n%s", d)
			}
			want := 0
			for id, c := range tt.wantNodes {
				if len(id) > 5 && id[:5] == "case:" {
					want += c
				}
			}
			if caseEdges != want {
				t.Errorf("case edges = %d, want %d", caseEdges, want)
			}
		})
	}
}

func TestTopTerms(t *testing.T) {
	g := Build([]Link{{"a", "component", "x"}, {"b", "component", "x"}, {"b", "component", "y"}}, Options{})
	top := g.TopTerms("component", 1)
	if len(top) != 1 || top[0].ID != "component:x" || top[0].Count != 2 {
		t.Fatalf("TopTerms = %+v, want component:x with 2", top)
	}
}
