package cluster

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"

	"casebook/internal/inventory"
	"casebook/internal/snapshot"
)

// The probes and gap checks never import Kubernetes: snapshot and
// inventory implement the few scheduling rules they need over plain types.
// These tables hold those rules to the real helpers the scheduler and the
// API server use, over every operator and effect, including the inputs the
// API would refuse, so a drift in either shows here.

var (
	effects   = []string{"", "NoSchedule", "PreferNoSchedule", "NoExecute"}
	operators = []string{"", "Equal", "Exists", "Gt", "Lt", "Bogus"}
)

func TestTolerationMatchesKubernetes(t *testing.T) {
	taints := []snapshot.Taint{
		{Key: "gpu", Value: "true", Effect: "NoSchedule"},
		{Key: "gpu", Value: "", Effect: "NoExecute"},
		{Key: "gpu", Value: "5", Effect: "PreferNoSchedule"},
		{Key: "other", Value: "true", Effect: "NoSchedule"},
	}
	n := 0
	for _, op := range operators {
		for _, eff := range effects {
			for _, key := range []string{"", "gpu", "other", "missing"} {
				for _, val := range []string{"", "true", "4", "6"} {
					tol := snapshot.Toleration{Key: key, Operator: op, Value: val, Effect: eff}
					ktol := corev1.Toleration{Key: key, Operator: corev1.TolerationOperator(op), Value: val, Effect: corev1.TaintEffect(eff)}
					for _, taint := range taints {
						ktaint := corev1.Taint{Key: taint.Key, Value: taint.Value, Effect: corev1.TaintEffect(taint.Effect)}
						want := ktol.ToleratesTaint(klog.Background(), &ktaint, false)
						if got := tol.Tolerates(taint); got != want {
							t.Errorf("toleration %+v, taint %s: got %v, Kubernetes says %v", tol, taint, got, want)
						}
						n++
					}
				}
			}
		}
	}
	t.Logf("%d toleration/taint pairs agree", n)
}

func TestUntoleratedTaintsMatchesScheduler(t *testing.T) {
	taintSets := [][]snapshot.Taint{
		nil,
		{{Key: "gpu", Value: "true", Effect: "NoSchedule"}},
		{{Key: "gpu", Value: "true", Effect: "PreferNoSchedule"}},
		{{Key: "a", Effect: "PreferNoSchedule"}, {Key: "b", Value: "x", Effect: "NoExecute"}, {Key: "c", Effect: "NoSchedule"}},
		{{Key: "node.kubernetes.io/unschedulable", Effect: "NoSchedule"}},
	}
	tolSets := [][]snapshot.Toleration{
		nil,
		{{Operator: "Exists"}},
		{{Key: "gpu", Operator: "Exists", Effect: "NoSchedule"}},
		{{Key: "b", Value: "x"}},
		{{Key: "b", Operator: "Equal", Value: "y"}, {Key: "c", Operator: "Exists"}},
		{{Effect: "NoExecute", Operator: "Exists"}},
	}
	// The scheduler's TaintToleration filter looks at NoSchedule and
	// NoExecute taints only.
	filter := func(t *corev1.Taint) bool {
		return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
	}
	for i, taints := range taintSets {
		for j, tols := range tolSets {
			var kt []corev1.Taint
			for _, x := range taints {
				kt = append(kt, corev1.Taint{Key: x.Key, Value: x.Value, Effect: corev1.TaintEffect(x.Effect)})
			}
			var ktol []corev1.Toleration
			for _, x := range tols {
				ktol = append(ktol, corev1.Toleration{Key: x.Key, Operator: corev1.TolerationOperator(x.Operator), Value: x.Value, Effect: corev1.TaintEffect(x.Effect)})
			}
			first, found := corev1helpers.FindMatchingUntoleratedTaint(klog.Background(), kt, ktol, filter, false)
			got := snapshot.UntoleratedTaints(taints, tols)
			if (len(got) > 0) != found || (found && (got[0].Key != first.Key || got[0].Effect != string(first.Effect))) {
				t.Errorf("taints %d, tolerations %d: got %v, scheduler finds %v (%v)", i, j, got, first, found)
			}
		}
	}
}

// requirementCases cover every node-selector operator with present and
// absent labels, zero, one and two values, and values that are not
// integers, so invalid requirements are compared too.
func requirementCases() []snapshot.Requirement {
	var out []snapshot.Requirement
	values := [][]string{nil, {"a"}, {"a", "b"}, {"3"}, {"10"}, {"x1"}, {"3", "4"}}
	for _, op := range []string{"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Bogus"} {
		for _, key := range []string{"zone", "count", "absent"} {
			for _, v := range values {
				out = append(out, snapshot.Requirement{Key: key, Operator: op, Values: v})
			}
		}
	}
	return out
}

func TestNodeAffinityMatchesKubernetes(t *testing.T) {
	nodes := []snapshot.Node{
		{Name: "n-a", Labels: map[string]string{"zone": "a", "count": "5"}},
		{Name: "n-b", Labels: map[string]string{"zone": "b", "count": "x1"}},
		{Name: "n-0", Labels: map[string]string{}},
	}
	reqs := requirementCases()
	var pods []*snapshot.Pod
	for _, r := range reqs {
		pods = append(pods, &snapshot.Pod{RequiredNodeAffinity: []snapshot.NodeSelectorTerm{{MatchExpressions: []snapshot.Requirement{r}}}})
		// The same requirement as a field: only metadata.name with In or
		// NotIn and one value is valid.
		for _, key := range []string{"metadata.name", "spec.unschedulable"} {
			f := snapshot.Requirement{Key: key, Operator: r.Operator, Values: r.Values}
			if len(f.Values) == 1 && f.Values[0] == "a" {
				f.Values = []string{"n-a"}
			}
			pods = append(pods, &snapshot.Pod{RequiredNodeAffinity: []snapshot.NodeSelectorTerm{{MatchFields: []snapshot.Requirement{f}}}})
		}
	}
	pods = append(pods,
		&snapshot.Pod{NodeSelector: map[string]string{"zone": "a"}},
		&snapshot.Pod{NodeSelector: map[string]string{"zone": "a", "count": "6"}},
		// An empty term matches nothing; terms are ORed; an invalid term is
		// dropped and the others still count.
		&snapshot.Pod{RequiredNodeAffinity: []snapshot.NodeSelectorTerm{{}}},
		&snapshot.Pod{RequiredNodeAffinity: []snapshot.NodeSelectorTerm{{}, {MatchExpressions: []snapshot.Requirement{{Key: "zone", Operator: "In", Values: []string{"b"}}}}}},
		&snapshot.Pod{RequiredNodeAffinity: []snapshot.NodeSelectorTerm{
			{MatchExpressions: []snapshot.Requirement{{Key: "zone", Operator: "Exists", Values: []string{"x"}}}},
			{MatchExpressions: []snapshot.Requirement{{Key: "count", Operator: "Gt", Values: []string{"4"}}}},
		}},
		&snapshot.Pod{NodeSelector: map[string]string{"zone": "b"}, RequiredNodeAffinity: []snapshot.NodeSelectorTerm{
			{MatchExpressions: []snapshot.Requirement{{Key: "zone", Operator: "NotIn", Values: []string{"a"}}, {Key: "count", Operator: "Exists"}},
				MatchFields: []snapshot.Requirement{{Key: "metadata.name", Operator: "In", Values: []string{"n-b"}}}},
		}},
	)
	for i, p := range pods {
		affinity := kubeAffinity(p)
		for _, n := range nodes {
			kn := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n.Name, Labels: n.Labels}}
			want, _ := nodeaffinity.NewRequiredNodeAffinity(p.NodeSelector, affinity).Match(kn)
			if got := p.MatchesNode(&n); got != want {
				t.Errorf("pod %d (selector %v, affinity %+v) on %s: got %v, Kubernetes says %v", i, p.NodeSelector, p.RequiredNodeAffinity, n.Name, got, want)
			}
		}
	}
	t.Logf("%d pods x %d nodes agree", len(pods), len(nodes))
}

func kubeAffinity(p *snapshot.Pod) *corev1.Affinity {
	if len(p.RequiredNodeAffinity) == 0 {
		return nil
	}
	conv := func(rs []snapshot.Requirement) []corev1.NodeSelectorRequirement {
		var out []corev1.NodeSelectorRequirement
		for _, r := range rs {
			out = append(out, corev1.NodeSelectorRequirement{Key: r.Key, Operator: corev1.NodeSelectorOperator(r.Operator), Values: r.Values})
		}
		return out
	}
	ns := &corev1.NodeSelector{}
	for _, t := range p.RequiredNodeAffinity {
		ns.NodeSelectorTerms = append(ns.NodeSelectorTerms, corev1.NodeSelectorTerm{MatchExpressions: conv(t.MatchExpressions), MatchFields: conv(t.MatchFields)})
	}
	return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: ns}}
}

func TestLabelSelectorMatchesKubernetes(t *testing.T) {
	labelSets := []map[string]string{{}, {"zone": "a"}, {"zone": "b", "count": "3"}}
	var sels []inventory.LabelSelector
	sels = append(sels, inventory.LabelSelector{}, inventory.LabelSelector{MatchLabels: map[string]string{"zone": "a"}})
	for _, r := range requirementCases() {
		sels = append(sels, inventory.LabelSelector{MatchExpressions: []snapshot.Requirement{r}},
			inventory.LabelSelector{MatchLabels: map[string]string{"zone": "b"}, MatchExpressions: []snapshot.Requirement{r}})
	}
	for i, sel := range sels {
		ks := &metav1.LabelSelector{MatchLabels: sel.MatchLabels}
		for _, r := range sel.MatchExpressions {
			ks.MatchExpressions = append(ks.MatchExpressions, metav1.LabelSelectorRequirement{Key: r.Key, Operator: metav1.LabelSelectorOperator(r.Operator), Values: r.Values})
		}
		parsed, err := metav1.LabelSelectorAsSelector(ks)
		for _, l := range labelSets {
			// A selector the API would refuse selects nothing.
			want := err == nil && parsed.Matches(labels.Set(l))
			if got := sel.Matches(l); got != want {
				t.Errorf("selector %d %+v on %v: got %v, Kubernetes says %v (parse error %v)", i, sel, l, got, want, err)
			}
		}
	}
}

func TestQuantityMatchesKubernetes(t *testing.T) {
	good := []string{"0", "4", "500m", "0.5", "1.5", ".5", "5.", "+3", "-2", "16Gi", "1Ki", "2Mi", "1Ti", "1Pi", "1Ei",
		"Gi", "m", "1k", "1M", "1G", "1T", "1P", "1E", "100n", "250u", "1e3", "1E3", "1e-3", "2.5e2", "128974848", "129e6", "123Mi", "0.1Gi"}
	for _, s := range good {
		want, err := resource.ParseQuantity(s)
		if err != nil {
			t.Fatalf("fixture %q is not a Kubernetes quantity: %v", s, err)
		}
		got, err := snapshot.ParseQuantity(s)
		if err != nil {
			t.Errorf("ParseQuantity(%q): %v; Kubernetes reads %s", s, err, want.String())
			continue
		}
		if w := want.AsApproximateFloat64(); !closeTo(got.Value(), w) {
			t.Errorf("ParseQuantity(%q) = %v, Kubernetes %v", s, got.Value(), w)
		}
		// The reader's conversion keeps the canonical text and the value.
		q := quantity(want)
		if q.String() != want.String() || !closeTo(q.Value(), want.AsApproximateFloat64()) {
			t.Errorf("quantity(%s) = %s %v", want.String(), q, q.Value())
		}
	}
	bad := []string{"", "1.2.3", "0x10", "4 Gi", " 4", "4 ", "NaN", "Inf", "1e", "1Kb", "1ki", "--1", "1_000", "one"}
	for _, s := range bad {
		if _, err := resource.ParseQuantity(s); err == nil {
			t.Fatalf("fixture %q is a valid Kubernetes quantity", s)
		}
		if q, err := snapshot.ParseQuantity(s); err == nil {
			t.Errorf("ParseQuantity(%q) = %v; Kubernetes refuses it", s, q.Value())
		}
	}
}

func closeTo(a, b float64) bool {
	d := a - b
	if d < 0 {
		d = -d
	}
	scale := b
	if scale < 0 {
		scale = -scale
	}
	return d <= 1e-9*max(1, scale)
}
