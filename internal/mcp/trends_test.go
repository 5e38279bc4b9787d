package mcp_test

import (
	"context"
	"encoding/json"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"casebook/internal/library"
	"casebook/internal/mcp"
	"casebook/internal/store"
	"casebook/internal/trends"
)

// TestTrendsTool: library_trends returns the numbers the trends service
// computes for the same filters (the page and /api/trends render the same
// report), so "what causes GPU incidents most often since 2024?" gets the
// page's answer.
func TestTrendsTool(t *testing.T) {
	l := loader(t)
	st, ct := sdk.NewInMemoryTransports()
	if _, err := mcp.NewServer(l, mcp.Options{Log: quiet}).Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, ct)
	c := l.Current()
	tests := []struct {
		name, args string
		filter     store.Filter
		chart      string
	}{
		{"whole library", `{}`, store.Filter{}, ""},
		{"gpu since 2024, causes", `{"filters":{"domain":["gpu"],"year":[2024,2025,2026]},"chart":"causes_by_year"}`,
			store.Filter{Terms: map[library.Facet][]string{library.FacetDomain: {"gpu"}}, Years: []int{2024, 2025, 2026}}, "causes_by_year"},
		{"kubelet factors", `{"filters":{"component":["kubelet"]},"chart":"factors"}`,
			store.Filter{Terms: map[library.Facet][]string{library.FacetComponent: {"kubelet"}}}, "factors"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got mcp.TrendsOutput
			decode(t, call(t, cs, "library_trends", tt.args), &got)
			rep, err := trends.Compute(context.Background(), c.Store, c.Taxonomy, tt.filter)
			if err != nil {
				t.Fatal(err)
			}
			if got.Incidents != rep.Incidents || got.Incidents == 0 {
				t.Errorf("incidents %d, want %d (> 0)", got.Incidents, rep.Incidents)
			}
			for _, id := range trends.Charts {
				want, _ := rep.Chart(id)
				var have any
				switch id {
				case "causes_by_year":
					have = got.CausesByYear
				case "domains_by_year":
					have = got.DomainsByYear
				case "components":
					have = got.Components
				case "factors":
					have = got.Factors
				}
				h, _ := json.Marshal(have)
				if tt.chart != "" && id != tt.chart {
					if string(h) != "null" {
						t.Errorf("%s returned though only %s was asked", id, tt.chart)
					}
					continue
				}
				w, _ := json.Marshal(want)
				if string(h) != string(w) {
					t.Errorf("%s differs from the service:\n got %s\nwant %s", id, h, w)
				}
			}
		})
	}
}
