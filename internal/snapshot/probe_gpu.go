package snapshot

import (
	"fmt"
	"strings"

	"casebook/internal/triage"
)

// preemptionExpected: a pod with priority above zero that may preempt, and
// an event saying preemption found no victims.
func preemptionExpected(s *Snapshot, _ *triage.Catalog) Result {
	p := s.Pod
	if p == nil {
		return s.unknown("the pod was not read", "get pod")
	}
	prio, policy := int32(0), p.PreemptionPolicy
	if p.Priority != nil {
		prio = *p.Priority
	} else if s.PriorityClass != nil {
		prio = s.PriorityClass.Value
	}
	if policy == "" && s.PriorityClass != nil {
		policy = s.PriorityClass.PreemptionPolicy
	}
	ev := Evidence{Object: s.podRef(), Field: "spec.priority", Value: fmt.Sprint(prio)}
	if p.PriorityClassName != "" {
		ev.Message = "priorityClassName " + p.PriorityClassName
	}
	if prio <= 0 || policy == "Never" {
		return known("no", "the pod has no priority to preempt with", ev)
	}
	msg, mev, ok := s.schedulingMessage()
	if !ok {
		return s.unknown("no scheduler message to tell whether preemption was tried", "list events")
	}
	if strings.Contains(msg, "No preemption victims found") {
		return known("yes", "the pod may preempt and the scheduler found no victims", ev, mev)
	}
	return known("no", "the scheduler's message does not report failed preemption", ev, mev)
}

// gpuAllocatable: whether the nodes meant for the pod advertise the
// extended resource it is short of.
func gpuAllocatable(s *Snapshot, _ *triage.Catalog) Result {
	if s.Pod == nil {
		return s.unknown("the pod was not read", "get pod")
	}
	var short []string
	if msg, _, ok := s.schedulingMessage(); ok {
		short = insufficientResources(msg)
	}
	if len(short) == 0 {
		short = gpuRequests(s.Pod)
	}
	var ext []string
	for _, r := range short {
		if IsExtended(r) {
			ext = append(ext, r)
		}
	}
	if len(short) > 0 && len(ext) == 0 {
		return known("not-gpu", "the pod is short of "+strings.Join(short, ", "), s.capacityEvidence(short)...)
	}
	if len(ext) == 0 {
		return Result{Note: "the scheduler names no resource the pod is short of"}
	}
	if len(s.Nodes) == 0 {
		return s.unknown("the nodes were not read", "list nodes")
	}
	r := ext[0]
	advertised := false
	var missing []Evidence
	for _, n := range s.targetNodes() {
		if n.Allocatable[r].Value() > 0 {
			advertised = true
		} else if n.IsGPUNode() {
			missing = append(missing, Evidence{Object: nodeRef(n.Name), Field: "status.allocatable[" + r + "]",
				Value: allocText(n, r), Message: gpuLabelText(n)})
		}
	}
	if advertised {
		return known("yes", r+" is advertised; pods already hold it", s.capacityEvidence([]string{r})...)
	}
	if len(missing) == 0 {
		return Result{Note: "no node the pod is meant for has GPUs by label or allocatable"}
	}
	return known("no", "GPU nodes advertise no "+r, missing...)
}

// gpuNodes are the GPU nodes that matter: those the pod is meant for, or
// every GPU node when there is no pod.
func (s *Snapshot) gpuNodes() []*Node {
	var out []*Node
	for _, n := range s.targetNodes() {
		if n.IsGPUNode() {
			out = append(out, n)
		}
	}
	return out
}

func gpuDriver(s *Snapshot, _ *triage.Catalog) Result {
	return s.stackLayer(ComponentDriver, "the NVIDIA driver")
}

func gpuToolkit(s *Snapshot, _ *triage.Catalog) Result {
	return s.stackLayer(ComponentToolkit, "the NVIDIA container toolkit")
}

// stackLayer answers ok/failing for one GPU Operator layer from the
// readiness of its DaemonSet's pod on each GPU node. Without such a
// DaemonSet (a driver baked into the node image) it cannot tell.
func (s *Snapshot) stackLayer(component, what string) Result {
	dss := s.daemonSets(component)
	if len(dss) == 0 {
		return s.unknown("no "+what+" DaemonSet found (it may be installed on the host); check on the node", "list daemonsets")
	}
	nodes := s.gpuNodes()
	if len(nodes) == 0 {
		return s.unknown("no GPU node to check", "list nodes")
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
			bad = append(bad, Evidence{Object: nodeRef(n.Name), Message: fmt.Sprintf("no %s pod runs on this node (DaemonSet %s/%s)", component, dss[0].Namespace, dss[0].Name)})
		case !p.Ready:
			bad = append(bad, podEvidence(ds, p))
		default:
			good = append(good, podEvidence(ds, p))
		}
	}
	if len(bad) > 0 {
		return known("failing", what+" is not ready on a GPU node", bad...)
	}
	return known("ok", what+" pods are Ready on the GPU nodes", good...)
}

func (s *Snapshot) daemonSets(component string) []*DaemonSet {
	var out []*DaemonSet
	for i := range s.DaemonSets {
		if s.DaemonSets[i].Component == component {
			out = append(out, &s.DaemonSets[i])
		}
	}
	return out
}

func podOnNode(dss []*DaemonSet, node string) (*PodBrief, *DaemonSet) {
	for _, ds := range dss {
		for i := range ds.Pods {
			if ds.Pods[i].NodeName == node {
				return &ds.Pods[i], ds
			}
		}
	}
	return nil, nil
}

func anyPodsKnown(dss []*DaemonSet) bool {
	for _, ds := range dss {
		if ds.PodsKnown {
			return true
		}
	}
	return false
}

// dsStatus judges DaemonSets by their own status when their pods could not
// be read.
func dsStatus(dss []*DaemonSet) ([]Evidence, bool) {
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

func podEvidence(ds *DaemonSet, p *PodBrief) Evidence {
	v := p.Phase
	if p.Ready {
		v += ", Ready"
	} else {
		v += ", not Ready"
	}
	if p.Reason != "" {
		v += ", " + p.Reason
	}
	if p.RestartCount > 0 {
		v += fmt.Sprintf(", %d restarts", p.RestartCount)
	}
	return Evidence{Object: ObjectRef{Kind: "Pod", Namespace: ds.Namespace, Name: p.Name}.String(), Field: "on node/" + p.NodeName,
		Value: v, Message: p.Message}
}
