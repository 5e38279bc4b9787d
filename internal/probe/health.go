package probe

// The pod's node and the pod's probes: a pod on a NotReady node looks
// Running, and a pod killed by its liveness probe looks like a crash loop.

import (
	"strings"

	"casebook/internal/i18n"
	"casebook/internal/snapshot"
	"casebook/internal/triage"
)

// podNode is the node the pod is bound to, when it was read.
func podNode(s *snapshot.Snapshot) (*snapshot.Node, bool) {
	if s.Pod == nil || s.Pod.NodeName == "" {
		return nil, false
	}
	return s.Node(s.Pod.NodeName)
}

// nodeNotReady is the evidence that the pod's node is not Ready.
func nodeNotReady(s *snapshot.Snapshot) ([]Evidence, bool) {
	n, ok := podNode(s)
	if !ok {
		return nil, false
	}
	if ready, known := n.Ready(); !known || ready {
		return nil, false
	}
	c, _ := snapshot.FindCondition(n.Conditions, "Ready")
	return []Evidence{{Object: nodeRef(n.Name), Field: "status.conditions[Ready]", Value: c.Status + " " + c.Reason, Message: c.Message}}, true
}

// nodeReadyCondition answers which kind of NotReady the pod's node is in,
// from its Ready condition's status and message and its pressure
// conditions (messages of pkg/kubelet/runtime.go, pkg/kubelet/pleg and
// the node lifecycle controller).
func nodeReadyCondition(s *snapshot.Snapshot, _ *triage.Catalog) Result {
	n, ok := podNode(s)
	if !ok {
		return unknown(s, i18n.M("probe.node_not_read"), "list nodes")
	}
	c, ok := snapshot.FindCondition(n.Conditions, "Ready")
	if !ok {
		return noted(i18n.M("probe.node_no_ready"))
	}
	ev := Evidence{Object: nodeRef(n.Name), Field: "status.conditions[Ready]", Value: c.Status + " " + c.Reason, Message: c.Message}
	if c.Status == "True" {
		return noted(i18n.M("probe.node_ready"), ev)
	}
	var pressure []Evidence
	for _, pc := range n.Conditions {
		if (pc.Type == "MemoryPressure" || pc.Type == "DiskPressure" || pc.Type == "PIDPressure") && pc.Status == "True" {
			pressure = append(pressure, Evidence{Object: nodeRef(n.Name), Field: "status.conditions[" + pc.Type + "]", Value: "True", Message: pc.Reason})
		}
	}
	msg := strings.ToLower(c.Message)
	switch {
	case c.Status == "Unknown" || c.Reason == "NodeStatusUnknown":
		return known("stopped-posting", i18n.M("probe.kubelet_stopped"), ev)
	case strings.Contains(msg, "network not ready") || strings.Contains(msg, "networkpluginnotready") || strings.Contains(msg, "cni"):
		return known("network", i18n.M("probe.network_not_ready"), ev)
	case strings.Contains(msg, "runtime is down") || strings.Contains(msg, "pleg"):
		return known("runtime", i18n.M("probe.runtime_down"), ev)
	case len(pressure) > 0:
		return known("resources", i18n.M("probe.node_ran_short"), append([]Evidence{ev}, pressure...)...)
	}
	return noted(i18n.M("probe.ready_no_cause"), ev)
}

// probeEvents are the pod's probe failures and the kills they caused
// (pkg/kubelet/prober: "<Type> probe failed: ...", kuberuntime: "Container
// <c> failed liveness probe, will be restarted"), newest first.
func probeEvents(s *snapshot.Snapshot) (readiness, liveness, startup []Evidence) {
	for i := len(s.Events) - 1; i >= 0; i-- {
		e := s.Events[i]
		if s.Pod == nil || e.Object.Kind != "Pod" || e.Object.Name != s.Pod.Name {
			continue
		}
		ev := Evidence{Object: podRef(s), Field: "event " + e.Reason, Message: e.Message}
		switch {
		case e.Reason == "Unhealthy" && strings.HasPrefix(e.Message, "Readiness probe"):
			readiness = append(readiness, ev)
		case e.Reason == "Unhealthy" && strings.HasPrefix(e.Message, "Liveness probe"),
			e.Reason == "Killing" && strings.Contains(e.Message, "failed liveness probe"):
			liveness = append(liveness, ev)
		case e.Reason == "Unhealthy" && strings.HasPrefix(e.Message, "Startup probe"),
			e.Reason == "Killing" && strings.Contains(e.Message, "failed startup probe"):
			startup = append(startup, ev)
		}
	}
	return readiness, liveness, startup
}

// probeFailure answers which probe fails. A liveness or startup probe
// that kills the container outranks readiness failures, which only take
// the pod out of its Services.
func probeFailure(s *snapshot.Snapshot, _ *triage.Catalog) Result {
	if s.Pod == nil {
		return unknown(s, i18n.M("probe.pod_not_read"), "get pod")
	}
	readiness, liveness, startup := probeEvents(s)
	switch {
	case len(startup) > 0:
		return known("startup", i18n.M("probe.startup_fails"), first(startup, 2)...)
	case len(liveness) > 0:
		return known("liveness", i18n.M("probe.liveness_fails"), first(liveness, 2)...)
	case len(readiness) > 0:
		return known("readiness", i18n.M("probe.readiness_fails"), first(readiness, 2)...)
	}
	return unknown(s, i18n.M("probe.no_unhealthy_event"), "list events")
}

func first(ev []Evidence, n int) []Evidence {
	if len(ev) > n {
		return ev[:n]
	}
	return ev
}
