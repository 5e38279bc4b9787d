package probe

import (
	"strings"

	"casebook/internal/i18n"
	"casebook/internal/snapshot"
	"casebook/internal/triage"
)

// pendingReason decides which reason of a scheduler message applies to
// this pod. The message counts every node once, under the first filter it
// fails, in the scheduler's order (cordon, taints, then node affinity, then
// resources): a GPU pod's message lists the CPU nodes' taints and the
// cordoned node next to the real blocker. So the reason is judged on the
// nodes the pod is meant for when the nodes were read, and taken from the
// message alone only when it names a single kind of reason.
func pendingReason(s *snapshot.Snapshot, msg string, cat *triage.Catalog) (string, i18n.Msg) {
	cv := classifyScheduler(msg, cat)
	switch cv {
	case "volume", "dra", "quota":
		// PreFilter messages stand for every node.
		return cv, i18n.M("probe.from_scheduler_message")
	}
	// A volume's node affinity is checked per node, but it binds the pod
	// everywhere: the volume mounts only in its own zone. The scheduler
	// names one failing filter per node, resources before volumes, so the
	// nodes "short of room" may be out of the zone as well; the nodes that
	// had room could not reach the volume. Either way the fix starts from
	// the volume's zone (a node with room there), which the volume route
	// treats; freeing capacity on an arbitrary node may change nothing.
	if volumeAffinity(msg) {
		if kinds := messageKinds(msg); len(kinds) == 0 || len(kinds) == 1 && kinds[0] == "insufficient" {
			return "volume", i18n.M("probe.volume_pins_nodes")
		}
	}
	if len(s.Nodes) > 0 && s.Pod != nil {
		if v, n := targetReason(s); v != "" {
			return v, i18n.M("probe.judged_on_targets", "count", n)
		}
	}
	if kinds := messageKinds(msg); len(kinds) > 1 {
		note := i18n.M("probe.several_reasons", "reasons", strings.Join(kinds, ", "))
		if e, ok := s.ReadFailed("list nodes"); ok {
			note = i18n.M("probe.read_failed", "note", note, "what", e.What, "kind", e.Kind, "permission", e.Permission.String())
		}
		return "", note
	}
	if cv == "" {
		return "", i18n.M("probe.no_known_reason")
	}
	return cv, i18n.M("probe.from_scheduler_message")
}

// volumeAffinity reports the scheduler's refusal of nodes a bound volume
// cannot reach: "volume node affinity conflict" in older releases,
// "didn't match PersistentVolume's node affinity" in newer ones.
func volumeAffinity(msg string) bool {
	l := strings.ToLower(msg)
	return strings.Contains(l, "volume node affinity conflict") || strings.Contains(l, "persistentvolume's node affinity")
}

// targetReason is the reason most of the targeted nodes refuse the pod,
// checked in the scheduler's filter order; "selector" when no node is
// targeted at all. It returns "" when every targeted node looks fine (the
// message may be older than the last change).
func targetReason(s *snapshot.Snapshot) (string, int) {
	targets := targetNodes(s)
	if len(targets) == 0 {
		return "selector", 0
	}
	count := map[string]int{}
	for _, n := range targets {
		if r := nodeReason(s, n); r != "" {
			count[r]++
		}
	}
	best := ""
	for _, r := range []string{"unschedulable", "taint", "insufficient"} {
		if count[r] > count[best] {
			best = r
		}
	}
	return best, len(targets)
}

// nodeReason says why one node refuses the pod, as far as the snapshot
// shows: cordoned or NotReady, an untolerated taint, or too little room.
func nodeReason(s *snapshot.Snapshot, n *snapshot.Node) string {
	tols := s.Pod.Tolerations
	if n.Unschedulable && len(snapshot.UntoleratedTaints([]snapshot.Taint{{Key: "node.kubernetes.io/unschedulable", Effect: "NoSchedule"}}, tols)) > 0 {
		return "unschedulable"
	}
	if bad := snapshot.UntoleratedTaints(n.Taints, tols); len(bad) > 0 {
		for _, t := range bad {
			if !strings.HasPrefix(t.Key, "node.kubernetes.io/") && !strings.HasPrefix(t.Key, "node.cloudprovider.kubernetes.io/") {
				return "taint"
			}
		}
		// Only the node lifecycle's own taints: NotReady, pressure.
		return "unschedulable"
	}
	if ready, ok := n.Ready(); ok && !ready {
		return "unschedulable"
	}
	for name, q := range s.Pod.Requests() {
		want := q.Value()
		if want <= 0 {
			continue
		}
		if free, ok := n.Free(name); ok && free.Value() < want {
			return "insufficient"
		}
		if n.Allocatable[name].Value() < want && (snapshot.IsExtended(name) || len(n.Allocatable) > 0) {
			return "insufficient"
		}
	}
	return ""
}

// messageKinds lists the distinct pending reasons a scheduler message
// names, leaving out node affinity when anything else is listed (it only
// describes nodes the pod never targeted).
func messageKinds(msg string) []string {
	head := msg
	if i := strings.Index(strings.ToLower(head), "preemption:"); i >= 0 {
		head = head[:i]
	}
	if i := strings.Index(head, ":"); i >= 0 {
		head = head[i+1:]
	}
	seen := map[string]bool{}
	var out []string
	for _, part := range strings.Split(head, ", ") {
		v := classifyScheduler(part, nil)
		if v != "" && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	if len(out) > 1 && seen["selector"] {
		kept := out[:0]
		for _, v := range out {
			if v != "selector" {
				kept = append(kept, v)
			}
		}
		out = kept
	}
	return out
}
