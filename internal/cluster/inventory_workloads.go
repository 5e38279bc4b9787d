package cluster

import (
	"context"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"casebook/internal/inventory"
	"casebook/internal/snapshot"
)

// workloads reads Deployments, StatefulSets, DaemonSets and unfinished
// Jobs of every allowed namespace.
func (ir *inventoryRead) workloads() {
	for _, ns := range ir.namespacesToRead() {
		apps := ir.r.client.AppsV1()
		for _, d := range listAll(ir, "deployments", inNamespace("list deployments", ns), perm("list", "apps", "deployments", ns),
			func(ctx context.Context, o metav1.ListOptions) (page[appsv1.Deployment], error) {
				l, err := apps.Deployments(ns).List(ctx, o)
				if err != nil {
					return page[appsv1.Deployment]{}, err
				}
				return page[appsv1.Deployment]{l.Items, l.Continue}, nil
			}) {
			w := workload("Deployment", d.ObjectMeta, d.Spec.Selector, &d.Spec.Template, replicas(d.Spec.Replicas), d.Status.ReadyReplicas)
			ir.inv.Deployments = append(ir.inv.Deployments, w)
		}
		for _, s := range listAll(ir, "statefulSets", inNamespace("list statefulsets", ns), perm("list", "apps", "statefulsets", ns),
			func(ctx context.Context, o metav1.ListOptions) (page[appsv1.StatefulSet], error) {
				l, err := apps.StatefulSets(ns).List(ctx, o)
				if err != nil {
					return page[appsv1.StatefulSet]{}, err
				}
				return page[appsv1.StatefulSet]{l.Items, l.Continue}, nil
			}) {
			ir.inv.StatefulSets = append(ir.inv.StatefulSets, workload("StatefulSet", s.ObjectMeta, s.Spec.Selector, &s.Spec.Template, replicas(s.Spec.Replicas), s.Status.ReadyReplicas))
		}
		for _, d := range listAll(ir, "daemonSets", inNamespace("list daemonsets", ns), perm("list", "apps", "daemonsets", ns),
			func(ctx context.Context, o metav1.ListOptions) (page[appsv1.DaemonSet], error) {
				l, err := apps.DaemonSets(ns).List(ctx, o)
				if err != nil {
					return page[appsv1.DaemonSet]{}, err
				}
				return page[appsv1.DaemonSet]{l.Items, l.Continue}, nil
			}) {
			w := workload("DaemonSet", d.ObjectMeta, d.Spec.Selector, &d.Spec.Template, d.Status.DesiredNumberScheduled, d.Status.NumberReady)
			w.GPUComponent = gpuComponent(&d)
			ir.inv.DaemonSets = append(ir.inv.DaemonSets, w)
		}
		for _, j := range listAll(ir, "jobs", inNamespace("list jobs", ns), perm("list", "batch", "jobs", ns),
			func(ctx context.Context, o metav1.ListOptions) (page[batchv1.Job], error) {
				l, err := ir.r.client.BatchV1().Jobs(ns).List(ctx, o)
				if err != nil {
					return page[batchv1.Job]{}, err
				}
				return page[batchv1.Job]{l.Items, l.Continue}, nil
			}) {
			if jobFinished(&j) {
				continue
			}
			w := workload("Job", j.ObjectMeta, j.Spec.Selector, &j.Spec.Template, replicas(j.Spec.Parallelism), j.Status.Active)
			if j.Spec.ActiveDeadlineSeconds != nil {
				w.ActiveDeadlineSeconds = *j.Spec.ActiveDeadlineSeconds
			}
			w.BackoffLimit = 6 // the API's default
			if j.Spec.BackoffLimit != nil {
				w.BackoffLimit = *j.Spec.BackoffLimit
			}
			ir.inv.Jobs = append(ir.inv.Jobs, w)
		}
	}
}

func replicas(p *int32) int32 {
	if p == nil {
		return 1
	}
	return *p
}

// jobFinished reports whether a Job completed or failed; a finished Job
// runs nothing, so it cannot take a node down.
func jobFinished(j *batchv1.Job) bool {
	for _, c := range j.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return j.Status.CompletionTime != nil
}

func workload(kind string, meta metav1.ObjectMeta, sel *metav1.LabelSelector, tpl *corev1.PodTemplateSpec, want, ready int32) inventory.Workload {
	return inventory.Workload{Kind: kind, Namespace: meta.Namespace, Name: meta.Name, Labels: orEmpty(meta.Labels),
		Replicas: want, ReadyReplicas: ready, Selector: selector(sel), Template: template(tpl.Labels, &tpl.Spec),
		FeatureGates: featureGates(&tpl.Spec)}
}

// template keeps what the checks read of a pod spec: placement and
// resources. Of a container only its name, image and resources are kept;
// never its args, env or mounted Secrets.
func template(labels map[string]string, spec *corev1.PodSpec) inventory.PodTemplate {
	t := inventory.PodTemplate{Labels: orEmpty(labels), NodeSelector: orEmpty(spec.NodeSelector), PriorityClassName: spec.PriorityClassName}
	if a := spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			t.NodeAffinity = append(t.NodeAffinity, snapshot.NodeSelectorTerm{MatchExpressions: requirements(term.MatchExpressions), MatchFields: requirements(term.MatchFields)})
		}
	}
	for _, tol := range spec.Tolerations {
		t.Tolerations = append(t.Tolerations, snapshot.Toleration{Key: tol.Key, Operator: string(tol.Operator), Value: tol.Value, Effect: string(tol.Effect)})
	}
	spec1 := func(c corev1.Container) inventory.ContainerSpec {
		return inventory.ContainerSpec{Name: c.Name, Image: c.Image, Requests: orNone(resources(c.Resources.Requests)), Limits: orNone(resources(c.Resources.Limits))}
	}
	for _, c := range spec.Containers {
		t.Containers = append(t.Containers, spec1(c))
	}
	for _, c := range spec.InitContainers {
		t.InitContainers = append(t.InitContainers, spec1(c))
	}
	return t
}

// featureGates finds a --feature-gates argument or a literal FEATURE_GATES
// variable (how Karpenter's Helm chart passes NodeRepair); it is the only
// part of args and env an inventory keeps.
func featureGates(spec *corev1.PodSpec) string {
	for _, c := range spec.Containers {
		for i, a := range c.Args {
			if v, ok := strings.CutPrefix(a, "--feature-gates="); ok {
				return v
			}
			if a == "--feature-gates" && i+1 < len(c.Args) {
				return c.Args[i+1]
			}
		}
		for _, e := range c.Env {
			if e.Name == "FEATURE_GATES" && e.ValueFrom == nil {
				return e.Value
			}
		}
	}
	return ""
}

// pods reads the non-terminated pods, selected by the server on phase.
func (ir *inventoryRead) pods() {
	sel := fields.AndSelectors(
		fields.OneTermNotEqualSelector("status.phase", string(corev1.PodSucceeded)),
		fields.OneTermNotEqualSelector("status.phase", string(corev1.PodFailed)),
	).String()
	gpu := map[string]string{}
	for _, d := range ir.inv.DaemonSets {
		if d.GPUComponent != "" {
			gpu[d.Namespace+"/"+d.Name] = d.GPUComponent
		}
	}
	for _, ns := range ir.namespacesToRead() {
		for _, p := range listAll(ir, "pods", inNamespace("list pods", ns), perm("list", "", "pods", ns),
			func(ctx context.Context, o metav1.ListOptions) (page[corev1.Pod], error) {
				o.FieldSelector = sel
				l, err := ir.r.client.CoreV1().Pods(ns).List(ctx, o)
				if err != nil {
					return page[corev1.Pod]{}, err
				}
				return page[corev1.Pod]{l.Items, l.Continue}, nil
			}) {
			ip := inventory.Pod{Namespace: p.Namespace, Name: p.Name, Labels: orEmpty(p.Labels), Owner: podOwner(&p),
				NodeName: p.Spec.NodeName, Phase: string(p.Status.Phase), PriorityClassName: p.Spec.PriorityClassName,
				Spec: template(nil, &p.Spec)}
			ip.Spec.Labels = map[string]string{}
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodReady {
					ip.Ready = c.Status == corev1.ConditionTrue
				}
			}
			if name, ok := strings.CutPrefix(ip.Owner, "DaemonSet/"); ok {
				ip.GPUComponent = gpu[p.Namespace+"/"+name]
			}
			ir.inv.Pods = append(ir.inv.Pods, ip)
		}
	}
}

// podOwner names a pod's controller as Kind/name, reporting a ReplicaSet
// made by a Deployment (named <deployment>-<pod-template-hash>) as the
// Deployment, which is what a person fixes.
func podOwner(p *corev1.Pod) string {
	ref := metav1.GetControllerOf(p)
	if ref == nil {
		return ""
	}
	if ref.Kind == "ReplicaSet" {
		if h := p.Labels["pod-template-hash"]; h != "" {
			if d, ok := strings.CutSuffix(ref.Name, "-"+h); ok {
				return "Deployment/" + d
			}
		}
	}
	return ref.Kind + "/" + ref.Name
}
