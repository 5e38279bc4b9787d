package mcp_test

import (
	"context"
	"os"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"casebook/internal/gaps"
	"casebook/internal/inventory"
	"casebook/internal/mcp"
)

// plantedCluster is the inventory read from the harness's planted cluster,
// standing in for the cluster a live gap service reads.
func plantedCluster(context.Context) (*inventory.Inventory, error) {
	file, err := os.Open("../gaps/testdata/planted.json")
	if err != nil {
		return nil, err
	}
	defer file.Close()
	return inventory.Decode(file)
}

func TestCheckClusterGaps(t *testing.T) {
	l := loader(t)
	connectTo := func(opts mcp.Options) *sdk.ClientSession {
		st, ct := sdk.NewInMemoryTransports()
		if _, err := mcp.NewServer(l, opts).Connect(context.Background(), st, nil); err != nil {
			t.Fatal(err)
		}
		return connect(t, ct)
	}
	// Without a cluster the tool is not offered at all.
	tools, err := connectTo(mcp.Options{Log: quiet}).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Name == "check_cluster_gaps" {
			t.Fatal("check_cluster_gaps offered without a cluster")
		}
	}

	cs := connectTo(mcp.Options{Log: quiet, Gaps: gaps.NewService(gaps.ServiceOptions{
		Checks: func() *gaps.Set { return l.Current().Checks }, Collect: plantedCluster})})
	var out mcp.GapsOutput
	decode(t, call(t, cs, "check_cluster_gaps", `{"min_severity":"high"}`), &out)
	if out.Found != 23 || out.Passed != 16 || len(out.Results) != 16 {
		t.Fatalf("found %d passed %d, %d results at high or worse", out.Found, out.Passed, len(out.Results))
	}
	first := out.Results[0]
	if first.ID != "webhook-fail-intercepts-kube-system" || first.Severity != "critical" || len(first.Objects) != 1 ||
		first.IncidentURLs[0] != "/incidents/IL-0004" || first.PageURL != "/gaps#webhook-fail-intercepts-kube-system" {
		t.Fatalf("first result %+v", first)
	}
	decode(t, call(t, cs, "check_cluster_gaps", `{"include_passed":true}`), &out)
	if len(out.Results) != 39 {
		t.Fatalf("%d results with passed ones", len(out.Results))
	}
	if res := call(t, cs, "check_cluster_gaps", `{"min_severity":"urgent"}`); !res.IsError || !strings.Contains(text(res), "severity") {
		t.Fatalf("bad severity: %s", text(res))
	}
}
