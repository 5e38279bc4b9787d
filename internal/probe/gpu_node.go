package probe

// The GPU nodes themselves: whether they advertise the resource the pod
// asks for, under the name it asks for, and whether they are healthy.

import (
	"fmt"
	"strings"

	"casebook/internal/snapshot"
	"casebook/internal/triage"
)

// gpuAllocatable: whether the nodes meant for the pod advertise the
// extended resource it is short of.
func gpuAllocatable(s *snapshot.Snapshot, _ *triage.Catalog) Result {
	if s.Pod == nil {
		return unknown(s, "the pod was not read", "get pod")
	}
	var short []string
	if msg, _, ok := schedulingMessage(s); ok {
		short = insufficientResources(msg)
	}
	if len(short) == 0 {
		short = gpuRequests(s.Pod)
	}
	var ext []string
	for _, r := range short {
		if snapshot.IsExtended(r) {
			ext = append(ext, r)
		}
	}
	if len(short) > 0 && len(ext) == 0 {
		return known("not-gpu", "the pod is short of "+strings.Join(short, ", "), capacityEvidence(s, short)...)
	}
	if len(ext) == 0 {
		return Result{Note: "the scheduler names no resource the pod is short of"}
	}
	if len(s.Nodes) == 0 {
		return unknown(s, "the nodes were not read", "list nodes")
	}
	r := ext[0]
	advertised := false
	var missing, renamed []Evidence
	for _, n := range targetNodes(s) {
		if n.Allocatable[r].Value() > 0 {
			advertised = true
		} else if other := sameVendor(n.GPUResources(), r); len(other) > 0 && snapshot.IsGPUResource(r) {
			renamed = append(renamed, otherNameEvidence(n, r, other))
		} else if vendorNode(n, r) {
			missing = append(missing, Evidence{Object: nodeRef(n.Name), Field: "status.allocatable[" + r + "]",
				Value: allocText(n, r), Message: gpuLabelText(n)})
		}
	}
	switch {
	case advertised:
		return known("yes", r+" is advertised; pods already hold it", capacityEvidence(s, []string{r})...)
	case len(renamed) > 0:
		return known("other-name", "the GPU nodes advertise their GPUs under another resource name than "+r+" (MIG strategy)", renamed...)
	case len(missing) > 0:
		return known("no", "GPU nodes advertise no "+r, missing...)
	}
	// No node the pod may use has GPUs at all. When every node of the
	// cluster was read, that is the answer; otherwise the person knows.
	if _, failed := s.ReadFailed("list nodes"); failed || nobodyAdvertises(s, r) == 0 {
		return Result{Note: "no node the pod is meant for has GPUs by label or allocatable"}
	}
	return known("no", "no node of the cluster advertises "+r,
		Evidence{Object: "nodes", Field: "status.allocatable[" + r + "]", Value: fmt.Sprintf("absent on all %d nodes read", len(s.Nodes)),
			Message: "no node has GPU labels either: the cluster has no node for this pod's GPUs"})
}

// nobodyAdvertises returns how many nodes were read when none of them
// advertises r or carries GPU labels, and 0 when some does.
func nobodyAdvertises(s *snapshot.Snapshot, r string) int {
	for i := range s.Nodes {
		n := &s.Nodes[i]
		if n.Allocatable[r].Value() > 0 || vendorNode(n, r) {
			return 0
		}
	}
	return len(s.Nodes)
}

// vendor is the domain of an extended resource name: nvidia.com for
// nvidia.com/mig-1g.10gb.
func vendor(r string) string {
	d, _, _ := strings.Cut(r, "/")
	return d
}

// sameVendor keeps the resource names of r's vendor: an AMD request is
// not a MIG mismatch on an NVIDIA node.
func sameVendor(names []string, r string) []string {
	var out []string
	for _, n := range names {
		if vendor(n) == vendor(r) {
			out = append(out, n)
		}
	}
	return out
}

// vendorNode reports whether a node has GPUs of r's vendor, by its
// allocatable or, for NVIDIA, by its GPU labels.
func vendorNode(n *snapshot.Node, r string) bool {
	if len(sameVendor(n.GPUResources(), r)) > 0 {
		return true
	}
	return vendor(r) == "nvidia.com" && n.HasGPULabels()
}

// otherNameEvidence shows what a GPU node advertises instead of the
// requested resource, with its MIG strategy label when it has one.
func otherNameEvidence(n *snapshot.Node, want string, other []string) Evidence {
	e := Evidence{Object: nodeRef(n.Name), Field: "status.allocatable", Value: strings.Join(other, ", "),
		Message: "the pod requests " + want}
	if st := n.Labels[snapshot.LabelMIGStrat]; st != "" {
		e.Message += "; label " + snapshot.LabelMIGStrat + "=" + st
	}
	if cfg := n.Labels["nvidia.com/mig.config"]; cfg != "" {
		e.Message += ", nvidia.com/mig.config=" + cfg
	}
	return e
}

// gpuNodes are the GPU nodes that matter: those the pod is meant for, or
// every GPU node when there is no pod.
func gpuNodes(s *snapshot.Snapshot) []*snapshot.Node {
	var out []*snapshot.Node
	for _, n := range targetNodes(s) {
		if n.IsGPUNode() {
			out = append(out, n)
		}
	}
	return out
}

// gpuResourceName: whether the GPU nodes advertise the exact resource name
// the pod requests (MIG strategies rename it), and ClusterPolicy is ready.
func gpuResourceName(s *snapshot.Snapshot, _ *triage.Catalog) Result {
	if cp := s.ClusterPolicy; cp != nil && cp.State != "" && cp.State != "ready" {
		return known("mismatch", "the GPU Operator's snapshot.ClusterPolicy is not ready",
			Evidence{Object: "clusterpolicy/" + cp.Name, Field: "status.state", Value: cp.State})
	}
	want := gpuRequests(s.Pod)
	if len(want) == 0 {
		return unknown(s, "the pod requests no GPU resource to compare", "get pod")
	}
	nodes := gpuNodes(s)
	if len(nodes) == 0 {
		return unknown(s, "no GPU node to compare with", "list nodes")
	}
	var other []Evidence
	for _, n := range nodes {
		have := n.GPUResources()
		for _, w := range want {
			if n.Allocatable[w].Value() > 0 {
				ev := Evidence{Object: nodeRef(n.Name), Field: "status.allocatable[" + w + "]", Value: n.Allocatable[w].String()}
				return known("match", "a GPU node advertises "+w, ev)
			}
		}
		if len(have) > 0 {
			e := Evidence{Object: nodeRef(n.Name), Field: "status.allocatable", Value: strings.Join(have, ", "),
				Message: "the pod requests " + strings.Join(want, ", ")}
			if st := n.Labels[snapshot.LabelMIGStrat]; st != "" {
				e.Message += "; label " + snapshot.LabelMIGStrat + "=" + st
			}
			other = append(other, e)
		}
	}
	if len(other) > 0 {
		return known("mismatch", "the GPU nodes advertise other GPU resource names than the pod requests", other...)
	}
	return Result{Note: "the GPU nodes advertise no GPU resource at all; the layers below are at fault"}
}

// pressureConditions are node conditions that make a node unfit when True.
var pressureConditions = []string{"MemoryPressure", "DiskPressure", "PIDPressure", "NetworkUnavailable"}

// gpuNodeHealth reads the kubelet's and vendors' node conditions. XID
// errors live in kernel logs a snapshot does not carry, so "healthy" means
// healthy by conditions.
func gpuNodeHealth(s *snapshot.Snapshot, _ *triage.Catalog) Result {
	nodes := gpuNodes(s)
	if len(nodes) == 0 {
		return unknown(s, "no GPU node to check", "list nodes")
	}
	var bad, good []Evidence
	for _, n := range nodes {
		bad = append(bad, nodeProblems(n)...)
		if ready, ok := n.Ready(); ok && ready {
			good = append(good, Evidence{Object: nodeRef(n.Name), Field: "status.conditions[Ready]", Value: "True"})
		}
	}
	if len(bad) > 0 {
		return known("unhealthy", "a GPU node reports a bad condition", bad...)
	}
	if len(good) == 0 {
		return Result{Note: "the GPU nodes report no Ready condition"}
	}
	return known("healthy", "conditions are as expected (XID errors need the node's kernel log)", good...)
}

// nodeProblems lists the node's conditions that are not as expected.
func nodeProblems(n *snapshot.Node) []Evidence {
	var ev []Evidence
	for _, c := range n.Conditions {
		bad := false
		switch {
		case c.Type == "Ready":
			bad = c.Status != "True"
		case c.Type == "AcceleratedHardwareReady":
			bad = c.Status == "False"
		default:
			for _, p := range pressureConditions {
				if c.Type == p && c.Status == "True" {
					bad = true
				}
			}
		}
		if bad {
			ev = append(ev, Evidence{Object: nodeRef(n.Name), Field: "status.conditions[" + c.Type + "]", Value: c.Status, Message: strings.TrimSpace(c.Reason + " " + c.Message)})
		}
	}
	return ev
}
