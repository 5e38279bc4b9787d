package probe

import (
	"regexp"
	"sort"
	"strings"

	"casebook/internal/i18n"
	"casebook/internal/snapshot"
	"casebook/internal/triage"
)

// podSymptom answers the root question from the pod's phase, conditions
// and container statuses.
func podSymptom(s *snapshot.Snapshot, cat *triage.Catalog) Result {
	p := s.Pod
	if p == nil {
		if r, ok := targetSymptom(s); ok {
			return r
		}
		if o, c, ok := ownerFailure(s); ok {
			return known("pending", i18n.M("probe.no_pod_controller_failed"),
				Evidence{Object: o, Field: "status.conditions[ReplicaFailure]", Message: c.Message})
		}
		return unknown(s, i18n.M("probe.pod_not_read"), "get pod", "get "+strings.ToLower(s.Target.Kind))
	}
	if ev, ok := nodeNotReady(s); ok && p.Phase != "Pending" {
		// A pod on a NotReady node keeps its last status: the node is the
		// problem, whatever the pod shows.
		return known("node-not-ready", i18n.M("probe.node_not_ready"), ev...)
	}
	readiness, liveness, startup := probeEvents(s)
	if len(liveness)+len(startup) > 0 {
		return known("probe-failure", i18n.M("probe.killed_by_probe"), first(append(startup, liveness...), 2)...)
	}
	if _, ev, ok := workloadFailure(s); ok {
		// The controller's own verdict outranks the pod's exit: a failed
		// Job is not a crash loop to restart, a stalled rollout not a pod.
		return known("workload", i18n.M("probe.workload"), ev...)
	}
	if ev, ok := restartEvidence(s); ok {
		return known("restarts", i18n.M("probe.restarts"), ev...)
	}
	if p.Phase == "Running" && len(readiness) > 0 {
		if c, ok := snapshot.FindCondition(p.Conditions, "Ready"); ok && c.Status != "True" {
			return known("probe-failure", i18n.M("probe.readiness_fails_running"),
				append([]Evidence{{Object: podRef(s), Field: "status.conditions[Ready]", Value: c.Status}}, first(readiness, 2)...)...)
		}
	}
	if p.Phase != "Pending" {
		return noted(i18n.M("probe.phase_no_restarts", "phase", p.Phase))
	}
	if p.Scheduled() {
		return known("pending", i18n.M("probe.bound_not_started"),
			Evidence{Object: podRef(s), Field: "spec.nodeName", Value: p.NodeName},
			Evidence{Object: podRef(s), Field: "status.phase", Value: p.Phase})
	}
	ev := []Evidence{{Object: podRef(s), Field: "status.phase", Value: "Pending"}}
	if c, ok := snapshot.FindCondition(p.Conditions, "PodScheduled"); ok {
		ev = append(ev, Evidence{Object: podRef(s), Field: "status.conditions[PodScheduled]", Value: c.Status + " " + c.Reason})
	}
	if miss, ok := gpuMissing(s); ok {
		return known("gpu-missing", i18n.M("probe.gpu_missing"), append(ev, miss...)...)
	}
	return known("pending", i18n.M("probe.waits_for_node"), ev...)
}

// gpuMissing reports GPU nodes that the pod targets whose labels say they
// have GPUs but whose allocatable has none of the resource the pod asks for.
func gpuMissing(s *snapshot.Snapshot) ([]Evidence, bool) {
	res := gpuRequests(s.Pod)
	if len(res) == 0 || len(s.Nodes) == 0 {
		return nil, false
	}
	var ev []Evidence
	for _, n := range targetNodes(s) {
		// A node that advertises GPUs under another name (a MIG strategy)
		// is not missing them: the pod waits in Pending for a name.
		if !n.HasGPULabels() || len(n.GPUResources()) > 0 {
			continue
		}
		for _, r := range res {
			if n.Allocatable[r].Value() > 0 {
				return nil, false // at least one targeted node advertises it
			}
		}
		ev = append(ev, gpuLabelEvidence(Evidence{Object: nodeRef(n.Name), Field: "status.allocatable[" + res[0] + "]"}.withAlloc(n, res[0]), n))
	}
	return ev, len(ev) > 0
}

// withAlloc sets the value to the node's allocatable amount of r, or says
// the node does not list r at all.
func (e Evidence) withAlloc(n *snapshot.Node, r string) Evidence {
	if q, ok := n.Allocatable[r]; ok {
		e.Value = q.String()
		return e
	}
	return e.valued(i18n.M("probe.ev.absent"))
}

// gpuLabelEvidence adds the node's GPU labels, which say it has GPUs.
func gpuLabelEvidence(e Evidence, n *snapshot.Node) Evidence {
	var parts []string
	for _, k := range []string{snapshot.LabelGPUPresent, snapshot.LabelGPUProduct, snapshot.LabelGPUCount, snapshot.LabelNFDNvidia} {
		if v, ok := n.Labels[k]; ok {
			parts = append(parts, k+"="+v)
		}
	}
	if len(parts) == 0 {
		return e
	}
	return e.explained(i18n.M("probe.ev.gpu_labels", "labels", strings.Join(parts, ", ")))
}

// gpuRequests lists the GPU resources the pod requests, sorted.
func gpuRequests(p *snapshot.Pod) []string {
	if p == nil {
		return nil
	}
	var out []string
	for name, q := range p.Requests() {
		if snapshot.IsExtended(name) && snapshot.IsGPUResource(name) && q.Value() > 0 {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// targetNodes are the nodes the pod's selector and required affinity admit;
// every node when there is no pod.
func targetNodes(s *snapshot.Snapshot) []*snapshot.Node {
	var out []*snapshot.Node
	for i := range s.Nodes {
		if s.Pod == nil || s.Pod.MatchesNode(&s.Nodes[i]) {
			out = append(out, &s.Nodes[i])
		}
	}
	return out
}

// ownerFailure finds a controller that reports it could not create pods.
func ownerFailure(s *snapshot.Snapshot) (string, snapshot.Condition, bool) {
	for _, o := range s.Owners {
		if c, ok := snapshot.FindCondition(o.Conditions, "ReplicaFailure"); ok && c.Status == "True" {
			return snapshot.ObjectRef{Kind: o.Kind, Namespace: o.Namespace, Name: o.Name}.String(), c, true
		}
	}
	for _, e := range s.Events {
		if e.Reason == "FailedCreate" && e.Object.Kind != "Pod" {
			return e.Object.String(), snapshot.Condition{Type: "ReplicaFailure", Status: "True", Reason: "FailedCreate", Message: e.Message}, true
		}
	}
	return "", snapshot.Condition{}, false
}

// schedulingMessage is the newest FailedScheduling event of the pod, or the
// message of its PodScheduled condition, which the scheduler writes too
// (and which is there when events are not readable or have expired).
func schedulingMessage(s *snapshot.Snapshot) (string, Evidence, bool) {
	var best *snapshot.Event
	for i := range s.Events {
		e := &s.Events[i]
		if !schedulerEvent(s, e) || e.Object.Kind != "Pod" || (s.Pod != nil && e.Object.Name != s.Pod.Name) {
			continue
		}
		if best == nil || e.LastTime.After(best.LastTime) {
			best = e
		}
	}
	if best != nil {
		return best.Message, Evidence{Object: podRef(s), Field: "event " + best.Reason, Message: best.Message}, true
	}
	if s.Pod != nil {
		if c, ok := snapshot.FindCondition(s.Pod.Conditions, "PodScheduled"); ok && c.Status == "False" && c.Message != "" {
			return c.Message, Evidence{Object: podRef(s), Field: "status.conditions[PodScheduled].message", Message: c.Message}, true
		}
	}
	return "", Evidence{}, false
}

// schedulerEvent reports whether an event is a scheduler's verdict on the
// pod: FailedScheduling from any scheduler, or the reasons other schedulers
// use (Volcano and KAI write Unschedulable, YuniKorn PodUnschedulable) when
// the event comes from the scheduler the pod names.
func schedulerEvent(s *snapshot.Snapshot, e *snapshot.Event) bool {
	if e.Reason == "FailedScheduling" {
		return true
	}
	if s.Pod == nil || !thirdPartyScheduler(s.Pod) {
		return false
	}
	return (e.Reason == "Unschedulable" || e.Reason == "PodUnschedulable") && e.Type == "Warning" || e.Source == s.Pod.SchedulerName && e.Reason != "Scheduled"
}

// thirdPartyScheduler reports whether the pod names a scheduler other than
// kube-scheduler's default profile.
func thirdPartyScheduler(p *snapshot.Pod) bool {
	return p.SchedulerName != "" && p.SchedulerName != "default-scheduler"
}

// schedulerMessage reads the scheduler's reason through the signals
// catalogue and backs it with what the snapshot shows about the nodes.
func schedulerMessage(s *snapshot.Snapshot, cat *triage.Catalog) Result {
	if s.Pod == nil {
		o, c, ok := ownerFailure(s)
		if ok && strings.Contains(c.Message, "exceeded quota") {
			ev := []Evidence{{Object: o, Field: "status.conditions[ReplicaFailure]", Message: c.Message}}
			for _, ow := range s.Owners {
				if ow.Replicas != nil {
					ev = append(ev, Evidence{Object: snapshot.ObjectRef{Kind: ow.Kind, Namespace: ow.Namespace, Name: ow.Name}.String(),
						Field: "replicas"}.valued(i18n.M("probe.ev.replicas", "wanted", int(*ow.Replicas), "ready", int(ow.ReadyReplicas))).
						explained(i18n.M("probe.ev.missing_refused")))
					break
				}
			}
			return known("quota", i18n.M("probe.quota"), append(ev, quotaEvidence(s, c.Message)...)...)
		}
		if ev, ok := pvcPending(s); ok {
			return known("volume", i18n.M("probe.pvc_pending"), ev...)
		}
		return unknown(s, i18n.M("probe.no_pod_no_failure"), "get pod", "list events")
	}
	if s.Pod.Scheduled() {
		return known("scheduled", i18n.M("probe.already_bound"),
			Evidence{Object: podRef(s), Field: "spec.nodeName", Value: s.Pod.NodeName})
	}
	msg, ev, ok := schedulingMessage(s)
	if !ok && thirdPartyScheduler(s.Pod) {
		// Nothing from the scheduler the pod waits for: when it runs, it
		// says why it cannot place the pod; silence means it does not run,
		// or does not watch this namespace or queue.
		name := s.Pod.SchedulerName
		return noted(i18n.M("probe.scheduler_silent", "scheduler", name, "quoted", i18n.Quote(name)),
			Evidence{Object: podRef(s), Field: "spec.schedulerName", Value: name}.explained(i18n.M("probe.ev.scheduler_silent", "scheduler", name)))
	}
	if !ok {
		return unknown(s, i18n.M("probe.no_scheduler_message"), "list events")
	}
	if thirdPartyScheduler(s.Pod) {
		ev.Message = s.Pod.SchedulerName + ": " + ev.Message
	}
	value, note := pendingReason(s, msg, cat)
	if value == "" {
		return noted(note, ev)
	}
	out := []Evidence{ev}
	switch value {
	case "taint":
		out = append(out, taintEvidence(s)...)
	case "selector":
		out = append(out, selectorEvidence(s)...)
	case "insufficient":
		out = append(out, capacityEvidence(s, insufficientResources(msg))...)
	case "unschedulable":
		out = append(out, cordonEvidence(s)...)
	case "volume":
		out = append(out, volumeEvidence(s)...)
	case "dra":
		out = append(out, claimEvidence(s)...)
	}
	return known(value, note, out...)
}

// classifyScheduler maps a scheduler message to a pending-reason answer
// with the signals catalogue, which knows every wording and which reasons
// are bystanders; without a catalogue it falls back to a few keywords.
func classifyScheduler(msg string, cat *triage.Catalog) string {
	if cat != nil {
		res := cat.Classify(msg)
		if a, ok := res.Answers[questionOf("scheduler-message")]; ok && a.Known {
			return a.Value
		}
	}
	lower := strings.ToLower(msg)
	for _, kw := range []struct{ text, value string }{
		{"unbound immediate persistentvolumeclaims", "volume"},
		{"persistentvolumeclaim", "volume"},
		{"cannot allocate all claims", "dra"},
		{"untolerated taint", "taint"},
		{"didn't tolerate", "taint"},
		{"were unschedulable", "unschedulable"},
		{"insufficient ", "insufficient"},
		{"too many pods", "insufficient"},
		{"node affinity/selector", "selector"},
	} {
		if strings.Contains(lower, kw.text) {
			return kw.value
		}
	}
	return ""
}

// questionOf returns the question a probe answers, as triage lists it.
func questionOf(probe string) string {
	for _, p := range triage.Probes {
		if p.Name == probe {
			return p.Question
		}
	}
	return ""
}

var insufficientRE = regexp.MustCompile(`Insufficient ([^\s,.]+(?:\.[^\s,.]+)*)`)

// insufficientResources lists the resources a scheduler message says are
// short ("Insufficient nvidia.com/gpu"), first-seen order.
func insufficientResources(msg string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range insufficientRE.FindAllStringSubmatch(msg, -1) {
		r := strings.TrimSuffix(m[1], ".")
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	if strings.Contains(msg, "Too many pods") && !seen["pods"] {
		out = append(out, "pods")
	}
	return out
}
