package cluster_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"casebook/internal/cluster"
	"casebook/internal/gaps"
	"casebook/internal/inventory"
	"casebook/library"
)

// TestLiveHealthyGPUCluster builds, on the real API server, the GPU cluster
// a careful platform team runs - three control-plane nodes, CoreDNS with two
// replicas on two nodes with limits and a disruption budget, kube-proxy on
// every node, a GPU pool tainted for GPU work whose NVIDIA driver, toolkit
// and device plugin run Ready on every GPU node at node-critical priority,
// GPUs allocatable, an inference Deployment spread over two GPU nodes with a
// disruption budget, a training Job with limits and a deadline, a GPU quota
// with headroom, and a policy webhook that leaves kube-system alone - reads
// it as the read-only ServiceAccount, and requires every gap check to pass.
// A check that fires here is a false alarm.
func TestLiveHealthyGPUCluster(t *testing.T) {
	admin, _ := harness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	c := kubernetes.NewForConfigOrDie(admin)
	g := &gapWorld{t: t, ctx: ctx, c: c, dyn: dynamic.NewForConfigOrDie(admin), id: runID(t)}
	role := applyRBAC(t, ctx, c)
	syncRole(t, ctx, c, role)
	removeGapObjects(t, ctx, c, g.dyn, "")
	t.Cleanup(func() { removeGapObjects(t, context.Background(), c, g.dyn, g.id) })
	ns := g.buildHealthy()

	ro := tokenConfig(t, ctx, admin, c, "casebook", "casebook")
	r, err := cluster.NewReader(ro, cluster.Options{Namespaces: ns})
	if err != nil {
		t.Fatal(err)
	}
	var inv *inventory.Inventory
	eventually(t, "an inventory without read errors", 30*time.Second, func() (bool, error) {
		inv, err = r.Inventory(ctx, cluster.InventoryOptions{NodeSelector: gapsLabel + "=" + g.id})
		if err != nil {
			return false, err
		}
		for _, rd := range inv.Reads {
			if len(rd.Errors) > 0 {
				return false, fmt.Errorf("%s: %+v", rd.Kind, rd.Errors)
			}
		}
		return true, nil
	})
	if len(inv.Nodes) != 7 || len(inv.DaemonSets) != 4 || len(inv.PodDisruptionBudgets) != 2 {
		t.Fatalf("the inventory misses part of the cluster: %d nodes, %d DaemonSets, %d PDBs", len(inv.Nodes), len(inv.DaemonSets), len(inv.PodDisruptionBudgets))
	}
	set, problems := gaps.Load(library.FS)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	rep := set.Run(ctx, inv, gaps.Limits{})
	if len(rep.Results) < 30 {
		t.Errorf("only %d checks ran", len(rep.Results))
	}
	for _, res := range rep.Results {
		if res.Status != gaps.StatusPassed {
			var objs []string
			for _, o := range res.Objects {
				objs = append(objs, o.Object+": "+o.Detail)
			}
			t.Errorf("%s: %s %s %v - a false alarm on a healthy cluster", res.ID, res.Status, res.Error, objs)
		}
	}
}

// buildHealthy creates the healthy cluster and returns the namespaces the
// read is scoped to.
func (g *gapWorld) buildHealthy() []string {
	id := g.id
	gpuNS, ml := g.namespace("gpu-operator"), g.namespace("ml")
	gpuTaint := corev1.Taint{Key: "nvidia.com/gpu", Value: "present", Effect: corev1.TaintEffectNoSchedule}
	h100 := map[string]string{"nvidia.com/gpu.present": "true", "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3",
		"nvidia.com/gpu.count": "8", "nvidia.com/mig.strategy": "single", "eks.amazonaws.com/nodegroup": "h100-" + id}
	healthy := []corev1.NodeCondition{{Type: "AcceleratedHardwareReady", Status: corev1.ConditionTrue, Reason: "NvidiaAcceleratedHardwareIsReady"}}
	var cps, cpus, gpus []string
	for i := range 3 {
		cps = append(cps, g.node(fmt.Sprintf("cp%d", i), gpuNode{labels: map[string]string{"node-role.kubernetes.io/control-plane": ""},
			taints: []corev1.Taint{{Key: "node-role.kubernetes.io/control-plane", Effect: corev1.TaintEffectNoSchedule}}}))
	}
	for i := range 2 {
		cpus = append(cpus, g.node(fmt.Sprintf("cpu%d", i), gpuNode{}))
	}
	for i := range 2 {
		gpus = append(gpus, g.node(fmt.Sprintf("h100-%d", i), gpuNode{labels: h100,
			alloc: corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("8")}, conditions: healthy, taints: []corev1.Taint{gpuTaint}}))
	}
	all := append(append(append([]string{}, cps...), cpus...), gpus...)

	limits := func(mem string) corev1.ResourceRequirements {
		return corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse(mem)},
			Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(mem)}}
	}
	gpuLimits := limits("64Gi")
	gpuLimits.Limits["nvidia.com/gpu"] = resource.MustParse("1")
	gpuLimits.Requests["nvidia.com/gpu"] = resource.MustParse("1")
	// Workloads tolerate the GPU taint, and the test's own node taint that
	// a real cluster does not have.
	gpuTol := []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Key: gapsLabel, Operator: corev1.TolerationOpExists}}

	// Node agents: kube-proxy everywhere, the NVIDIA stack on GPU nodes.
	agent := func(ns, name, image string, nodes []string, onGPU bool) {
		spec := podSpecWith(image, limits("128Mi"))
		spec.Tolerations = append(spec.Tolerations, corev1.Toleration{Operator: corev1.TolerationOpExists})
		if onGPU {
			spec.NodeSelector = map[string]string{"nvidia.com/gpu.present": "true"}
		}
		ds := g.daemonSet(ns, name, spec, int32(len(nodes)), int32(len(nodes)))
		for _, n := range nodes {
			g.runningPod(ns, name+"-"+n, n, map[string]string{"app": name}, ownerRef("DaemonSet", ds.Name), limits("128Mi"))
		}
	}
	agent("kube-system", "kube-proxy-"+id, "registry.k8s.io/kube-proxy:v1.37.2", all, false)
	agent(gpuNS, "nvidia-driver-daemonset", "nvcr.io/nvidia/driver:570.172.08-ubuntu22.04", gpus, true)
	agent(gpuNS, "nvidia-container-toolkit-daemonset", "nvcr.io/nvidia/k8s/container-toolkit:v1.17.8-ubuntu20.04", gpus, true)
	agent(gpuNS, "nvidia-device-plugin-daemonset", "nvcr.io/nvidia/k8s-device-plugin:v0.17.3", gpus, true)

	// CoreDNS: two replicas on two nodes, memory limit as upstream ships it,
	// a budget that lets one go.
	dns := podSpecWith("registry.k8s.io/coredns/coredns:v1.12.0", limits("170Mi"))
	dns.PriorityClassName = "system-cluster-critical"
	g.readyDeployment("kube-system", "coredns-"+id, 2, map[string]string{"k8s-app": "kube-dns"}, dns)
	for i, n := range cpus {
		g.runningPod("kube-system", fmt.Sprintf("coredns-%s-7d9f8-%d", id, i), n, map[string]string{"app": "coredns-" + id, "k8s-app": "kube-dns",
			"pod-template-hash": "7d9f8"}, ownerRef("ReplicaSet", "coredns-"+id+"-7d9f8"), limits("170Mi"))
	}
	g.pdbMax("kube-system", "coredns-"+id, map[string]string{"k8s-app": "kube-dns"}, 1, 2, 1)

	// Inference: two replicas, one per GPU node, tolerating the GPU taint
	// and selecting a product the nodes carry; a budget that lets one go.
	llm := podSpecWith("vllm/vllm-openai:v0.11.0", gpuLimits)
	llm.Tolerations = gpuTol
	llm.NodeSelector = map[string]string{"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}
	g.readyDeployment(ml, "llm", 2, nil, llm)
	for i, n := range gpus {
		g.runningPod(ml, fmt.Sprintf("llm-5c7d9-%d", i), n, map[string]string{"app": "llm", "pod-template-hash": "5c7d9"}, ownerRef("ReplicaSet", "llm-5c7d9"), gpuLimits)
	}
	g.pdbMax(ml, "llm", map[string]string{"app": "llm"}, 1, 2, 1)

	// Training: a Job with limits, a deadline and the GPU toleration.
	train := podSpecWith("registry.example/train:1", gpuLimits)
	train.Tolerations, train.RestartPolicy = gpuTol, corev1.RestartPolicyNever
	deadline, backoff := int64(86400), int32(3)
	_, err := g.c.BatchV1().Jobs(ml).Create(g.ctx, &batchv1.Job{ObjectMeta: g.meta("finetune", ml), Spec: batchv1.JobSpec{
		ActiveDeadlineSeconds: &deadline, BackoffLimit: &backoff, Template: corev1.PodTemplateSpec{Spec: train}}}, metav1.CreateOptions{})
	g.must("create job", err)

	// The team's GPU quota has room; the policy webhook leaves kube-system
	// alone and its CA is valid for a year.
	g.quota(ml, "gpu", corev1.ResourceList{"requests.nvidia.com/gpu": resource.MustParse("16")}, corev1.ResourceList{"requests.nvidia.com/gpu": resource.MustParse("3")})
	g.webhook("policy", admissionv1.Fail, &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"kube-system"}}}},
		caBundle(g.t, "casebook-policy-ca", 365*24*time.Hour))
	g.buildHealthyTraffic(ml)
	return []string{"kube-system", gpuNS, ml}
}

// readyDeployment creates a Deployment with the status its controller
// writes once every replica is ready.
func (g *gapWorld) readyDeployment(ns, name string, replicas int32, labels map[string]string, spec corev1.PodSpec) {
	g.t.Helper()
	d := g.deployment(ns, name, replicas, labels, spec)
	d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: replicas, UpdatedReplicas: replicas, ReadyReplicas: replicas, AvailableReplicas: replicas}
	_, err := g.c.AppsV1().Deployments(ns).UpdateStatus(g.ctx, d, metav1.UpdateOptions{})
	g.must("deployment status", err)
}

// pdbMax creates a PodDisruptionBudget with maxUnavailable and the status
// the disruption controller writes.
func (g *gapWorld) pdbMax(ns, name string, sel map[string]string, maxUnavailable, expected, allowed int32) {
	g.t.Helper()
	g.pdb(ns, name, sel, 0, expected, allowed)
	p, err := g.c.PolicyV1().PodDisruptionBudgets(ns).Get(g.ctx, name, metav1.GetOptions{})
	g.must("get pdb", err)
	max := intstrFrom(maxUnavailable)
	p.Spec.MinAvailable, p.Spec.MaxUnavailable = nil, &max
	p, err = g.c.PolicyV1().PodDisruptionBudgets(ns).Update(g.ctx, p, metav1.UpdateOptions{})
	g.must("pdb maxUnavailable", err)
	p.Status.DisruptionsAllowed, p.Status.ExpectedPods, p.Status.CurrentHealthy, p.Status.DesiredHealthy = allowed, expected, expected, expected-maxUnavailable
	_, err = g.c.PolicyV1().PodDisruptionBudgets(ns).UpdateStatus(g.ctx, p, metav1.UpdateOptions{})
	g.must("pdb status", err)
}
