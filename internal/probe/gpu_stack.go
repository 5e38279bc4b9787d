package probe

// The GPU stack layers (driver, container toolkit, device plugin) judged by
// the pods of their DaemonSets on the GPU nodes the pod is meant for.

import (
	"fmt"
	"strings"

	"casebook/internal/i18n"
	"casebook/internal/snapshot"
	"casebook/internal/triage"
)

func gpuDriver(s *snapshot.Snapshot, _ *triage.Catalog) Result {
	return stackLayer(s, snapshot.ComponentDriver)
}

func gpuToolkit(s *snapshot.Snapshot, _ *triage.Catalog) Result {
	return stackLayer(s, snapshot.ComponentToolkit)
}

// layerNames name each layer in the notes.
var layerNames = map[string]i18n.Msg{
	snapshot.ComponentDriver:       i18n.M("probe.layer.driver"),
	snapshot.ComponentToolkit:      i18n.M("probe.layer.toolkit"),
	snapshot.ComponentDevicePlugin: i18n.M("probe.layer.device_plugin"),
}

// stackLayer answers ok/failing for one GPU Operator layer from the
// readiness of its DaemonSet's pod on each GPU node. Without such a
// DaemonSet (a driver baked into the node image) it cannot tell.
func stackLayer(s *snapshot.Snapshot, component string) Result {
	what := layerNames[component]
	dss := daemonSets(s, component)
	if len(dss) == 0 {
		return unknown(s, i18n.M("probe.no_daemonset", "layer", what), "list daemonsets")
	}
	nodes := gpuNodes(s)
	if len(nodes) == 0 {
		return unknown(s, i18n.M("probe.no_gpu_node"), "list nodes")
	}
	var bad, good []Evidence
	for _, n := range nodes {
		p, ds := podOnNode(dss, n.Name)
		switch {
		case p == nil && !anyPodsKnown(dss):
			ev, ok := dsStatus(dss)
			if ok {
				good = append(good, ev...)
			} else {
				bad = append(bad, ev...)
			}
		case p == nil:
			bad = append(bad, Evidence{Object: nodeRef(n.Name)}.explained(i18n.M("probe.ev.no_layer_pod", "component", component, "daemonset", dss[0].Namespace+"/"+dss[0].Name)))
		case !p.Ready:
			bad = append(bad, podEvidence(ds, p))
		default:
			good = append(good, podEvidence(ds, p))
		}
	}
	if len(bad) > 0 {
		return known("failing", i18n.M("probe.layer_failing", "layer", what), bad...)
	}
	return known("ok", i18n.M("probe.layer_ok", "layer", what), good...)
}

func daemonSets(s *snapshot.Snapshot, component string) []*snapshot.DaemonSet {
	var out []*snapshot.DaemonSet
	for i := range s.DaemonSets {
		if s.DaemonSets[i].Component == component {
			out = append(out, &s.DaemonSets[i])
		}
	}
	return out
}

func podOnNode(dss []*snapshot.DaemonSet, node string) (*snapshot.PodBrief, *snapshot.DaemonSet) {
	for _, ds := range dss {
		for i := range ds.Pods {
			if ds.Pods[i].NodeName == node {
				return &ds.Pods[i], ds
			}
		}
	}
	return nil, nil
}

func anyPodsKnown(dss []*snapshot.DaemonSet) bool {
	for _, ds := range dss {
		if ds.PodsKnown {
			return true
		}
	}
	return false
}

// dsStatus judges DaemonSets by their own status when their pods could not
// be read.
func dsStatus(dss []*snapshot.DaemonSet) ([]Evidence, bool) {
	ok := true
	var ev []Evidence
	for _, ds := range dss {
		ev = append(ev, Evidence{Object: "daemonset/" + ds.Name, Field: "status",
			Value: fmt.Sprintf("%d/%d ready", ds.NumberReady, ds.DesiredNumberScheduled)})
		if ds.DesiredNumberScheduled == 0 || ds.NumberReady < ds.DesiredNumberScheduled {
			ok = false
		}
	}
	return ev, ok
}

func podEvidence(ds *snapshot.DaemonSet, p *snapshot.PodBrief) Evidence {
	ready := i18n.M("probe.ev.not_ready")
	if p.Ready {
		ready = i18n.M("probe.ev.ready")
	}
	reason, restarts := "", any("")
	if p.Reason != "" {
		reason = ", " + p.Reason
	}
	if p.RestartCount > 0 {
		restarts = i18n.M("probe.ev.restarts", "count", int(p.RestartCount))
	}
	e := Evidence{Object: snapshot.ObjectRef{Kind: "Pod", Namespace: ds.Namespace, Name: p.Name}.String(), Field: "on node/" + p.NodeName,
		Message: p.Message}
	return e.valued(i18n.M("probe.ev.pod_state", "phase", p.Phase, "ready", ready, "reason", reason, "restarts", restarts))
}

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
func devicePlugin(s *snapshot.Snapshot, _ *triage.Catalog) Result {
	r := stackLayer(s, snapshot.ComponentDevicePlugin)
	if !r.Known || r.Value != "ok" {
		return r
	}
	for _, n := range gpuNodes(s) {
		if len(n.GPUResources()) > 0 {
			continue
		}
		dss := daemonSets(s, snapshot.ComponentDevicePlugin)
		p, ds := podOnNode(dss, n.Name)
		if p != nil {
			for _, l := range s.Logs {
				for _, f := range pluginLogFailures {
					if l.Pod == p.Name && strings.Contains(l.Tail, f) {
						return known("failing", i18n.M("probe.plugin_log_no_gpus"),
							podEvidence(ds, p), Evidence{Object: snapshot.ObjectRef{Kind: "Pod", Namespace: ds.Namespace, Name: p.Name}.String(), Field: "log", Message: lineWith(l.Tail, f)})
					}
				}
			}
		}
		return unknown(s, i18n.M("probe.plugin_ready_no_gpus", "node", n.Name), "get pods/log")
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
