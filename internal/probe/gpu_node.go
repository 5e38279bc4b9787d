package probe

// The GPU nodes themselves: whether they advertise the resource the pod
// asks for, under the name it asks for, and whether they are healthy.

import (
	"strings"

	"casebook/internal/i18n"
	"casebook/internal/snapshot"
	"casebook/internal/triage"
)

// gpuAllocatable: whether the nodes meant for the pod advertise the
// extended resource it is short of.
func gpuAllocatable(s *snapshot.Snapshot, _ *triage.Catalog) Result {
	if s.Pod == nil {
		return unknown(s, i18n.M("probe.pod_not_read"), "get pod")
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
		return known("not-gpu", i18n.M("probe.short_of", "resources", strings.Join(short, ", ")), capacityEvidence(s, short)...)
	}
	if len(ext) == 0 {
		return noted(i18n.M("probe.no_short_resource"))
	}
	if len(s.Nodes) == 0 {
		return unknown(s, i18n.M("probe.nodes_not_read"), "list nodes")
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
			missing = append(missing, gpuLabelEvidence(Evidence{Object: nodeRef(n.Name), Field: "status.allocatable[" + r + "]"}.withAlloc(n, r), n))
		}
	}
	switch {
	case advertised:
		return known("yes", i18n.M("probe.gpu_advertised", "resource", r), capacityEvidence(s, []string{r})...)
	case len(renamed) > 0:
		return known("other-name", i18n.M("probe.gpu_other_name", "resource", r), renamed...)
	case len(missing) > 0:
		return known("no", i18n.M("probe.gpu_not_advertised", "resource", r), missing...)
	}
	// No node the pod may use has GPUs at all. When every node of the
	// cluster was read, that is the answer; otherwise the person knows.
	if _, failed := s.ReadFailed("list nodes"); failed || nobodyAdvertises(s, r) == 0 {
		return noted(i18n.M("probe.no_gpu_target"))
	}
	// Nothing to debug on a node that does not exist: the evidence already
	// settles it as missing capacity.
	return known("nowhere", i18n.M("probe.gpu_nowhere", "resource", r),
		Evidence{Object: "nodes", Field: "status.allocatable[" + r + "]"}.valued(i18n.M("probe.ev.absent_all", "count", len(s.Nodes))).
			explained(i18n.M("probe.ev.no_gpu_labels_either")))
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
	e := Evidence{Object: nodeRef(n.Name), Field: "status.allocatable", Value: strings.Join(other, ", ")}
	return e.explained(podRequests(want, migLabels(n, true)))
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
		return known("mismatch", i18n.M("probe.clusterpolicy_not_ready"),
			Evidence{Object: "clusterpolicy/" + cp.Name, Field: "status.state", Value: cp.State})
	}
	want := gpuRequests(s.Pod)
	if len(want) == 0 {
		return unknown(s, i18n.M("probe.no_gpu_request"), "get pod")
	}
	nodes := gpuNodes(s)
	if len(nodes) == 0 {
		return unknown(s, i18n.M("probe.no_gpu_node_compare"), "list nodes")
	}
	var other []Evidence
	for _, n := range nodes {
		have := n.GPUResources()
		for _, w := range want {
			if n.Allocatable[w].Value() > 0 {
				ev := Evidence{Object: nodeRef(n.Name), Field: "status.allocatable[" + w + "]", Value: n.Allocatable[w].String()}
				return known("match", i18n.M("probe.gpu_node_advertises", "resource", w), ev)
			}
		}
		if len(have) > 0 {
			e := Evidence{Object: nodeRef(n.Name), Field: "status.allocatable", Value: strings.Join(have, ", ")}
			other = append(other, e.explained(podRequests(strings.Join(want, ", "), migLabels(n, false))))
		}
	}
	if len(other) > 0 {
		return known("mismatch", i18n.M("probe.gpu_names_differ"), other...)
	}
	return noted(i18n.M("probe.gpu_none_advertised"))
}

// pressureConditions are node conditions that make a node unfit when True.
var pressureConditions = []string{"MemoryPressure", "DiskPressure", "PIDPressure", "NetworkUnavailable"}

// gpuNodeHealth reads the kubelet's and vendors' node conditions. XID
// errors live in kernel logs a snapshot does not carry, so "healthy" means
// healthy by conditions.
func gpuNodeHealth(s *snapshot.Snapshot, _ *triage.Catalog) Result {
	nodes := gpuNodes(s)
	if len(nodes) == 0 {
		return unknown(s, i18n.M("probe.no_gpu_node"), "list nodes")
	}
	var bad, good []Evidence
	for _, n := range nodes {
		bad = append(bad, nodeProblems(n)...)
		if ready, ok := n.Ready(); ok && ready {
			good = append(good, Evidence{Object: nodeRef(n.Name), Field: "status.conditions[Ready]", Value: "True"})
		}
	}
	if len(bad) > 0 {
		return known("unhealthy", i18n.M("probe.gpu_node_unhealthy"), bad...)
	}
	if len(good) == 0 {
		return noted(i18n.M("probe.gpu_no_ready"))
	}
	return known("healthy", i18n.M("probe.gpu_node_healthy"), good...)
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

// podRequests explains a GPU node's resource names next to what the pod
// asks for, with the node's MIG labels when it has them.
func podRequests(want string, labels []string) i18n.Msg {
	if len(labels) == 0 {
		return i18n.M("probe.ev.pod_requests", "resources", want)
	}
	return i18n.M("probe.ev.pod_requests_labels", "resources", want, "labels", strings.Join(labels, ", "))
}

// migLabels are the node's MIG strategy label and, with config, its MIG
// layout label, as key=value.
func migLabels(n *snapshot.Node, config bool) []string {
	var out []string
	if st := n.Labels[snapshot.LabelMIGStrat]; st != "" {
		out = append(out, snapshot.LabelMIGStrat+"="+st)
	}
	if cfg := n.Labels["nvidia.com/mig.config"]; config && cfg != "" {
		out = append(out, "nvidia.com/mig.config="+cfg)
	}
	return out
}
