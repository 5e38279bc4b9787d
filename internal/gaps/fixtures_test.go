package gaps

import (
	"time"

	"casebook/internal/inventory"
	"casebook/internal/snapshot"
)

// Builders for inventories in tests: each returns a value ready to put in
// an Inventory, with the fields a healthy object has, so a test states only
// what makes its gap.

var collected = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// newInventory returns an inventory in which every kind was read without
// error, with the objects given by the options.
func newInventory(opts ...func(*inventory.Inventory)) *inventory.Inventory {
	inv := &inventory.Inventory{Version: inventory.Version, Kind: inventory.Kind, CollectedAt: collected}
	for k := range inventory.Kinds {
		inv.Reads = append(inv.Reads, inventory.KindRead{Kind: k})
	}
	inv.Namespaces = []inventory.Namespace{{Name: "kube-system", Labels: map[string]string{"kubernetes.io/metadata.name": "kube-system"}}}
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

func node(name string, l map[string]string, alloc snapshot.ResourceList) inventory.Node {
	if l == nil {
		l = map[string]string{}
	}
	base := res("cpu", "16", "memory", "64Gi", "pods", "110")
	base.Add(alloc)
	return inventory.Node{Name: name, Labels: l, Capacity: base, Allocatable: base, OSImage: "Ubuntu 22.04", KernelVersion: "5.15.0-1",
		Conditions: []snapshot.Condition{{Type: "Ready", Status: "True"}}}
}

var (
	h100    = labels("nvidia.com/gpu.present", "true", "nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3", "karpenter.sh/nodepool", "gpu")
	gpus8   = res("nvidia.com/gpu", "8")
	limited = res("memory", "256Mi")
)

func container(name string, limits snapshot.ResourceList) inventory.ContainerSpec {
	return inventory.ContainerSpec{Name: name, Image: "registry.example/" + name + ":1", Limits: limits}
}

func workload(kind, ns, name string, replicas int32, c ...inventory.ContainerSpec) inventory.Workload {
	if len(c) == 0 {
		c = []inventory.ContainerSpec{container("main", limited)}
	}
	return inventory.Workload{Kind: kind, Namespace: ns, Name: name, Labels: map[string]string{}, Replicas: replicas, ReadyReplicas: replicas,
		Template: inventory.PodTemplate{Labels: map[string]string{}, NodeSelector: map[string]string{}, Containers: c}}
}

func pod(ns, name, owner, nodeName string, c ...inventory.ContainerSpec) inventory.Pod {
	if len(c) == 0 {
		c = []inventory.ContainerSpec{container("main", limited)}
	}
	return inventory.Pod{Namespace: ns, Name: name, Owner: owner, NodeName: nodeName, Phase: "Running", Ready: true, Labels: map[string]string{},
		Spec: inventory.PodTemplate{NodeSelector: map[string]string{}, Containers: c}}
}

func webhook(name, policy string, nsSel inventory.LabelSelector) inventory.Webhook {
	return inventory.Webhook{ConfigKind: "ValidatingWebhookConfiguration", ConfigName: name, Name: name + ".example.com", FailurePolicy: policy,
		TimeoutSeconds: 10, NamespaceSelector: nsSel, Service: "policy/" + name,
		Rules: []inventory.WebhookRule{{Operations: []string{"CREATE", "UPDATE"}, APIGroups: []string{"*"}, Resources: []string{"*"}, Scope: "*"}}}
}

func dnsDeployment(replicas int32, c ...inventory.ContainerSpec) inventory.Workload {
	w := workload("Deployment", "kube-system", "coredns", replicas, c...)
	w.Labels["k8s-app"] = "kube-dns"
	return w
}
