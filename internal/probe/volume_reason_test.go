package probe

import (
	"testing"

	"casebook/internal/snapshot"
)

// A volume pinned to a zone whose nodes are full is the volume's problem
// (a node must come up in that zone), in both wordings the scheduler has
// used; next to a taint or a cordon, those stay the reason.
func TestVolumeAffinityPinsTheNodes(t *testing.T) {
	for _, tt := range []struct {
		msg, want string
	}{
		{"0/2 nodes are available: 1 Insufficient memory, 1 node(s) didn't match PersistentVolume's node affinity. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.", "volume"},
		{"0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had volume node affinity conflict.", "volume"},
		{"0/3 nodes are available: 3 node(s) had volume node affinity conflict.", "volume"},
		{"0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, 2 node(s) had volume node affinity conflict.", "taint"},
		{"0/2 nodes are available: 2 Insufficient memory.", "insufficient"},
	} {
		got, _ := pendingReason(&snapshot.Snapshot{}, tt.msg, nil)
		if got != tt.want {
			t.Errorf("%.70q: %q, want %q", tt.msg, got, tt.want)
		}
	}
}
