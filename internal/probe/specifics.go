package probe

import (
	"sort"
	"strings"

	"casebook/internal/snapshot"
	"casebook/internal/triage"
)

// Specifics reads the particulars of a Pending pod from a snapshot, the
// same shape a paste gives (triage.PasteSpecifics) with what only the
// cluster knows: which nodes carry each taint the pod does not tolerate,
// which values nodes have for a label the pod selects, and how much of a
// resource each node the pod is meant for is short.
func Specifics(s *snapshot.Snapshot) triage.Specifics {
	var sp triage.Specifics
	if s == nil || s.Pod == nil || s.Pod.Scheduled() || len(s.Nodes) == 0 {
		return sp
	}
	sp.Taints = taintSpecifics(s)
	sp.Selectors = selectorSpecifics(s)
	sp.Shortfalls = shortfallSpecifics(s)
	return sp
}

// taintSpecifics groups the untolerated taints of the nodes the pod is
// meant for by taint, naming the nodes; the control plane's taints step
// back when other nodes are blocked by other taints.
func taintSpecifics(s *snapshot.Snapshot) []triage.TaintSpec {
	byTaint := map[snapshot.Taint][]string{}
	var order []snapshot.Taint
	for _, n := range targetNodes(s) {
		for _, t := range snapshot.UntoleratedTaints(n.Taints, s.Pod.Tolerations) {
			if _, ok := byTaint[t]; !ok {
				order = append(order, t)
			}
			byTaint[t] = append(byTaint[t], n.Name)
		}
	}
	var out, controlPlane []triage.TaintSpec
	for _, t := range order {
		ts := triage.TaintSpec{Key: t.Key, Value: t.Value, Effect: t.Effect, Nodes: byTaint[t], NodeCount: len(byTaint[t])}
		if strings.HasPrefix(t.Key, "node-role.kubernetes.io/") {
			controlPlane = append(controlPlane, ts)
			continue
		}
		out = append(out, ts)
	}
	if len(out) == 0 {
		return controlPlane
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].NodeCount > out[j].NodeCount })
	return out
}

// selectorSpecifics lists each selected label no node satisfies, with the
// values the nodes carry for its key (or, when none carries the key, the
// nearest key's values as SelectorNearMisses finds them).
func selectorSpecifics(s *snapshot.Snapshot) []triage.SelectorSpec {
	var out []triage.SelectorSpec
	for _, m := range SelectorNearMisses(s.Pod, s.Nodes) {
		spec := triage.SelectorSpec{Key: m.Key, Wanted: m.Wanted, NodeCount: len(s.Nodes)}
		key := m.Key
		if !anyNodeHasKey(s.Nodes, key) && m.NearKey != "" {
			key = m.NearKey
		}
		byValue := map[string][]string{}
		for i := range s.Nodes {
			if v, ok := s.Nodes[i].Labels[key]; ok {
				byValue[key+"="+v] = append(byValue[key+"="+v], s.Nodes[i].Name)
			}
		}
		for kv, nodes := range byValue {
			v := strings.TrimPrefix(kv, m.Key+"=")
			if key != m.Key {
				v = kv // another key: say which
			}
			spec.Have = append(spec.Have, triage.LabelValue{Value: v, Nodes: nodes})
		}
		triage.SortLabelValues(spec.Have)
		out = append(out, spec)
	}
	return out
}

func anyNodeHasKey(nodes []snapshot.Node, key string) bool {
	for i := range nodes {
		if _, ok := nodes[i].Labels[key]; ok {
			return true
		}
	}
	return false
}

// shortfallSpecifics lists, for each resource no node the pod is meant for
// has enough of, how much each node has free and how much is missing,
// least short first (the node closest to fitting).
func shortfallSpecifics(s *snapshot.Snapshot) []triage.Shortfall {
	reqs := s.Pod.Requests()
	var out []triage.Shortfall
	for _, r := range reqs.Names() {
		want := reqs[r].Value()
		if want <= 0 {
			continue
		}
		sf := triage.Shortfall{Resource: r, Requested: snapshot.NewQuantity(want).Human(r)}
		fits := false
		var total float64
		type short struct {
			node        string
			free, short float64
		}
		var shorts []short
		for _, n := range targetNodes(s) {
			if _, ok := n.Allocatable[r]; !ok && snapshot.IsExtended(r) {
				shorts = append(shorts, short{n.Name, 0, want})
				continue
			}
			free, ok := n.Free(r)
			if !ok {
				continue
			}
			f := max(free.Value(), 0)
			total += f
			if f >= want {
				fits = true
				break
			}
			shorts = append(shorts, short{n.Name, f, want - f})
		}
		if fits || len(shorts) == 0 {
			continue
		}
		sort.SliceStable(shorts, func(i, j int) bool { return shorts[i].short < shorts[j].short })
		for _, sh := range shorts {
			sf.Nodes = append(sf.Nodes, triage.NodeShort{Node: sh.node, Free: snapshot.NewQuantity(sh.free).Human(r), Short: snapshot.NewQuantity(sh.short).Human(r)})
		}
		sf.NodeCount = len(shorts)
		if len(sf.Nodes) > maxNodeEvidence {
			sf.Nodes = sf.Nodes[:maxNodeEvidence]
		}
		if total >= want {
			sf.Total = snapshot.NewQuantity(total).Human(r)
		}
		out = append(out, sf)
	}
	return out
}
