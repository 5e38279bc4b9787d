package cluster_test

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// scenario is one object graph on the harness and what triage must find.
type scenario struct {
	name      string
	ns        string
	target    string // POD or KIND/NAME
	wantRoute string // "" when triage must stop at wantAsk
	wantAsk   string
	evidence  []string
	file      string // fixture name when the snapshot is saved
}

const gpu = corev1.ResourceName("nvidia.com/gpu")

func gpus(n string) corev1.ResourceList { return corev1.ResourceList{gpu: resource.MustParse(n)} }

var present = map[string]string{"nvidia.com/gpu.present": "true"}

func labels(kv ...string) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

// build creates every scenario's objects first and waits for the
// scheduler afterwards, so its retries overlap.
func (w *world) build() []scenario {
	ns := w.namespace("team-a")
	qns := w.namespace("team-q")
	gns := w.namespace("gpu-operator")
	h100 := labels("nvidia.com/gpu.present", "true", "nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3")
	l4 := labels("nvidia.com/gpu.present", "true", "nvidia.com/gpu.product", "NVIDIA-L4")

	// A GPU pool behind a dedicated taint; the pod has no toleration.
	w.node("gpu-taint", nodeSpec{pool: "taint", labels: h100, alloc: gpus("8"),
		taints: []corev1.Taint{{Key: "nvidia.com/gpu", Value: "present", Effect: corev1.TaintEffectNoSchedule}}})
	w.pod(podSpec{ns: ns, name: "llm-0", pool: "taint", requests: gpus("1"), limits: gpus("1")})

	// A product label one typo away from what the nodes carry.
	w.node("gpu-sel", nodeSpec{pool: "selector", labels: h100, alloc: gpus("8")})
	w.pod(podSpec{ns: ns, name: "train-0", pool: "selector", nodeSelector: labels("nvidia.com/gpu.product", "NVIDIA-H100-SXM5-80GB"), requests: gpus("1"), limits: gpus("1")})

	// A full GPU node: another pod holds both GPUs.
	full := w.node("gpu-full", nodeSpec{pool: "full", labels: l4, alloc: gpus("2")})
	w.pod(podSpec{ns: ns, name: "holder-0", nodeSelector: labels("kubernetes.io/hostname", full.Name), requests: gpus("2"), limits: gpus("2")})
	w.running(ns, "holder-0")
	w.pod(podSpec{ns: ns, name: "infer-0", pool: "full", requests: gpus("1"), limits: gpus("1")})

	// Four GPUs free in the pool, two per node: a tensor-parallel pod of
	// four fits nowhere.
	for _, n := range []string{"gpu-tp-a", "gpu-tp-b"} {
		node := w.node(n, nodeSpec{pool: "tp", labels: h100, alloc: gpus("4")})
		w.pod(podSpec{ns: ns, name: "half-" + n, nodeSelector: labels("kubernetes.io/hostname", node.Name), requests: gpus("2"), limits: gpus("2")})
		w.running(ns, "half-"+n)
	}
	w.pod(podSpec{ns: ns, name: "tp4-0", pool: "tp", requests: gpus("4"), limits: gpus("4")})

	// A cordoned GPU node.
	w.node("gpu-cordon", nodeSpec{pool: "cordon", labels: h100, alloc: gpus("8"), unschedulable: true})
	w.pod(podSpec{ns: ns, name: "nb-0", pool: "cordon", requests: gpus("1"), limits: gpus("1")})

	// A claim with no class and no volume to bind.
	w.node("cpu", nodeSpec{pool: "cpu"})
	w.pvc(ns, "data-db-0")
	w.pod(podSpec{ns: ns, name: "db-0", pool: "cpu", volumes: []corev1.Volume{{Name: "data",
		VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data-db-0"}}}}})

	// A container killed at its memory limit, restarting.
	w.pod(podSpec{ns: ns, name: "embed-0", pool: "cpu",
		requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("256Mi")},
		limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("512Mi")}})
	w.waitBound(ns, "embed-0")
	w.setPodStatus(ns, "embed-0", func(s *corev1.PodStatus) {
		*s = runningStatus(false, 4, &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 1m20s restarting failed container=main pod=embed-0_" + ns + "(uid)"})
		s.ContainerStatuses[0].LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "OOMKilled", ExitCode: 137, FinishedAt: metav1.Now()}}
	})

	// A pod evicted when its node came under memory pressure.
	mem := w.node("cpu-mem", nodeSpec{pool: "mem"})
	w.pod(podSpec{ns: ns, name: "batch-0", pool: "mem", requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")}})
	w.waitBound(ns, "batch-0")
	w.memoryPressure(mem.Name)
	w.setPodStatus(ns, "batch-0", func(s *corev1.PodStatus) {
		s.Phase, s.Reason = corev1.PodFailed, "Evicted"
		s.Message = "The node was low on resource: memory. Threshold quantity: 100Mi, available: 42Mi. Container main was using 3Gi, request is 1Gi, has larger consumption of memory. "
	})

	// GPU nodes whose labels say present and whose allocatable has no
	// GPU: one with a healthy-looking device plugin, one whose plugin
	// crash loops. The GPU Operator's driver and toolkit are Ready.
	lost := w.node("gpu-lost", nodeSpec{pool: "lost", labels: l4})
	w.pod(podSpec{ns: ns, name: "vllm-0", pool: "lost", requests: gpus("1"), limits: gpus("1")})
	plug := w.node("gpu-plugin", nodeSpec{pool: "plugin", labels: l4})
	w.pod(podSpec{ns: ns, name: "vllm-1", pool: "plugin", requests: gpus("1"), limits: gpus("1")})
	// A node switched to the mixed MIG strategy: it advertises MIG slices,
	// and the pod still asks for whole GPUs.
	mig := w.node("gpu-mig", nodeSpec{pool: "mig", labels: labels("nvidia.com/gpu.present", "true", "nvidia.com/mig.strategy", "mixed"),
		alloc: corev1.ResourceList{"nvidia.com/mig-1g.10gb": resource.MustParse("7")}})
	w.pod(podSpec{ns: ns, name: "vllm-2", pool: "mig", requests: gpus("1"), limits: gpus("1")})
	ready := runningStatus(true, 0, nil)
	all := map[string]corev1.PodStatus{lost.Name: ready, plug.Name: ready, mig.Name: ready}
	w.daemonSet(gns, "nvidia-driver-daemonset", "nvcr.io/nvidia/driver:570", all)
	w.daemonSet(gns, "nvidia-container-toolkit-daemonset", "nvcr.io/nvidia/k8s/container-toolkit:v1.17", all)
	w.daemonSet(gns, "nvidia-device-plugin-daemonset", "nvcr.io/nvidia/k8s-device-plugin:v0.17", map[string]corev1.PodStatus{
		lost.Name: ready,
		plug.Name: runningStatus(false, 7, &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 5m0s restarting failed container"}),
		mig.Name:  ready,
	})

	// A namespace whose GPU quota is used up: the ReplicaSet cannot
	// create its pod.
	w.quotaRefusal(qns)

	for _, p := range []string{"llm-0", "train-0", "infer-0", "tp4-0", "nb-0", "db-0", "vllm-0", "vllm-1", "vllm-2"} {
		w.waitUnschedulable(ns, p)
	}

	return []scenario{
		{name: "untolerated taint", ns: ns, target: "llm-0", wantRoute: "pending/untolerated-taint",
			evidence: []string{"had untolerated taint", "spec.taints: nvidia.com/gpu=present:NoSchedule"}},
		{name: "node selector near miss", ns: ns, target: "train-0", wantRoute: "pending/node-selector-mismatch",
			evidence: []string{"nvidia.com/gpu.product=NVIDIA-H100-SXM5-80GB", "nearest: nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3"}},
		{name: "insufficient nvidia.com/gpu", ns: ns, target: "infer-0", wantRoute: "pending/insufficient-resources",
			evidence: []string{"Insufficient nvidia.com/gpu", "allocatable 2, requested 2, free 0"}},
		{name: "four GPUs on no single node", ns: ns, target: "tp4-0", wantRoute: "pending/insufficient-resources",
			evidence: []string{"4 free in total across 2 nodes, but no single node has 4 free"}},
		{name: "quota at its GPU limit", ns: qns, target: "deployment/trainer", wantRoute: "pending/resource-quota",
			evidence: []string{"exceeded quota: gpu-quota", "requests.nvidia.com/gpu: used 4 / hard 4"}},
		{name: "cordoned GPU node", ns: ns, target: "nb-0", wantRoute: "pending/unschedulable-node",
			evidence: []string{"were unschedulable", "spec.unschedulable: true"}},
		{name: "unbound PVC", ns: ns, target: "db-0", wantRoute: "pending/volume",
			evidence: []string{"unbound immediate PersistentVolumeClaims", "persistentvolumeclaim/data-db-0 status.phase: Pending"}},
		{name: "OOMKilled container", ns: ns, target: "embed-0", wantRoute: "memory/oomkilled",
			evidence: []string{"lastState.terminated: reason OOMKilled, exitCode 137", "resources.limits.memory: 512Mi"}},
		{name: "evicted on MemoryPressure", ns: ns, target: "batch-0", wantRoute: "memory/node-pressure-eviction",
			evidence: []string{"The node was low on resource: memory", "status.conditions[MemoryPressure]: True"}},
		{name: "GPU labels without allocatable", ns: ns, target: "vllm-0", wantAsk: "gpu-device-plugin",
			evidence: []string{"status.allocatable[nvidia.com/gpu]: absent", "nvidia.com/gpu.present=true", "nvidia-driver-daemonset"}},
		{name: "device plugin not ready", ns: ns, target: "vllm-1", wantRoute: "gpu/device-plugin",
			evidence: []string{"not Ready, CrashLoopBackOff, 7 restarts"}},
		{name: "MIG slices instead of whole GPUs", ns: ns, target: "vllm-2", wantRoute: "gpu/operator-policy",
			evidence: []string{"status.allocatable: nvidia.com/mig-1g.10gb", "nvidia.com/mig.strategy=mixed"}},
	}
}

// running waits for the scheduler to bind the pod, then reports it
// Running and Ready as its kubelet would.
func (w *world) running(ns, name string) {
	w.t.Helper()
	w.waitBound(ns, name)
	w.setPodStatus(ns, name, func(s *corev1.PodStatus) { *s = runningStatus(true, 0, nil) })
}

func (w *world) pvc(ns, name string) {
	w.t.Helper()
	empty := ""
	_, err := w.c.CoreV1().PersistentVolumeClaims(ns).Create(w.ctx, &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: corev1.PersistentVolumeClaimSpec{
			StorageClassName: &empty,
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")}},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		w.t.Fatal(err)
	}
}

// memoryPressure sets the condition and taint the kubelet and the node
// lifecycle controller set when a node runs short of memory.
func (w *world) memoryPressure(node string) {
	w.t.Helper()
	n, err := w.c.CoreV1().Nodes().Get(w.ctx, node, metav1.GetOptions{})
	if err != nil {
		w.t.Fatal(err)
	}
	for i, c := range n.Status.Conditions {
		if c.Type == corev1.NodeMemoryPressure {
			n.Status.Conditions[i].Status, n.Status.Conditions[i].Reason = corev1.ConditionTrue, "KubeletHasInsufficientMemory"
			n.Status.Conditions[i].Message = "kubelet has insufficient memory available"
		}
	}
	if n, err = w.c.CoreV1().Nodes().UpdateStatus(w.ctx, n, metav1.UpdateOptions{}); err != nil {
		w.t.Fatal(err)
	}
	n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: "node.kubernetes.io/memory-pressure", Effect: corev1.TaintEffectNoSchedule})
	if _, err = w.c.CoreV1().Nodes().Update(w.ctx, n, metav1.UpdateOptions{}); err != nil {
		w.t.Fatal(err)
	}
}

// quotaRefusal builds a Deployment whose ReplicaSet is refused by the
// quota admission of the real API server: the refusal message is the
// server's own, recorded on the ReplicaSet as its controller would.
func (w *world) quotaRefusal(ns string) {
	w.t.Helper()
	q, err := w.c.CoreV1().ResourceQuotas(ns).Create(w.ctx, &corev1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Name: "gpu-quota", Namespace: ns},
		Spec:       corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"requests.nvidia.com/gpu": resource.MustParse("4")}},
	}, metav1.CreateOptions{})
	if err != nil {
		w.t.Fatal(err)
	}
	// The quota controller's work: hard copied, usage counted (other
	// teams' jobs hold all four).
	q.Status.Hard = q.Spec.Hard
	q.Status.Used = corev1.ResourceList{"requests.nvidia.com/gpu": resource.MustParse("4")}
	if _, err := w.c.CoreV1().ResourceQuotas(ns).UpdateStatus(w.ctx, q, metav1.UpdateOptions{}); err != nil {
		w.t.Fatal(err)
	}
	sel := labels("app", "trainer")
	tmpl := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: sel},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "registry.example/train:1",
			Resources: corev1.ResourceRequirements{Requests: gpus("2"), Limits: gpus("2")}}}},
	}
	d, err := w.c.AppsV1().Deployments(ns).Create(w.ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "trainer", Namespace: ns},
		Spec:       appsv1.DeploymentSpec{Replicas: ptr(int32(1)), Selector: &metav1.LabelSelector{MatchLabels: sel}, Template: tmpl},
	}, metav1.CreateOptions{})
	if err != nil {
		w.t.Fatal(err)
	}
	rs, err := w.c.AppsV1().ReplicaSets(ns).Create(w.ctx, &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "trainer-7d9f", Namespace: ns, Labels: sel,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: d.Name, UID: d.UID, Controller: ptr(true)}}},
		Spec: appsv1.ReplicaSetSpec{Replicas: ptr(int32(1)), Selector: &metav1.LabelSelector{MatchLabels: sel}, Template: tmpl},
	}, metav1.CreateOptions{})
	if err != nil {
		w.t.Fatal(err)
	}
	_, err = w.c.CoreV1().Pods(ns).Create(w.ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "trainer-7d9f-", Namespace: ns, Labels: sel,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID, Controller: ptr(true)}}},
		Spec: tmpl.Spec,
	}, metav1.CreateOptions{})
	if err == nil {
		w.t.Fatal("the quota admitted a pod over its limit")
	}
	now := metav1.Now()
	rs.Status.Replicas = 0
	rs.Status.Conditions = []appsv1.ReplicaSetCondition{{Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate", Message: err.Error(), LastTransitionTime: now}}
	if _, err := w.c.AppsV1().ReplicaSets(ns).UpdateStatus(w.ctx, rs, metav1.UpdateOptions{}); err != nil {
		w.t.Fatal(err)
	}
	_, err = w.c.CoreV1().Events(ns).Create(w.ctx, &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{GenerateName: "trainer-7d9f.", Namespace: ns},
		InvolvedObject: corev1.ObjectReference{Kind: "ReplicaSet", Namespace: ns, Name: rs.Name, UID: rs.UID, APIVersion: "apps/v1"},
		Reason:         "FailedCreate", Type: corev1.EventTypeWarning, Message: "Error creating: " + err.Error(),
		Source: corev1.EventSource{Component: "replicaset-controller"}, FirstTimestamp: now, LastTimestamp: now, Count: 1,
	}, metav1.CreateOptions{})
	if err != nil {
		w.t.Fatal(err)
	}
}
