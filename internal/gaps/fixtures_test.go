package gaps

import (
	"time"

	"casebook/internal/snapshot"
)

// Builders for inventories in tests: each returns a value ready to put in
// an Inventory, with the fields a healthy object has, so a test states only
// what makes its gap.

var collected = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// inventory returns an inventory in which every kind was read without
// error, with the objects given by the options.
func inventory(opts ...func(*snapshot.Inventory)) *snapshot.Inventory {
	inv := &snapshot.Inventory{Version: snapshot.Version, Kind: snapshot.InventoryKind, CollectedAt: collected}
	for k := range snapshot.InventoryKinds {
		inv.Reads = append(inv.Reads, snapshot.KindRead{Kind: k})
	}
	inv.Namespaces = []snapshot.Namespace{{Name: "kube-system", Labels: map[string]string{"kubernetes.io/metadata.name": "kube-system"}}}
	for _, o := range opts {
		o(inv)
	}
	return inv
}

func res(kv ...string) snapshot.ResourceList {
	out := snapshot.ResourceList{}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = snapshot.MustQuantity(kv[i+1])
	}
	return out
}

func labels(kv ...string) map[string]string {
	out := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

func node(name string, l map[string]string, alloc snapshot.ResourceList) snapshot.InventoryNode {
	if l == nil {
		l = map[string]string{}
	}
	base := res("cpu", "16", "memory", "64Gi", "pods", "110")
	base.Add(alloc)
	return snapshot.InventoryNode{Name: name, Labels: l, Capacity: base, Allocatable: base, OSImage: "Ubuntu 22.04", KernelVersion: "5.15.0-1",
		Conditions: []snapshot.Condition{{Type: "Ready", Status: "True"}}}
}

var (
	h100    = labels("nvidia.com/gpu.present", "true", "nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3", "karpenter.sh/nodepool", "gpu")
	gpus8   = res("nvidia.com/gpu", "8")
	limited = res("memory", "256Mi")
)

func container(name string, limits snapshot.ResourceList) snapshot.ContainerSpec {
	return snapshot.ContainerSpec{Name: name, Image: "registry.example/" + name + ":1", Limits: limits}
}

func workload(kind, ns, name string, replicas int32, c ...snapshot.ContainerSpec) snapshot.Workload {
	if len(c) == 0 {
		c = []snapshot.ContainerSpec{container("main", limited)}
	}
	return snapshot.Workload{Kind: kind, Namespace: ns, Name: name, Labels: map[string]string{}, Replicas: replicas, ReadyReplicas: replicas,
		Template: snapshot.PodTemplate{Labels: map[string]string{}, NodeSelector: map[string]string{}, Containers: c}}
}

func pod(ns, name, owner, nodeName string, c ...snapshot.ContainerSpec) snapshot.InventoryPod {
	if len(c) == 0 {
		c = []snapshot.ContainerSpec{container("main", limited)}
	}
	return snapshot.InventoryPod{Namespace: ns, Name: name, Owner: owner, NodeName: nodeName, Phase: "Running", Ready: true, Labels: map[string]string{},
		Spec: snapshot.PodTemplate{NodeSelector: map[string]string{}, Containers: c}}
}

func webhook(name, policy string, nsSel snapshot.LabelSelector) snapshot.Webhook {
	return snapshot.Webhook{ConfigKind: "ValidatingWebhookConfiguration", ConfigName: name, Name: name + ".example.com", FailurePolicy: policy,
		TimeoutSeconds: 10, NamespaceSelector: nsSel, Service: "policy/" + name,
		Rules: []snapshot.WebhookRule{{Operations: []string{"CREATE", "UPDATE"}, APIGroups: []string{"*"}, Resources: []string{"*"}, Scope: "*"}}}
}

func dnsDeployment(replicas int32, c ...snapshot.ContainerSpec) snapshot.Workload {
	w := workload("Deployment", "kube-system", "coredns", replicas, c...)
	w.Labels["k8s-app"] = "kube-dns"
	return w
}
