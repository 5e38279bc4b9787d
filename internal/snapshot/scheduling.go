package snapshot

import (
	"slices"
	"strconv"
)

// Tolerates reports whether the toleration covers the taint, with the
// rules of core/v1 Toleration.ToleratesTaint as the scheduler runs it today
// (the alpha Gt and Lt operators of TaintTolerationComparisonOperators
// off, so they tolerate nothing). An empty key with Exists tolerates every
// taint; an empty effect matches every effect.
func (t Toleration) Tolerates(taint Taint) bool {
	if t.Effect != "" && t.Effect != taint.Effect {
		return false
	}
	if t.Key != "" && t.Key != taint.Key {
		return false
	}
	switch t.Operator {
	case "", "Equal":
		return t.Value == taint.Value
	case "Exists":
		return true
	}
	return false
}

// UntoleratedTaints returns the node's NoSchedule and NoExecute taints that
// none of the tolerations covers; PreferNoSchedule never blocks scheduling.
func UntoleratedTaints(taints []Taint, tols []Toleration) []Taint {
	var out []Taint
	for _, taint := range taints {
		if taint.Effect != "NoSchedule" && taint.Effect != "NoExecute" {
			continue
		}
		covered := false
		for _, t := range tols {
			if t.Tolerates(taint) {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, taint)
		}
	}
	return out
}

// MatchesNode reports whether the pod's nodeSelector and required node
// affinity admit the node: the nodes "the pod is meant for", before taints
// and capacity are considered.
func (p *Pod) MatchesNode(n *Node) bool {
	for k, v := range p.NodeSelector {
		if got, ok := n.Labels[k]; !ok || got != v {
			return false
		}
	}
	if len(p.RequiredNodeAffinity) == 0 {
		return true
	}
	for _, term := range p.RequiredNodeAffinity {
		if term.matches(n) {
			return true
		}
	}
	return false
}

// matches ANDs a term's requirements; a term with none matches no node, as
// in the scheduler. A requirement the API would refuse (In without values,
// Exists with values, Gt with a non-integer, an unknown operator) makes
// the scheduler drop its term, which here is the same as not matching.
func (t NodeSelectorTerm) matches(n *Node) bool {
	if len(t.MatchExpressions) == 0 && len(t.MatchFields) == 0 {
		return false
	}
	for _, r := range t.MatchExpressions {
		v, ok := n.Labels[r.Key]
		if !r.matches(v, ok) {
			return false
		}
	}
	for _, r := range t.MatchFields {
		if !r.matchesField(n) {
			return false
		}
	}
	return true
}

func (r Requirement) matches(v string, present bool) bool {
	switch r.Operator {
	case "In":
		return len(r.Values) > 0 && present && slices.Contains(r.Values, v)
	case "NotIn":
		return len(r.Values) > 0 && (!present || !slices.Contains(r.Values, v))
	case "Exists":
		return len(r.Values) == 0 && present
	case "DoesNotExist":
		return len(r.Values) == 0 && !present
	case "Gt", "Lt":
		if len(r.Values) != 1 {
			return false
		}
		b, err := strconv.ParseInt(r.Values[0], 10, 64)
		if err != nil || !present {
			return false
		}
		a, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return false
		}
		if r.Operator == "Gt" {
			return a > b
		}
		return a < b
	}
	return false
}

// matchesField is a matchFields requirement: only metadata.name is a node
// field, only In and NotIn with exactly one value are allowed, and any
// other key reads as empty, as fields.Set does.
func (r Requirement) matchesField(n *Node) bool {
	if len(r.Values) != 1 {
		return false
	}
	v := ""
	if r.Key == "metadata.name" {
		v = n.Name
	}
	switch r.Operator {
	case "In":
		return v == r.Values[0]
	case "NotIn":
		return v != r.Values[0]
	}
	return false
}
