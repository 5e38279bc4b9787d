package triage

import (
	"fmt"
	"sort"
	"strings"
)

// Specifics are the particulars of a scheduling failure pulled out of the
// evidence, so that a result can say "add this toleration" instead of
// "check the taints": the taints that keep the pod off its nodes, the
// labels it selects that no node carries, the resources it is short of.
// They come from a paste (PasteSpecifics) or from a cluster snapshot
// (probe.Specifics); a paste holds less, and the fields say what is known.
type Specifics struct {
	Taints     []TaintSpec    `json:"taints,omitempty"`
	Selectors  []SelectorSpec `json:"selectors,omitempty"`
	Shortfalls []Shortfall    `json:"shortfalls,omitempty"`
}

// Empty reports whether nothing specific was found.
func (s Specifics) Empty() bool {
	return len(s.Taints) == 0 && len(s.Selectors) == 0 && len(s.Shortfalls) == 0
}

// For keeps what concerns one route: taints for the taint route, selectors
// for the selector route, shortfalls for the resources route.
func (s Specifics) For(route string) Specifics {
	switch route {
	case "pending/untolerated-taint":
		return Specifics{Taints: s.Taints}
	case "pending/node-selector-mismatch":
		return Specifics{Selectors: s.Selectors}
	case "pending/insufficient-resources":
		return Specifics{Shortfalls: s.Shortfalls}
	}
	return Specifics{}
}

// TaintSpec is one taint the pod does not tolerate. Value is empty for a
// taint without one; Effect is empty when the evidence does not say (older
// scheduler messages print only key and value). Nodes names the nodes that
// carry it when known; NodeCount is how many do (from the scheduler's
// count when the names are not known).
type TaintSpec struct {
	Key       string   `json:"key"`
	Value     string   `json:"value,omitempty"`
	Effect    string   `json:"effect,omitempty"`
	Nodes     []string `json:"nodes,omitempty"`
	NodeCount int      `json:"node_count,omitempty"`
}

// Toleration is the pod spec fragment that tolerates the taint: Equal on
// its value, or Exists for a taint without one; without a known effect it
// tolerates every effect of the key.
func (t TaintSpec) Toleration() string {
	var b strings.Builder
	b.WriteString("tolerations:\n")
	fmt.Fprintf(&b, "  - key: %s\n", yamlScalar(t.Key))
	if t.Value == "" {
		b.WriteString("    operator: Exists\n")
	} else {
		b.WriteString("    operator: Equal\n")
		fmt.Fprintf(&b, "    value: %s\n", yamlScalar(t.Value))
	}
	if t.Effect != "" {
		fmt.Fprintf(&b, "    effect: %s\n", t.Effect)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// String renders the taint as kubectl taint takes it.
func (t TaintSpec) String() string {
	s := t.Key
	if t.Value != "" {
		s += "=" + t.Value
	}
	if t.Effect != "" {
		s += ":" + t.Effect
	}
	return s
}

// SelectorSpec is a label the pod selects that no node it could use
// carries, with the values the nodes do have for that key (Have, most
// nodes first) when known, and the command that lists them otherwise.
type SelectorSpec struct {
	Key    string       `json:"key"`
	Wanted string       `json:"wanted"`
	Have   []LabelValue `json:"have,omitempty"`
	// NodeCount is how many nodes the scheduler said do not match.
	NodeCount int `json:"node_count,omitempty"`
}

// LabelValue is a value of a label key and the nodes that carry it.
type LabelValue struct {
	Value string   `json:"value"`
	Nodes []string `json:"nodes"`
}

// Command lists every node with the selector's label key as a column.
func (s SelectorSpec) Command() string { return "kubectl get nodes -L " + s.Key }

// Shortfall is a resource the pod requests more of than its nodes have
// free: how much it requests and, per node when known, what is free and
// how much is missing. NodeCount is how many nodes the scheduler said
// lack it.
type Shortfall struct {
	Resource  string      `json:"resource"`
	Requested string      `json:"requested,omitempty"`
	Nodes     []NodeShort `json:"nodes,omitempty"`
	NodeCount int         `json:"node_count,omitempty"`
	// Total is set when the nodes together have enough free but no
	// single node does: a pod's requests must fit on one node.
	Total string `json:"total_free,omitempty"`
}

// NodeShort is one node's free amount of a resource and what is missing.
type NodeShort struct {
	Node  string `json:"node"`
	Free  string `json:"free"`
	Short string `json:"short"`
}

// yamlScalar quotes a value YAML would read as something other than the
// string it is (empty, true, 1.5, a leading special character).
func yamlScalar(s string) string {
	if s == "" || strings.ContainsAny(s[:1], "!&*-?{}[],#|>@`\"'%: ") || strings.ContainsAny(s, ":#") {
		return fmt.Sprintf("%q", s)
	}
	switch strings.ToLower(s) {
	case "true", "false", "yes", "no", "on", "off", "null", "~", "y", "n":
		return fmt.Sprintf("%q", s)
	}
	if isNumberLike(s) {
		return fmt.Sprintf("%q", s)
	}
	return s
}

func isNumberLike(s string) bool {
	digits := 0
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r == '.' || r == '-' || r == '+' || r == 'e' || r == 'E' || r == '_':
		default:
			return false
		}
	}
	return digits > 0
}

// SortLabelValues orders values by how many nodes carry them, then value.
func SortLabelValues(vs []LabelValue) {
	sort.Slice(vs, func(i, j int) bool {
		if len(vs[i].Nodes) != len(vs[j].Nodes) {
			return len(vs[i].Nodes) > len(vs[j].Nodes)
		}
		return vs[i].Value < vs[j].Value
	})
}
