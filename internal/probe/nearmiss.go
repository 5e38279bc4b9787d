package probe

import (
	"casebook/internal/library"
	"casebook/internal/snapshot"
	"slices"
	"sort"
	"strings"
)

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
func SelectorNearMisses(p *snapshot.Pod, nodes []snapshot.Node) []NearMiss {
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

func anyNodeHas(nodes []snapshot.Node, key string, values []string) bool {
	for i := range nodes {
		if v, ok := nodes[i].Labels[key]; ok && slices.Contains(values, v) {
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
