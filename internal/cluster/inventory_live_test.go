package cluster_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"casebook/internal/cluster"
	"casebook/internal/gaps"
	"casebook/internal/inventory"
	"casebook/library"
)

// TestLiveGaps builds a cluster on the real API server that holds sixteen
// of the gaps the library's checks look for, reads its inventory as the
// read-only ServiceAccount of deploy/rbac-readonly.yaml, and requires
// exactly those findings: every other check must pass, none may err.
func TestLiveGaps(t *testing.T) {
	admin, _ := harness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	c := kubernetes.NewForConfigOrDie(admin)
	g := &gapWorld{t: t, ctx: ctx, c: c, dyn: dynamic.NewForConfigOrDie(admin), id: runID(t)}
	role := applyRBAC(t, ctx, c)
	syncRole(t, ctx, c, role)
	removeGapObjects(t, ctx, c, g.dyn, "")
	want := g.build()
	// CASEBOOK_GAPS_SAVE=FILE writes the inventory read (the source of
	// internal/gaps/testdata/planted.json). CASEBOOK_GAPS_KEEP=1 leaves the planted cluster in place, to run
	// "casebook gaps" against it by hand.
	if os.Getenv("CASEBOOK_GAPS_KEEP") == "" {
		t.Cleanup(func() { removeGapObjects(t, context.Background(), c, g.dyn, g.id) })
	} else {
		t.Logf("kept; try: go run ./cmd/server gaps --kubeconfig $%s --namespaces kube-system,team-a-%[2]s,team-b-%[2]s,gpu-operator-%[2]s --node-selector %s=%[2]s",
			harnessEnv, g.id, gapsLabel)
	}

	rec := &recorder{}
	ro := tokenConfig(t, ctx, admin, c, "casebook", "casebook")
	scope := cluster.Options{Namespaces: []string{"kube-system", "team-a-" + g.id, "team-b-" + g.id, "gpu-operator-" + g.id}, WrapTransport: rec.wrap}
	r, err := cluster.NewReader(ro, scope)
	if err != nil {
		t.Fatal(err)
	}
	var inv *inventory.Inventory
	// A new ClusterRole rule reaches the authorizer's cache within moments.
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
	if path := os.Getenv("CASEBOOK_GAPS_SAVE"); path != "" {
		var buf bytes.Buffer
		if err := inventory.Encode(&buf, inv); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	set, problems := gaps.Load(library.FS)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	checkFindings(t, set.Run(ctx, inv, gaps.Limits{}), want)

	t.Run("downloaded inventory gives the same findings", func(t *testing.T) {
		var buf bytes.Buffer
		if err := inventory.Encode(&buf, inv); err != nil {
			t.Fatal(err)
		}
		again, err := inventory.Decode(&buf)
		if err != nil {
			t.Fatal(err)
		}
		checkFindings(t, set.Run(ctx, again, gaps.Limits{}), want)
	})

	t.Run("read only, no secrets, pods by phase", func(t *testing.T) {
		for _, p := range rec.all() {
			if !strings.HasPrefix(p, "GET ") {
				t.Errorf("non-GET request: %s", p)
			}
			if strings.Contains(p, "/secrets") || strings.Contains(p, "/configmaps") {
				t.Errorf("request for secrets or configmaps: %s", p)
			}
			if strings.Contains(p, "/pods?") && !strings.Contains(p, "status.phase") {
				t.Errorf("listed pods without the phase field selector: %s", p)
			}
		}
	})

	t.Run("a forbidden read makes its checks errors, never passes", func(t *testing.T) {
		w := &world{t: t, ctx: ctx, c: c, admin: admin, id: g.id}
		limited := w.limitedAccount(role, "validatingwebhookconfigurations")
		r, err := cluster.NewReader(limited, cluster.Options{Namespaces: scope.Namespaces})
		if err != nil {
			t.Fatal(err)
		}
		var rep *gaps.Report
		eventually(t, "the limited account's binding", 30*time.Second, func() (bool, error) {
			inv, err := r.Inventory(ctx, cluster.InventoryOptions{NodeSelector: gapsLabel + "=" + g.id})
			if err != nil {
				return false, err
			}
			rd, _ := inv.Read("nodes")
			rep = set.Run(ctx, inv, gaps.Limits{})
			return len(rd.Errors) == 0 && rd.Count > 0, nil
		})
		for _, id := range []string{"webhook-fail-intercepts-kube-system", "webhook-ca-bundle-expiring"} {
			res, _ := rep.Result(id)
			if res.Status != gaps.StatusError || !strings.Contains(res.Error, "missing permission list validatingwebhookconfigurations.admissionregistration.k8s.io") {
				t.Errorf("%s: %s %q", id, res.Status, res.Error)
			}
		}
		if res, _ := rep.Result("single-control-plane-node"); res.Status != gaps.StatusFound {
			t.Errorf("a check that needs no webhooks: %s %s", res.Status, res.Error)
		}
	})
}

// checkFindings requires exactly the wanted findings (check id to the
// objects found, in inventory order), and every other check passed.
func checkFindings(t *testing.T, rep *gaps.Report, want map[string][]string) {
	t.Helper()
	for _, res := range rep.Results {
		var got []string
		for _, o := range res.Objects {
			got = append(got, o.Object)
		}
		w, planted := want[res.ID]
		switch {
		case res.Status == gaps.StatusError:
			t.Errorf("%s: error %s", res.ID, res.Error)
		case !planted && res.Status != gaps.StatusPassed:
			t.Errorf("%s: unexpected finding %v (%s)", res.ID, got, res.Message)
		case planted && (res.Status != gaps.StatusFound || !slices.Equal(got, w)):
			t.Errorf("%s: %s %q, want found %q", res.ID, res.Status, got, w)
		case planted && len(res.Incidents) == 0:
			t.Errorf("%s: no incident named", res.ID)
		}
	}
	if len(want) < 8 {
		t.Fatalf("only %d planted gaps", len(want))
	}
}

// build plants the gaps and returns what each check must find.
func (g *gapWorld) build() map[string][]string {
	id := g.id
	a, b, gpuNS := g.namespace("team-a"), g.namespace("team-b"), g.namespace("gpu-operator")
	gpus := func(n string) corev1.ResourceList {
		return corev1.ResourceList{"nvidia.com/gpu": resource.MustParse(n)}
	}
	h100 := map[string]string{"nvidia.com/gpu.present": "true", "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3", "karpenter.sh/nodepool": "gpu-" + id}
	l4 := map[string]string{"nvidia.com/gpu.present": "true", "nvidia.com/gpu.product": "NVIDIA-L4", "eks.amazonaws.com/nodegroup": "l4-" + id}

	// One control-plane node runs the whole cluster.
	cp := g.node("cp", gpuNode{labels: map[string]string{"node-role.kubernetes.io/control-plane": ""}})
	// A Karpenter GPU pool: one node on a newer kernel whose hardware
	// health condition is False.
	gpuA := g.node("gpu-a", gpuNode{labels: h100, alloc: gpus("8")})
	gpuB := g.node("gpu-b", gpuNode{labels: h100, alloc: gpus("8"), kernel: "6.1.0-1021-aws", conditions: []corev1.NodeCondition{{
		Type: "AcceleratedHardwareReady", Status: corev1.ConditionFalse, Reason: "DCGMError", Message: "libdcgm.so: cannot open shared object file"}}})
	// An L4 node group: one node lost its GPUs while its labels say
	// present; one has no device plugin pod, so the kubelet offers none
	// of its GPU (a node that does offer GPUs proves a plugin runs, pod
	// or no pod, and is no gap).
	gpuC := g.node("gpu-c", gpuNode{labels: l4})
	gpuD := g.node("gpu-d", gpuNode{labels: l4, alloc: gpus("0")})
	cpu := g.node("cpu", gpuNode{})

	// The NVIDIA stack: the device plugin runs and is Ready on three GPU
	// nodes, not on gpu-d; the driver DaemonSet has a pod not ready.
	dp := g.daemonSet(gpuNS, "nvidia-device-plugin-daemonset", podSpecWith("nvcr.io/nvidia/k8s-device-plugin:v0.17.0", memLimit("64Mi")), 3, 3)
	for _, n := range []string{gpuA, gpuB, gpuC} {
		g.runningPod(gpuNS, "nvidia-device-plugin-"+n, n, map[string]string{"app": dp.Name}, ownerRef("DaemonSet", dp.Name), memLimit("64Mi"))
	}
	g.daemonSet(gpuNS, "nvidia-driver-daemonset", podSpecWith("nvcr.io/nvidia/driver:570.124.06", memLimit("1Gi")), 4, 3)

	// Cluster DNS: one replica, no memory limit.
	g.deployment("kube-system", "coredns-"+id, 1, map[string]string{"k8s-app": "kube-dns"}, podSpecWith("registry.k8s.io/coredns/coredns:v1.12.0", memLimit("")))
	// Karpenter with node repair, provisioning a GPU pool.
	karp := podSpecWith("public.ecr.aws/karpenter/controller:1.6.0", memLimit("1Gi"))
	karp.Containers[0].Args = []string{"--feature-gates=SpotToSpotConsolidation=false,NodeRepair=true"}
	g.deployment("kube-system", "karpenter-"+id, 2, nil, karp)
	g.karpenterCRDs()
	g.nodePool("gpu", map[string]any{"template": map[string]any{"spec": map[string]any{
		"nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "bottlerocket-gpu"},
		"requirements": []any{map[string]any{"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": []any{"g6e", "p5"}}},
	}}})
	g.nodePool("general", map[string]any{"template": map[string]any{"spec": map[string]any{
		"requirements": []any{map[string]any{"key": "karpenter.k8s.aws/instance-category", "operator": "In", "values": []any{"c", "m"}}},
	}}})

	// Two replicas of a Deployment, both on the cpu node, beside another
	// team's pod that has no memory limit.
	g.deployment(a, "web", 2, nil, podSpecWith("registry.example/web:1", memLimit("256Mi")))
	for _, p := range []string{"web-5d8f9c7b4-x1", "web-5d8f9c7b4-x2"} {
		g.runningPod(a, p, cpu, map[string]string{"app": "web", "pod-template-hash": "5d8f9c7b4"}, ownerRef("ReplicaSet", "web-5d8f9c7b4"), memLimit("256Mi"))
	}
	g.runningPod(b, "batch-0", cpu, nil, nil, memLimit(""))
	// A training pod that selects a GPU product no node carries.
	train := podSpecWith("registry.example/train:1", memLimit("8Gi"))
	train.NodeSelector = map[string]string{"nvidia.com/gpu.product": "NVIDIA-H100-SXM5-80GB"}
	_, err := g.c.CoreV1().Pods(a).Create(g.ctx, &corev1.Pod{ObjectMeta: g.meta("train-0", a), Spec: train}, metav1.CreateOptions{})
	g.must("create train-0", err)
	// A reindex Job with no memory limit and no deadline.
	g.job(a, "reindex", podSpecWith("registry.example/reindex:1", memLimit("")))
	// Route reflectors pinned to the removed master label.
	rr := podSpecWith("calico/node:v3.25", memLimit("512Mi"))
	rr.NodeSelector = map[string]string{"node-role.kubernetes.io/master": ""}
	g.daemonSet(a, "calico-rr", rr, 0, 0)

	// team-b's GPU quota is used up; team-a's web may not lose a replica.
	g.quota(b, "gpu", corev1.ResourceList{"requests.nvidia.com/gpu": resource.MustParse("4")}, corev1.ResourceList{"requests.nvidia.com/gpu": resource.MustParse("4")})
	g.pdb(a, "web", map[string]string{"app": "web"}, 2, 2, 0)

	// Webhooks last: one with failurePolicy Fail over every namespace,
	// one whose CA expires in a week (and which excludes kube-system).
	g.webhook("opa", admissionv1.Fail, nil, nil)
	g.webhook("certs", admissionv1.Ignore, &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"kube-system"}}}},
		caBundle(g.t, "casebook-test-ca", 7*24*time.Hour))

	want := map[string][]string{
		"single-control-plane-node":           {"node/" + cp},
		"gpu-node-without-allocatable-gpu":    {"node/" + gpuC, "node/" + gpuD},
		"quota-exhausted":                     {b + " resourcequota/gpu"},
		"pdb-blocks-drain":                    {a + " poddisruptionbudget/web"},
		"accelerated-hardware-not-ready":      {"node/" + gpuB},
		"karpenter-node-repair-gpu-pools":     {"nodepool/gpu-" + id + " (EC2NodeClass/bottlerocket-gpu)"},
		"gpu-pool-os-drift":                   {"pool gpu-" + id + ": Ubuntu 22.04.5 LTS, kernel 5.15.0-1057-aws / Ubuntu 22.04.5 LTS, kernel 6.1.0-1021-aws"},
		"device-plugin-not-ready-on-gpu-node": {"node/" + gpuD},
		"gpu-stack-daemonset-unavailable":     {gpuNS + " daemonset/nvidia-driver-daemonset"},
		"coredns-single-replica":              {"kube-system deployment/coredns-" + id},
		"coredns-memory-limit":                {"kube-system deployment/coredns-" + id},
		"replicas-on-one-node":                {a + " deployment/web"},
		"memory-limits-missing-shared-node":   {"node/" + cpu},
		"gpu-product-selector-no-node":        {a + " pod/train-0"},
		"job-without-limits-or-deadline":      {a + " job/reindex"},
		"removed-master-label-selector":       {"DaemonSet " + a + "/calico-rr"},
		"webhook-fail-intercepts-kube-system": {"validatingwebhookconfiguration/opa-" + id + " webhook opa.casebook.test"},
		"webhook-ca-bundle-expiring":          {"validatingwebhookconfiguration/certs-" + id + " webhook certs.casebook.test"},
	}
	for check, objs := range g.buildTraffic(a, b, cpu) {
		want[check] = objs
	}
	return want
}

// syncRole makes the harness's casebook-readonly ClusterRole match the
// shipped file, in case an earlier run created it from an older version.
func syncRole(t *testing.T, ctx context.Context, c kubernetes.Interface, want *rbacv1.ClusterRole) {
	t.Helper()
	cur, err := c.RbacV1().ClusterRoles().Get(ctx, want.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cur.Rules = want.Rules
	if _, err := c.RbacV1().ClusterRoles().Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// removeGapObjects deletes what this test made (id "" for every run's),
// cluster-scoped objects first: webhooks, node pools, nodes; then the
// namespaced objects in kube-system. Test namespaces are left, as the
// other live tests leave theirs.
func removeGapObjects(t *testing.T, ctx context.Context, c kubernetes.Interface, dyn dynamic.Interface, id string) {
	sel := metav1.ListOptions{LabelSelector: gapsLabel}
	if id != "" {
		sel.LabelSelector = gapsLabel + "=" + id
	}
	del := metav1.DeleteOptions{}
	errs := []error{
		c.AdmissionregistrationV1().ValidatingWebhookConfigurations().DeleteCollection(ctx, del, sel),
		c.CoreV1().Nodes().DeleteCollection(ctx, del, sel),
		c.AppsV1().Deployments("kube-system").DeleteCollection(ctx, del, sel),
		c.AppsV1().DaemonSets("kube-system").DeleteCollection(ctx, del, sel),
		c.PolicyV1().PodDisruptionBudgets("kube-system").DeleteCollection(ctx, del, sel),
		c.CoreV1().Pods("kube-system").DeleteCollection(ctx, del, sel),
	}
	if _, err := c.Discovery().ServerResourcesForGroupVersion("karpenter.sh/v1"); err == nil {
		errs = append(errs, dyn.Resource(nodePoolGVR).DeleteCollection(ctx, del, sel))
	}
	for _, err := range errs {
		if err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("cleanup: %v", err)
		}
	}
}

func isAlreadyExists(err error) bool { return apierrors.IsAlreadyExists(err) }
