package probe

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"casebook/internal/triage"
)

// TestSpecifics reads the particulars of the Pending pods of the fixture
// snapshots (read from the API-server harness): the taint to tolerate with
// its nodes, the product label nodes carry instead of the one selected,
// the GPUs short on each node.
func TestSpecifics(t *testing.T) {
	tests := []struct {
		file string
		want triage.Specifics
	}{
		{"taint.json", triage.Specifics{Taints: []triage.TaintSpec{{Key: "nvidia.com/gpu", Value: "present", Effect: "NoSchedule", Nodes: []string{"gpu-1", "gpu-2"}, NodeCount: 2}}}},
		{"selector.json", triage.Specifics{Selectors: []triage.SelectorSpec{{Key: "nvidia.com/gpu.product", Wanted: "NVIDIA-H100-SXM5-80GB", NodeCount: 2,
			Have: []triage.LabelValue{{Value: "NVIDIA-A100-SXM4-40GB", Nodes: []string{"gpu-2"}}, {Value: "NVIDIA-H100-80GB-HBM3", Nodes: []string{"gpu-1"}}}}}}},
		{"four-gpu.json", triage.Specifics{Shortfalls: []triage.Shortfall{{Resource: "nvidia.com/gpu", Requested: "4", NodeCount: 2, Total: "4",
			Nodes: []triage.NodeShort{{Node: "gpu-1", Free: "2", Short: "2"}, {Node: "gpu-2", Free: "2", Short: "2"}}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got := Specifics(loadFile(t, tt.file))
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("specifics (-want +got):\n%s", d)
			}
		})
	}
	if sp := Specifics(loadFile(t, "oom.json")); !sp.Empty() {
		t.Errorf("a running pod has specifics %+v", sp)
	}
}
