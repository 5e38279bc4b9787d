package gaps

import (
	"strconv"

	"casebook/internal/inventory"
	"casebook/internal/snapshot"
)

// Cases for the checks about nodes, workloads on GPU nodes, quotas,
// webhooks, DaemonSets and disruption budgets; they join shippedCases.
func init() {
	for id, cases := range moreCases {
		shippedCases[id] = cases
	}
}

func withCondition(n inventory.Node, typ, status, reason, msg string) inventory.Node {
	var out []snapshot.Condition
	for _, c := range n.Conditions {
		if c.Type != typ {
			out = append(out, c)
		}
	}
	n.Conditions = append(out, snapshot.Condition{Type: typ, Status: status, Reason: reason, Message: msg})
	return n
}

func withTaints(n inventory.Node, t ...snapshot.Taint) inventory.Node {
	n.Taints = append(n.Taints, t...)
	return n
}

// reserved gives a node the memory reservations a healthy node has.
func reserved(n inventory.Node) inventory.Node {
	n.Allocatable = res("cpu", "15", "memory", "60Gi", "pods", "110")
	for k, v := range n.Capacity {
		if _, ok := n.Allocatable[k]; !ok {
			n.Allocatable[k] = v
		}
	}
	return n
}

var gpuTaint = snapshot.Taint{Key: "nvidia.com/gpu", Value: "present", Effect: "NoSchedule"}

func gpuContainer(name, resource, n string) inventory.ContainerSpec {
	c := container(name, res(resource, n))
	return c
}

func gpuWorkload(kind, ns, name, resource string, tols ...snapshot.Toleration) inventory.Workload {
	w := workload(kind, ns, name, 1, gpuContainer("main", resource, "1"))
	w.Template.Tolerations = tols
	return w
}

var moreCases = map[string][]checkCase{
	"node-cordoned": {
		{name: "a GPU node left cordoned", inv: newInventory(with(func(i *inventory.Inventory) {
			n := node("gpu-1", h100, gpus8)
			n.Unschedulable = true
			i.Nodes = []inventory.Node{n, node("gpu-2", h100, gpus8)}
		})), want: []string{"node/gpu-1"}, detail: "8 GPUs out of service"},
		{name: "none cordoned", inv: newInventory(with(func(i *inventory.Inventory) { i.Nodes = []inventory.Node{node("w-1", nil, nil)} }))},
	},
	"node-not-ready": {
		{name: "kubelet stopped posting", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Nodes = []inventory.Node{withCondition(node("w-1", nil, nil), "Ready", "Unknown", "NodeStatusUnknown", "Kubelet stopped posting node status."), node("w-2", nil, nil)}
		})), want: []string{"node/w-1"}, detail: "Ready Unknown (NodeStatusUnknown): Kubelet stopped posting node status."},
		{name: "no Ready condition at all", inv: newInventory(with(func(i *inventory.Inventory) {
			n := node("w-1", nil, nil)
			n.Conditions = nil
			i.Nodes = []inventory.Node{n}
		})), want: []string{"node/w-1"}, detail: "no Ready condition"},
		{name: "all Ready", inv: newInventory(with(func(i *inventory.Inventory) { i.Nodes = []inventory.Node{node("w-1", nil, nil)} }))},
	},
	"node-pressure": {
		{name: "disk pressure", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Nodes = []inventory.Node{withCondition(node("w-1", nil, nil), "DiskPressure", "True", "KubeletHasDiskPressure", "kubelet has disk pressure")}
		})), want: []string{"node/w-1"}, detail: "DiskPressure (KubeletHasDiskPressure)"},
		{name: "pressure conditions False", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Nodes = []inventory.Node{withCondition(node("w-1", nil, nil), "MemoryPressure", "False", "KubeletHasSufficientMemory", "")}
		}))},
	},
	"node-memory-not-reserved": {
		{name: "allocatable equals capacity", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Nodes = []inventory.Node{node("w-1", nil, nil), reserved(node("w-2", nil, nil))}
		})), want: []string{"node/w-1"}, detail: "allocatable memory 65536 MiB of 65536 MiB capacity"},
		{name: "reservations set", inv: newInventory(with(func(i *inventory.Inventory) { i.Nodes = []inventory.Node{reserved(node("w-1", nil, nil))} }))},
	},
	"node-pods-at-capacity": {
		{name: "node full of pods", inv: newInventory(with(func(i *inventory.Inventory) {
			n := node("small-1", nil, nil)
			n.Allocatable = res("cpu", "2", "memory", "4Gi", "pods", "4")
			i.Nodes = []inventory.Node{n, node("w-2", nil, nil)}
			for k := range 4 {
				i.Pods = append(i.Pods, pod("team-a", "p-"+strconv.Itoa(k), "", "small-1"))
			}
			i.Pods = append(i.Pods, pod("team-a", "other", "", "w-2"))
		})), want: []string{"node/small-1"}, detail: "4 pods of 4 allowed"},
		{name: "room left", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Nodes = []inventory.Node{node("w-1", nil, nil)}
			i.Pods = []inventory.Pod{pod("team-a", "p", "", "w-1")}
		}))},
	},
	"network-agent-not-ready-taint": {
		{name: "cilium taint stayed", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Nodes = []inventory.Node{withTaints(node("w-1", nil, nil), snapshot.Taint{Key: "node.cilium.io/agent-not-ready", Value: "true", Effect: "NoExecute"})}
		})), want: []string{"node/w-1"}, detail: "node.cilium.io/agent-not-ready:NoExecute"},
		{name: "GPU taint only", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Nodes = []inventory.Node{withTaints(node("gpu-1", h100, gpus8), gpuTaint)}
		}))},
	},
	"autoscaler-leaked-taint": {
		{name: "tainted an hour ago, Ready", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Nodes = []inventory.Node{withTaints(node("w-1", nil, nil),
				snapshot.Taint{Key: "ToBeDeletedByClusterAutoscaler", Value: strconv.FormatInt(collected.Add(-3600e9).Unix(), 10), Effect: "NoSchedule"})}
		})), want: []string{"node/w-1"}, detail: "ToBeDeletedByClusterAutoscaler since"},
		{name: "scale-down in progress", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Nodes = []inventory.Node{withTaints(node("w-1", nil, nil),
				snapshot.Taint{Key: "ToBeDeletedByClusterAutoscaler", Value: strconv.FormatInt(collected.Add(-60e9).Unix(), 10), Effect: "NoSchedule"})}
		}))},
	},
	"node-uninitialized-taint": {
		{name: "cluster-api taint on a Ready node", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Nodes = []inventory.Node{withTaints(node("w-1", nil, nil), snapshot.Taint{Key: "node.cluster.x-k8s.io/uninitialized", Effect: "NoSchedule"})}
		})), want: []string{"node/w-1"}, detail: "node.cluster.x-k8s.io/uninitialized:NoSchedule"},
		{name: "a node still starting", inv: newInventory(with(func(i *inventory.Inventory) {
			n := withTaints(node("w-1", nil, nil), snapshot.Taint{Key: "node.cloudprovider.kubernetes.io/uninitialized", Value: "true", Effect: "NoSchedule"})
			i.Nodes = []inventory.Node{withCondition(n, "Ready", "False", "KubeletNotReady", "container runtime network not ready")}
		}))},
	},
	"gpu-daemonset-untolerated-taint": {
		{name: "driver without the pool's custom taint", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Nodes = []inventory.Node{withTaints(node("gpu-1", h100, gpus8), snapshot.Taint{Key: "dedicated", Value: "ml", Effect: "NoSchedule"}), node("cpu-1", nil, nil)}
			d := workload("DaemonSet", "gpu-operator", "nvidia-driver-daemonset", 1)
			d.GPUComponent = "driver"
			d.Template.Tolerations = []snapshot.Toleration{{Key: "nvidia.com/gpu", Operator: "Exists", Effect: "NoSchedule"}}
			i.DaemonSets = []inventory.Workload{d}
		})), want: []string{"gpu-operator daemonset/nvidia-driver-daemonset"}, detail: "driver does not tolerate dedicated=ml:NoSchedule on gpu-1"},
		{name: "tolerated, or not meant for that node", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Nodes = []inventory.Node{withTaints(node("gpu-1", h100, gpus8), gpuTaint), withTaints(node("gpu-2", labels("nvidia.com/gpu.present", "true", "pool", "other"), gpus8), snapshot.Taint{Key: "dedicated", Value: "x", Effect: "NoSchedule"})}
			d := workload("DaemonSet", "gpu-operator", "nvidia-device-plugin", 2)
			d.GPUComponent = "device-plugin"
			d.Template.NodeSelector = map[string]string{"karpenter.sh/nodepool": "gpu"}
			d.Template.Tolerations = []snapshot.Toleration{{Key: "nvidia.com/gpu", Operator: "Exists", Effect: "NoSchedule"}}
			i.DaemonSets = []inventory.Workload{d}
		}))},
	},
	"gpu-workload-untolerated-taint": {
		{name: "training job without the GPU toleration", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Nodes = []inventory.Node{withTaints(node("gpu-1", h100, gpus8), gpuTaint), node("cpu-1", nil, nil)}
			i.Jobs = []inventory.Workload{gpuWorkload("Job", "ml", "train", "nvidia.com/gpu")}
			i.Deployments = []inventory.Workload{gpuWorkload("Deployment", "ml", "serve", "nvidia.com/gpu", snapshot.Toleration{Key: "nvidia.com/gpu", Operator: "Exists"})}
		})), want: []string{"ml job/train (untolerated: nvidia.com/gpu=present:NoSchedule)"}},
		{name: "untainted GPU nodes", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Nodes = []inventory.Node{node("gpu-1", h100, gpus8)}
			i.Jobs = []inventory.Workload{gpuWorkload("Job", "ml", "train", "nvidia.com/gpu")}
		}))},
	},
	"gpu-resource-not-advertised": {
		{name: "GPU nodes advertise nothing", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Nodes = []inventory.Node{node("gpu-1", h100, nil), node("cpu-1", nil, nil)}
			i.Deployments = []inventory.Workload{gpuWorkload("Deployment", "ml", "serve", "nvidia.com/gpu")}
		})), want: []string{"ml deployment/serve requests nvidia.com/gpu; 1 nodes have GPU labels"}},
		{name: "a node advertises GPUs", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Nodes = []inventory.Node{node("gpu-1", h100, gpus8)}
			i.Deployments = []inventory.Workload{gpuWorkload("Deployment", "ml", "serve", "nvidia.com/gpu")}
		}))},
		{name: "a node selector hides the other nodes", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Scope.NodeSelector = "pool=cpu"
			i.Nodes = []inventory.Node{node("cpu-1", nil, nil)}
			i.Deployments = []inventory.Workload{gpuWorkload("Deployment", "ml", "serve", "nvidia.com/gpu")}
		}))},
	},
	"gpu-resource-name-mismatch": {
		{name: "MIG profile requested, whole GPUs advertised", inv: newInventory(with(func(i *inventory.Inventory) {
			l := labels("nvidia.com/gpu.present", "true", "nvidia.com/mig.strategy", "single")
			i.Nodes = []inventory.Node{node("gpu-1", l, gpus8)}
			i.Deployments = []inventory.Workload{gpuWorkload("Deployment", "ml", "infer", "nvidia.com/mig-1g.10gb"), gpuWorkload("Deployment", "ml", "serve", "nvidia.com/gpu")}
		})), want: []string{"ml deployment/infer requests nvidia.com/mig-1g.10gb; nodes advertise nvidia.com/gpu (nvidia.com/mig.strategy=single)"}},
		{name: "whole GPU requested, mixed strategy exposes slices", inv: newInventory(with(func(i *inventory.Inventory) {
			l := labels("nvidia.com/gpu.present", "true", "nvidia.com/mig.strategy", "mixed")
			i.Nodes = []inventory.Node{node("gpu-1", l, res("nvidia.com/mig-3g.40gb", "2"))}
			i.Jobs = []inventory.Workload{gpuWorkload("Job", "ml", "train", "nvidia.com/gpu")}
		})), want: []string{"ml job/train requests nvidia.com/gpu; nodes advertise nvidia.com/mig-3g.40gb (nvidia.com/mig.strategy=mixed)"}},
		{name: "names agree", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Nodes = []inventory.Node{node("gpu-1", h100, res("nvidia.com/gpu", "4", "nvidia.com/mig-1g.10gb", "14"))}
			i.Deployments = []inventory.Workload{gpuWorkload("Deployment", "ml", "infer", "nvidia.com/mig-1g.10gb"), gpuWorkload("Deployment", "ml", "serve", "nvidia.com/gpu")}
		}))},
	},
	"quota-exhausted": {
		{name: "GPU quota used up", inv: newInventory(with(func(i *inventory.Inventory) {
			i.ResourceQuotas = []inventory.NamespaceQuota{{Namespace: "ml", Name: "gpu", Hard: res("requests.nvidia.com/gpu", "4", "pods", "50"), Used: res("requests.nvidia.com/gpu", "4", "pods", "9")}}
		})), want: []string{"ml resourcequota/gpu"}, detail: "requests.nvidia.com/gpu 4/4"},
		{name: "room left", inv: newInventory(with(func(i *inventory.Inventory) {
			i.ResourceQuotas = []inventory.NamespaceQuota{{Namespace: "ml", Name: "gpu", Hard: res("requests.nvidia.com/gpu", "4"), Used: res("requests.nvidia.com/gpu", "2")}}
		}))},
	},
	"webhook-backend-not-ready": {
		{name: "Kyverno down, Fail", inv: newInventory(with(func(i *inventory.Inventory) {
			w := webhook("kyverno-resource", "Fail", inventory.LabelSelector{})
			w.Service = "kyverno/kyverno-svc"
			k := workload("Deployment", "kyverno", "kyverno", 3)
			k.ReadyReplicas = 0
			i.Webhooks, i.Deployments = []inventory.Webhook{w}, []inventory.Workload{k}
		})), want: []string{"validatingwebhookconfiguration/kyverno-resource webhook kyverno-resource.example.com"}, detail: "deployment/kyverno 0 of 3 ready"},
		{name: "backend ready", inv: newInventory(with(func(i *inventory.Inventory) {
			w := webhook("kyverno-resource", "Fail", inventory.LabelSelector{})
			w.Service = "kyverno/kyverno-svc"
			i.Webhooks, i.Deployments = []inventory.Webhook{w}, []inventory.Workload{workload("Deployment", "kyverno", "kyverno", 3)}
		}))},
		{name: "backend down but Ignore", inv: newInventory(with(func(i *inventory.Inventory) {
			w := webhook("kyverno-resource", "Ignore", inventory.LabelSelector{})
			w.Service = "kyverno/kyverno-svc"
			k := workload("Deployment", "kyverno", "kyverno", 3)
			k.ReadyReplicas = 0
			i.Webhooks, i.Deployments = []inventory.Webhook{w}, []inventory.Workload{k}
		}))},
	},
	"system-daemonset-unavailable": {
		{name: "CNI not ready on one node", inv: newInventory(with(func(i *inventory.Inventory) {
			d := workload("DaemonSet", "kube-system", "calico-node", 5)
			d.ReadyReplicas = 4
			i.DaemonSets = []inventory.Workload{d}
		})), want: []string{"kube-system daemonset/calico-node"}, detail: "4 of 5 pods ready"},
		{name: "all ready", inv: newInventory(with(func(i *inventory.Inventory) {
			i.DaemonSets = []inventory.Workload{workload("DaemonSet", "kube-system", "kube-proxy", 5)}
		}))},
	},
	"critical-daemonset-without-priority": {
		{name: "device plugin at default priority", inv: newInventory(with(func(i *inventory.Inventory) {
			d := workload("DaemonSet", "gpu-operator", "nvidia-device-plugin", 2)
			d.GPUComponent = "device-plugin"
			p := workload("DaemonSet", "kube-system", "kube-proxy", 2)
			p.Template.PriorityClassName = "system-node-critical"
			i.DaemonSets = []inventory.Workload{d, p}
		})), want: []string{"gpu-operator daemonset/nvidia-device-plugin"}, detail: "GPU stack: device-plugin"},
		{name: "application DaemonSets are not judged", inv: newInventory(with(func(i *inventory.Inventory) {
			i.DaemonSets = []inventory.Workload{workload("DaemonSet", "monitoring", "node-exporter", 2)}
		}))},
	},
	"pdb-blocks-drain": {
		{name: "minAvailable equals the replicas", inv: newInventory(with(func(i *inventory.Inventory) {
			i.PodDisruptionBudgets = []inventory.DisruptionBudget{{Namespace: "db", Name: "pg", MinAvailable: "1", ExpectedPods: 1, DisruptionsAllowed: 0}}
		})), want: []string{"db poddisruptionbudget/pg"}, detail: "minAvailable 1 over 1 pods, 0 disruptions allowed"},
		{name: "one disruption allowed", inv: newInventory(with(func(i *inventory.Inventory) {
			i.PodDisruptionBudgets = []inventory.DisruptionBudget{{Namespace: "kube-system", Name: "coredns", MaxUnavailable: "1", ExpectedPods: 2, DisruptionsAllowed: 1}}
		}))},
	},
}
