package snapshot

import (
	"sort"
	"strconv"
	"strings"

	"casebook/internal/library"
)

// Tolerates reports whether the toleration covers the taint, with the
// rules of core/v1 Toleration.ToleratesTaint.
func (t Toleration) Tolerates(taint Taint) bool {
	if t.Effect != "" && t.Effect != taint.Effect {
		return false
	}
	if t.Key != "" && t.Key != taint.Key {
		return false
	}
	switch t.Operator {
	case "Exists":
		return true
	case "", "Equal":
		return t.Key != "" && t.Value == taint.Value
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
// in the scheduler.
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
		if r.Key != "metadata.name" || !r.matches(n.Name, true) {
			return false
		}
	}
	return true
}

func (r Requirement) matches(v string, present bool) bool {
	switch r.Operator {
	case "In":
		return present && contains(r.Values, v)
	case "NotIn":
		return !present || !contains(r.Values, v)
	case "Exists":
		return present
	case "DoesNotExist":
		return !present
	case "Gt", "Lt":
		if !present || len(r.Values) != 1 {
			return false
		}
		a, err1 := strconv.ParseInt(v, 10, 64)
		b, err2 := strconv.ParseInt(r.Values[0], 10, 64)
		if err1 != nil || err2 != nil {
			return false
		}
		if r.Operator == "Gt" {
			return a > b
		}
		return a < b
	}
	return false
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// NearMiss is a label the pod asks for that no node carries, and the
// closest label nodes do carry: the typo or renamed product that leaves a
// pod Pending.
type NearMiss struct {
	Key, Wanted      string // what the pod asks for
	NearKey, Nearest string // what the nodes carry
	Nodes            []string
}

// SelectorNearMisses checks each nodeSelector entry (and each In
// requirement of a single-term affinity) against the nodes' labels and
// returns those that no node satisfies, with the nearest existing value.
func SelectorNearMisses(p *Pod, nodes []Node) []NearMiss {
	wanted := map[string][]string{}
	for k, v := range p.NodeSelector {
		wanted[k] = []string{v}
	}
	if len(p.RequiredNodeAffinity) == 1 {
		for _, r := range p.RequiredNodeAffinity[0].MatchExpressions {
			if r.Operator == "In" {
				wanted[r.Key] = r.Values
			}
		}
	}
	keys := make([]string, 0, len(wanted))
	for k := range wanted {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []NearMiss
	for _, k := range keys {
		if anyNodeHas(nodes, k, wanted[k]) {
			continue
		}
		miss := NearMiss{Key: k, Wanted: strings.Join(wanted[k], ",")}
		best, found := 0, false
		for i := range nodes {
			for nk, nv := range nodes[i].Labels {
				// Shared tokens first (H100 and 80GB matter more than
				// the order of the words), edit distance to break ties.
				d := distance(k, nk)*4 + distance(miss.Wanted, nv) - 100*commonTokens(miss.Wanted, nv)
				if nk != k && distance(k, nk) > len(k)/3 {
					continue // an unrelated key
				}
				switch {
				case !found || d < best || (d == best && (nk+"="+nv) < (miss.NearKey+"="+miss.Nearest)):
					best, found, miss.NearKey, miss.Nearest = d, true, nk, nv
					miss.Nodes = []string{nodes[i].Name}
				case d == best && nk == miss.NearKey && nv == miss.Nearest:
					miss.Nodes = append(miss.Nodes, nodes[i].Name)
				}
			}
		}
		out = append(out, miss)
	}
	return out
}

func anyNodeHas(nodes []Node, key string, values []string) bool {
	for i := range nodes {
		if v, ok := nodes[i].Labels[key]; ok && contains(values, v) {
			return true
		}
	}
	return false
}

// distance is the edit distance, case-insensitive: product labels differ by
// case between tools as often as by content.
func distance(a, b string) int {
	return library.Levenshtein(strings.ToLower(a), strings.ToLower(b))
}

// commonTokens counts the words two label values share, case-insensitive:
// NVIDIA-H100-SXM5-80GB and NVIDIA-H100-80GB-HBM3 share three.
func commonTokens(a, b string) int {
	split := func(s string) []string {
		return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
		})
	}
	seen := map[string]bool{}
	for _, t := range split(a) {
		seen[t] = true
	}
	n := 0
	for _, t := range split(b) {
		if seen[t] {
			n++
			delete(seen, t)
		}
	}
	return n
}
