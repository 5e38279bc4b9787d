package cluster

import (
	"context"
	"sort"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"casebook/internal/inventory"
	"casebook/internal/snapshot"
)

func sortReads(rs []inventory.KindRead) {
	sort.Slice(rs, func(i, j int) bool { return rs[i].Kind < rs[j].Kind })
}

func (ir *inventoryRead) nodes(selector string) {
	what := "list nodes"
	if selector != "" {
		what += " with labels " + selector
	}
	items := listAll(ir, "nodes", what, perm("list", "", "nodes", ""), func(ctx context.Context, o metav1.ListOptions) (page[corev1.Node], error) {
		o.LabelSelector = selector
		l, err := ir.r.client.CoreV1().Nodes().List(ctx, o)
		if err != nil {
			return page[corev1.Node]{}, err
		}
		return page[corev1.Node]{l.Items, l.Continue}, nil
	})
	for i := range items {
		n := &items[i]
		sn := convertNode(n)
		ir.inv.Nodes = append(ir.inv.Nodes, inventory.Node{
			Name: sn.Name, Labels: orEmpty(sn.Labels), Taints: sn.Taints, Unschedulable: sn.Unschedulable,
			Capacity: sn.Capacity, Allocatable: sn.Allocatable, Conditions: sn.Conditions,
			KubeletVersion: sn.KubeletVersion, OSImage: sn.OSImage, KernelVersion: sn.KernelVersion,
			ContainerRuntimeVersion: n.Status.NodeInfo.ContainerRuntimeVersion, CreatedAt: sn.CreatedAt,
		})
	}
}

// namespaces reads the namespaces' labels, which webhook namespace
// selectors match; with an allow-list, only the allowed ones.
func (ir *inventoryRead) namespaces() {
	add := func(ns *corev1.Namespace) {
		ir.inv.Namespaces = append(ir.inv.Namespaces, inventory.Namespace{Name: ns.Name, Labels: orEmpty(ns.Labels)})
	}
	if len(ir.r.opts.Namespaces) == 0 {
		for _, ns := range listAll(ir, "namespaces", "list namespaces", perm("list", "", "namespaces", ""), func(ctx context.Context, o metav1.ListOptions) (page[corev1.Namespace], error) {
			l, err := ir.r.client.CoreV1().Namespaces().List(ctx, o)
			if err != nil {
				return page[corev1.Namespace]{}, err
			}
			return page[corev1.Namespace]{l.Items, l.Continue}, nil
		}) {
			add(&ns)
		}
		return
	}
	rd := ir.read("namespaces")
	for _, name := range ir.r.opts.Namespaces {
		ctx, cancel := context.WithTimeout(ir.ctx, ir.r.opts.ReadTimeout)
		ns, err := ir.r.client.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
		cancel()
		if err != nil {
			rd.Errors = append(rd.Errors, readError("get namespace "+name, perm("get", "", "namespaces", ""), err))
			continue
		}
		rd.Count++
		add(ns)
	}
}

func (ir *inventoryRead) priorityClasses() {
	items := listAll(ir, "priorityClasses", "list priorityclasses", perm("list", "scheduling.k8s.io", "priorityclasses", ""),
		func(ctx context.Context, o metav1.ListOptions) (page[schedulingv1.PriorityClass], error) {
			l, err := ir.r.client.SchedulingV1().PriorityClasses().List(ctx, o)
			if err != nil {
				return page[schedulingv1.PriorityClass]{}, err
			}
			return page[schedulingv1.PriorityClass]{l.Items, l.Continue}, nil
		})
	for _, pc := range items {
		out := snapshot.PriorityClass{Name: pc.Name, Value: pc.Value, GlobalDefault: pc.GlobalDefault}
		if pc.PreemptionPolicy != nil {
			out.PreemptionPolicy = string(*pc.PreemptionPolicy)
		}
		ir.inv.PriorityClasses = append(ir.inv.PriorityClasses, out)
	}
}

func (ir *inventoryRead) disruptionBudgets() {
	for _, ns := range ir.namespacesToRead() {
		items := listAll(ir, "podDisruptionBudgets", inNamespace("list poddisruptionbudgets", ns), perm("list", "policy", "poddisruptionbudgets", ns),
			func(ctx context.Context, o metav1.ListOptions) (page[policyv1.PodDisruptionBudget], error) {
				l, err := ir.r.client.PolicyV1().PodDisruptionBudgets(ns).List(ctx, o)
				if err != nil {
					return page[policyv1.PodDisruptionBudget]{}, err
				}
				return page[policyv1.PodDisruptionBudget]{l.Items, l.Continue}, nil
			})
		for _, b := range items {
			out := inventory.DisruptionBudget{Namespace: b.Namespace, Name: b.Name, Selector: selector(b.Spec.Selector),
				DisruptionsAllowed: b.Status.DisruptionsAllowed, ExpectedPods: b.Status.ExpectedPods}
			if b.Spec.MinAvailable != nil {
				out.MinAvailable = b.Spec.MinAvailable.String()
			}
			if b.Spec.MaxUnavailable != nil {
				out.MaxUnavailable = b.Spec.MaxUnavailable.String()
			}
			ir.inv.PodDisruptionBudgets = append(ir.inv.PodDisruptionBudgets, out)
		}
	}
}

func (ir *inventoryRead) quotas() {
	for _, ns := range ir.namespacesToRead() {
		items := listAll(ir, "resourceQuotas", inNamespace("list resourcequotas", ns), perm("list", "", "resourcequotas", ns),
			func(ctx context.Context, o metav1.ListOptions) (page[corev1.ResourceQuota], error) {
				l, err := ir.r.client.CoreV1().ResourceQuotas(ns).List(ctx, o)
				if err != nil {
					return page[corev1.ResourceQuota]{}, err
				}
				return page[corev1.ResourceQuota]{l.Items, l.Continue}, nil
			})
		for _, q := range items {
			ir.inv.ResourceQuotas = append(ir.inv.ResourceQuotas, inventory.NamespaceQuota{Namespace: q.Namespace, Name: q.Name,
				Hard: orNone(resources(q.Status.Hard)), Used: orNone(resources(q.Status.Used))})
		}
	}
}

// selector converts a label selector; nil (which selects everything for
// webhooks and nothing for PDBs, as each API documents) becomes empty.
func selector(s *metav1.LabelSelector) inventory.LabelSelector {
	out := inventory.LabelSelector{MatchLabels: map[string]string{}}
	if s == nil {
		return out
	}
	for k, v := range s.MatchLabels {
		out.MatchLabels[k] = v
	}
	for _, e := range s.MatchExpressions {
		out.MatchExpressions = append(out.MatchExpressions, snapshot.Requirement{Key: e.Key, Operator: string(e.Operator), Values: e.Values})
	}
	return out
}

// orEmpty gives checks a map to look into even when Kubernetes had none,
// so `"k" in object.labels` never meets null.
func orEmpty(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

func orNone(r snapshot.ResourceList) snapshot.ResourceList {
	if r == nil {
		return snapshot.ResourceList{}
	}
	return r
}
