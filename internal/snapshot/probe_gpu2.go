package snapshot

import (
	"fmt"
	"strings"

	"casebook/internal/triage"
)

// pluginLogFailures are device plugin log lines that mean it advertises
// nothing although its pod is Ready (k8s-device-plugin's main and NVML
// health code).
var pluginLogFailures = []string{
	"Failed to initialize NVML",
	"No devices found",
	"Incompatible strategy detected",
	"Incompatible platform detected",
	"could not load NVML library",
	"Could not register device plugin",
}

// devicePlugin: the plugin pod on each GPU node, and whether the node
// advertises any GPU resource (which only a registered plugin makes).
func devicePlugin(s *Snapshot, _ *triage.Catalog) Result {
	r := s.stackLayer(ComponentDevicePlugin, "the NVIDIA device plugin")
	if !r.Known || r.Value != "ok" {
		return r
	}
	for _, n := range s.gpuNodes() {
		if len(n.GPUResources()) > 0 {
			continue
		}
		dss := s.daemonSets(ComponentDevicePlugin)
		p, ds := podOnNode(dss, n.Name)
		if p != nil {
			for _, l := range s.Logs {
				for _, f := range pluginLogFailures {
					if l.Pod == p.Name && strings.Contains(l.Tail, f) {
						return known("failing", "the plugin runs but its log shows it found no usable GPUs",
							podEvidence(ds, p), Evidence{Object: ObjectRef{Kind: "Pod", Namespace: ds.Namespace, Name: p.Name}.String(), Field: "log", Message: lineWith(l.Tail, f)})
					}
				}
			}
		}
		return s.unknown(fmt.Sprintf("the plugin pod is Ready but node/%s advertises no GPU resource; only its log tells whether it registered devices (run with --read-logs)", n.Name), "get pods/log")
	}
	return r
}

func lineWith(text, sub string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, sub) {
			return strings.TrimSpace(l)
		}
	}
	return sub
}

// gpuResourceName: whether the GPU nodes advertise the exact resource name
// the pod requests (MIG strategies rename it), and ClusterPolicy is ready.
func gpuResourceName(s *Snapshot, _ *triage.Catalog) Result {
	if cp := s.ClusterPolicy; cp != nil && cp.State != "" && cp.State != "ready" {
		return known("mismatch", "the GPU Operator's ClusterPolicy is not ready",
			Evidence{Object: "clusterpolicy/" + cp.Name, Field: "status.state", Value: cp.State})
	}
	want := gpuRequests(s.Pod)
	if len(want) == 0 {
		return s.unknown("the pod requests no GPU resource to compare", "get pod")
	}
	nodes := s.gpuNodes()
	if len(nodes) == 0 {
		return s.unknown("no GPU node to compare with", "list nodes")
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
			if st := n.Labels[LabelMIGStrat]; st != "" {
				e.Message += "; label " + LabelMIGStrat + "=" + st
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
func gpuNodeHealth(s *Snapshot, _ *triage.Catalog) Result {
	nodes := s.gpuNodes()
	if len(nodes) == 0 {
		return s.unknown("no GPU node to check", "list nodes")
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
func nodeProblems(n *Node) []Evidence {
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
