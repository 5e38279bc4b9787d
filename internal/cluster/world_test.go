package cluster_test

import (
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// world builds scenario objects on the harness as the missing controllers
// and kubelet would: nodes with status, pods the real scheduler places or
// refuses, and kubelet-owned status written through the status subresource.
type world struct {
	t     *testing.T
	ctx   context.Context
	c     kubernetes.Interface
	admin *rest.Config
	id    string
}

const poolLabel = "casebook.test/pool"

type nodeSpec struct {
	pool          string
	labels        map[string]string
	taints        []corev1.Taint
	alloc         corev1.ResourceList
	unschedulable bool
}

func (w *world) name(base string) string { return base + "-" + w.id }

// node creates a Ready node. Admission adds a not-ready taint to every new
// node and no node controller will lift it, so the taints are set again
// after creation; capacity and conditions are kubelet status.
func (w *world) node(base string, s nodeSpec) *corev1.Node {
	w.t.Helper()
	name := w.name(base)
	labels := map[string]string{"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", poolLabel: w.name(s.pool)}
	for k, v := range s.labels {
		labels[k] = v
	}
	n, err := w.c.CoreV1().Nodes().Create(w.ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}, metav1.CreateOptions{})
	if err != nil {
		w.t.Fatalf("create node %s: %v", name, err)
	}
	n.Spec.Taints = s.taints
	n.Spec.Unschedulable = s.unschedulable
	if n, err = w.c.CoreV1().Nodes().Update(w.ctx, n, metav1.UpdateOptions{}); err != nil {
		w.t.Fatalf("update node %s: %v", name, err)
	}
	alloc := corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("16"), corev1.ResourceMemory: resource.MustParse("64Gi"), corev1.ResourcePods: resource.MustParse("110"),
	}
	for k, v := range s.alloc {
		alloc[k] = v
	}
	now := metav1.Now()
	n.Status.Capacity, n.Status.Allocatable = alloc, alloc
	n.Status.Conditions = []corev1.NodeCondition{
		{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", Message: "kubelet is posting ready status", LastHeartbeatTime: now, LastTransitionTime: now},
		{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficientMemory", LastHeartbeatTime: now, LastTransitionTime: now},
	}
	n.Status.NodeInfo.KubeletVersion = "v1.37.2"
	if n, err = w.c.CoreV1().Nodes().UpdateStatus(w.ctx, n, metav1.UpdateOptions{}); err != nil {
		w.t.Fatalf("node status %s: %v", name, err)
	}
	return n
}

type podSpec struct {
	ns, name     string
	pool         string
	nodeSelector map[string]string
	nodeName     string
	requests     corev1.ResourceList
	limits       corev1.ResourceList
	volumes      []corev1.Volume
	labels       map[string]string
	owner        *metav1.OwnerReference
}

func (w *world) pod(s podSpec) *corev1.Pod {
	w.t.Helper()
	sel := map[string]string{}
	if s.pool != "" {
		sel[poolLabel] = w.name(s.pool)
	}
	for k, v := range s.nodeSelector {
		sel[k] = v
	}
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: s.name, Namespace: s.ns, Labels: s.labels},
		Spec: corev1.PodSpec{
			NodeSelector: sel,
			NodeName:     s.nodeName,
			Volumes:      s.volumes,
			Containers: []corev1.Container{{
				Name: "main", Image: "registry.example/app:1",
				Resources: corev1.ResourceRequirements{Requests: s.requests, Limits: s.limits},
			}},
		},
	}
	if s.owner != nil {
		p.OwnerReferences = []metav1.OwnerReference{*s.owner}
	}
	p, err := w.c.CoreV1().Pods(s.ns).Create(w.ctx, p, metav1.CreateOptions{})
	if err != nil {
		w.t.Fatalf("create pod %s/%s: %v", s.ns, s.name, err)
	}
	return p
}

// waitUnschedulable waits until the scheduler has given up on the pod and
// recorded why, in its condition and in a FailedScheduling event.
func (w *world) waitUnschedulable(ns, name string) {
	w.t.Helper()
	eventually(w.t, "FailedScheduling for "+ns+"/"+name, 60*time.Second, func() (bool, error) {
		p, err := w.c.CoreV1().Pods(ns).Get(w.ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		unsched := false
		for _, c := range p.Status.Conditions {
			unsched = unsched || (c.Type == corev1.PodScheduled && c.Reason == corev1.PodReasonUnschedulable)
		}
		if !unsched {
			return false, nil
		}
		sel := fields.Set{"involvedObject.name": name, "reason": "FailedScheduling"}.AsSelector().String()
		evs, err := w.c.CoreV1().Events(ns).List(w.ctx, metav1.ListOptions{FieldSelector: sel})
		return err == nil && len(evs.Items) > 0, err
	})
}

// waitBound waits until the scheduler has bound the pod.
func (w *world) waitBound(ns, name string) *corev1.Pod {
	w.t.Helper()
	var pod *corev1.Pod
	eventually(w.t, "binding of "+ns+"/"+name, 60*time.Second, func() (bool, error) {
		p, err := w.c.CoreV1().Pods(ns).Get(w.ctx, name, metav1.GetOptions{})
		pod = p
		return err == nil && p.Spec.NodeName != "", err
	})
	return pod
}

// setPodStatus writes pod status as the kubelet would.
func (w *world) setPodStatus(ns, name string, mutate func(*corev1.PodStatus)) {
	w.t.Helper()
	p, err := w.c.CoreV1().Pods(ns).Get(w.ctx, name, metav1.GetOptions{})
	if err != nil {
		w.t.Fatal(err)
	}
	mutate(&p.Status)
	if _, err := w.c.CoreV1().Pods(ns).UpdateStatus(w.ctx, p, metav1.UpdateOptions{}); err != nil {
		w.t.Fatalf("pod status %s/%s: %v", ns, name, err)
	}
}

func (w *world) namespace(base string) string {
	w.t.Helper()
	name := w.name(base)
	if _, err := w.c.CoreV1().Namespaces().Create(w.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		w.t.Fatal(err)
	}
	return name
}

// daemonSet creates a GPU stack DaemonSet and, as its controller would,
// one pod per listed node, with the readiness given, and the DaemonSet's
// status to match.
func (w *world) daemonSet(ns, name, image string, pods map[string]corev1.PodStatus) {
	w.t.Helper()
	labels := map[string]string{"app": name}
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					NodeSelector: map[string]string{"nvidia.com/gpu.present": "true"},
					Containers:   []corev1.Container{{Name: name, Image: image}},
				},
			},
		},
	}
	ds, err := w.c.AppsV1().DaemonSets(ns).Create(w.ctx, ds, metav1.CreateOptions{})
	if err != nil {
		w.t.Fatal(err)
	}
	ready := int32(0)
	owner := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "DaemonSet", Name: name, UID: ds.UID, Controller: ptr(true)}
	for node, status := range pods {
		podName := name + "-" + node
		w.pod(podSpec{ns: ns, name: podName, nodeName: node, labels: labels, owner: &owner})
		w.setPodStatus(ns, podName, func(s *corev1.PodStatus) { *s = status })
		for _, c := range status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
				ready++
			}
		}
	}
	ds.Status.DesiredNumberScheduled = int32(len(pods))
	ds.Status.CurrentNumberScheduled = int32(len(pods))
	ds.Status.NumberReady = ready
	ds.Status.NumberAvailable = ready
	ds.Status.NumberUnavailable = int32(len(pods)) - ready
	if _, err := w.c.AppsV1().DaemonSets(ns).UpdateStatus(w.ctx, ds, metav1.UpdateOptions{}); err != nil {
		w.t.Fatal(err)
	}
}

func ptr[T any](v T) *T { return &v }

// runningStatus is the status of a pod whose one container runs, Ready or
// not; waiting, when set, replaces the running state.
func runningStatus(ready bool, restarts int32, waiting *corev1.ContainerStateWaiting) corev1.PodStatus {
	cond := corev1.ConditionFalse
	if ready {
		cond = corev1.ConditionTrue
	}
	now := metav1.Now()
	st := corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}
	if waiting != nil {
		st = corev1.ContainerState{Waiting: waiting}
	}
	return corev1.PodStatus{
		Phase: corev1.PodRunning,
		Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now},
			{Type: corev1.PodReady, Status: cond, LastTransitionTime: now},
		},
		ContainerStatuses: []corev1.ContainerStatus{{Name: "main", Ready: ready, RestartCount: restarts, State: st, Image: "registry.example/app:1"}},
		StartTime:         &now,
	}
}
