package gaps

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"casebook/internal/inventory"
	"casebook/internal/snapshot"
	"casebook/library"
)

type checkCase struct {
	name string
	inv  *inventory.Inventory
	// want lists the objects found; nil means the check must pass.
	want []string
	// detail, when set, must appear in the first object's detail.
	detail string
}

func with(f func(*inventory.Inventory)) func(*inventory.Inventory) { return f }

// shippedCases holds, for every check in library/checks, inventories in
// which the gap exists and inventories in which it does not.
var shippedCases = map[string][]checkCase{
	"single-control-plane-node": {
		{name: "one control-plane node", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Nodes = []inventory.Node{node("cp-1", labels("node-role.kubernetes.io/control-plane", ""), nil), node("w-1", nil, nil)}
		})), want: []string{"node/cp-1"}},
		{name: "three control-plane nodes", inv: newInventory(with(func(i *inventory.Inventory) {
			for _, n := range []string{"cp-1", "cp-2", "cp-3"} {
				i.Nodes = append(i.Nodes, node(n, labels("node-role.kubernetes.io/control-plane", ""), nil))
			}
		}))},
		{name: "managed control plane shows none", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Nodes = []inventory.Node{node("w-1", nil, nil)}
		}))},
	},
	"gpu-node-without-allocatable-gpu": {
		{name: "labelled H100 with no allocatable", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Nodes = []inventory.Node{node("gpu-1", h100, nil), node("gpu-2", h100, gpus8)}
		})), want: []string{"node/gpu-1"}, detail: "NVIDIA-H100-80GB-HBM3 but allocatable nvidia.com/gpu is 0"},
		{name: "NFD label, zero GPUs", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Nodes = []inventory.Node{node("gpu-1", labels("feature.node.kubernetes.io/pci-10de.present", "true"), res("nvidia.com/gpu", "0"))}
		})), want: []string{"node/gpu-1"}},
		{name: "MIG slices count", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Nodes = []inventory.Node{node("gpu-1", h100, res("nvidia.com/mig-1g.10gb", "7"))}
		}))},
		{name: "CPU node", inv: newInventory(with(func(i *inventory.Inventory) { i.Nodes = []inventory.Node{node("cpu-1", nil, nil)} }))},
	},
	"accelerated-hardware-not-ready": {
		{name: "False under Karpenter", inv: newInventory(with(func(i *inventory.Inventory) {
			n := node("gpu-1", h100, gpus8)
			n.Conditions = append(n.Conditions, snapshot.Condition{Type: "AcceleratedHardwareReady", Status: "False", Reason: "DCGMError", Message: "libdcgm.so not found"})
			i.Nodes = []inventory.Node{n}
		})), want: []string{"node/gpu-1"}, detail: "Karpenter node pool gpu may replace this node"},
		{name: "True", inv: newInventory(with(func(i *inventory.Inventory) {
			n := node("gpu-1", h100, gpus8)
			n.Conditions = append(n.Conditions, snapshot.Condition{Type: "AcceleratedHardwareReady", Status: "True"})
			i.Nodes = []inventory.Node{n}
		}))},
	},
	"karpenter-node-repair-gpu-pools": {
		{name: "repair on, GPU pool by requirement", inv: newInventory(with(func(i *inventory.Inventory) {
			k := workload("Deployment", "karpenter", "karpenter", 2)
			k.FeatureGates = "SpotToSpotConsolidation=false,NodeRepair=true"
			i.Deployments = []inventory.Workload{k}
			i.NodePools = []inventory.NodePool{
				{Name: "gpu", NodeClass: "EC2NodeClass/bottlerocket-gpu", Requirements: []snapshot.Requirement{{Key: "karpenter.k8s.aws/instance-family", Operator: "In", Values: []string{"g6e"}}}},
				{Name: "general", Requirements: []snapshot.Requirement{{Key: "karpenter.k8s.aws/instance-category", Operator: "In", Values: []string{"c", "m"}}}},
			}
		})), want: []string{"nodepool/gpu (EC2NodeClass/bottlerocket-gpu)"}},
		{name: "repair on, GPU pool seen through its nodes", inv: newInventory(with(func(i *inventory.Inventory) {
			k := workload("Deployment", "kube-system", "karpenter", 1)
			k.FeatureGates = "NodeRepair=true"
			i.Deployments = []inventory.Workload{k}
			i.NodePools = []inventory.NodePool{{Name: "gpu"}}
			i.Nodes = []inventory.Node{node("gpu-1", h100, gpus8)}
		})), want: []string{"nodepool/gpu"}},
		{name: "repair off", inv: newInventory(with(func(i *inventory.Inventory) {
			k := workload("Deployment", "karpenter", "karpenter", 2)
			k.FeatureGates = "NodeRepair=false"
			i.Deployments = []inventory.Workload{k}
			i.NodePools = []inventory.NodePool{{Name: "gpu", Taints: []snapshot.Taint{{Key: "nvidia.com/gpu", Effect: "NoSchedule"}}}}
		}))},
		{name: "repair on, no GPU pool", inv: newInventory(with(func(i *inventory.Inventory) {
			k := workload("Deployment", "karpenter", "karpenter", 2)
			k.FeatureGates = "NodeRepair=true"
			i.Deployments = []inventory.Workload{k}
			i.NodePools = []inventory.NodePool{{Name: "general", Requirements: []snapshot.Requirement{{Key: "karpenter.k8s.aws/instance-gpu-count", Operator: "DoesNotExist"}}}}
		}))},
	},
	"webhook-fail-intercepts-kube-system": {
		{name: "Fail, no namespace selector", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Webhooks = []inventory.Webhook{webhook("opa", "Fail", inventory.LabelSelector{})}
		})), want: []string{"validatingwebhookconfiguration/opa webhook opa.example.com"}, detail: "failurePolicy Fail, timeout 10s, backend policy/opa"},
		{name: "Fail, kube-system excluded", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Webhooks = []inventory.Webhook{webhook("opa", "Fail", inventory.LabelSelector{MatchExpressions: []snapshot.Requirement{
				{Key: "kubernetes.io/metadata.name", Operator: "NotIn", Values: []string{"kube-system"}}}})}
		}))},
		{name: "Fail, kube-system labelled to be ignored", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Namespaces[0].Labels["openpolicyagent.org/webhook"] = "ignore"
			i.Webhooks = []inventory.Webhook{webhook("opa", "Fail", inventory.LabelSelector{MatchExpressions: []snapshot.Requirement{
				{Key: "openpolicyagent.org/webhook", Operator: "DoesNotExist"}}})}
		}))},
		{name: "Ignore", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Webhooks = []inventory.Webhook{webhook("opa", "Ignore", inventory.LabelSelector{})}
		}))},
		{name: "cluster-scoped rules only", inv: newInventory(with(func(i *inventory.Inventory) {
			w := webhook("crd-guard", "Fail", inventory.LabelSelector{})
			w.Rules[0].Scope = "Cluster"
			i.Webhooks = []inventory.Webhook{w}
		}))},
	},
	"webhook-ca-bundle-expiring": {
		{name: "expires in a week", inv: newInventory(with(func(i *inventory.Inventory) {
			w := webhook("opa", "Ignore", inventory.LabelSelector{})
			w.CABundleNotAfter, w.CABundleSubject = collected.Add(7*24*time.Hour), "CN=opa-ca"
			i.Webhooks = []inventory.Webhook{w}
		})), want: []string{"validatingwebhookconfiguration/opa webhook opa.example.com"}, detail: "CN=opa-ca expires on 2026-03-08"},
		{name: "expired", inv: newInventory(with(func(i *inventory.Inventory) {
			w := webhook("opa", "Ignore", inventory.LabelSelector{})
			w.CABundleNotAfter = collected.Add(-time.Hour)
			i.Webhooks = []inventory.Webhook{w}
		})), want: []string{"validatingwebhookconfiguration/opa webhook opa.example.com"}, detail: "expired on 2026-03-01"},
		{name: "a year left", inv: newInventory(with(func(i *inventory.Inventory) {
			w := webhook("opa", "Ignore", inventory.LabelSelector{})
			w.CABundleNotAfter = collected.Add(365 * 24 * time.Hour)
			i.Webhooks = []inventory.Webhook{w}
		}))},
		{name: "no caBundle", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Webhooks = []inventory.Webhook{webhook("opa", "Ignore", inventory.LabelSelector{})}
		}))},
	},
	"coredns-single-replica": {
		{name: "one replica", inv: newInventory(with(func(i *inventory.Inventory) { i.Deployments = []inventory.Workload{dnsDeployment(1)} })),
			want: []string{"kube-system deployment/coredns"}},
		{name: "two replicas", inv: newInventory(with(func(i *inventory.Inventory) { i.Deployments = []inventory.Workload{dnsDeployment(2)} }))},
		{name: "one replica of something else", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Deployments = []inventory.Workload{workload("Deployment", "kube-system", "metrics-server", 1)}
		}))},
	},
	"coredns-memory-limit": {
		{name: "no limit", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Deployments = []inventory.Workload{dnsDeployment(2, container("coredns", res("cpu", "1")))}
		})), want: []string{"kube-system deployment/coredns"}, detail: "container coredns: no memory limit"},
		{name: "100Mi", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Deployments = []inventory.Workload{dnsDeployment(2, container("coredns", res("memory", "100Mi")))}
		})), want: []string{"kube-system deployment/coredns"}, detail: "memory limit 100Mi"},
		{name: "upstream 170Mi", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Deployments = []inventory.Workload{dnsDeployment(2, container("coredns", res("memory", "170Mi")))}
		}))},
	},
	"memory-limits-missing-shared-node": {
		{name: "unlimited pod beside another team", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Nodes = []inventory.Node{node("w-1", nil, nil)}
			i.Pods = []inventory.Pod{pod("team-a", "alert-0", "Deployment/elastalert", "w-1", container("main", res("cpu", "1"))), pod("team-b", "web-0", "", "w-1")}
		})), want: []string{"node/w-1"}, detail: "no memory limit: team-a Deployment/elastalert"},
		{name: "every pod limited", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Nodes = []inventory.Node{node("w-1", nil, nil)}
			i.Pods = []inventory.Pod{pod("team-a", "a-0", "", "w-1"), pod("team-b", "b-0", "", "w-1")}
		}))},
		{name: "a node of one team", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Nodes = []inventory.Node{node("w-1", nil, nil)}
			i.Pods = []inventory.Pod{pod("team-a", "a-0", "", "w-1", container("main", nil)), pod("team-a", "a-1", "", "w-1")}
		}))},
	},
	"job-without-limits-or-deadline": {
		{name: "reindex job", inv: newInventory(with(func(i *inventory.Inventory) {
			j := workload("Job", "search", "reindex", 1, container("reindex", nil))
			j.BackoffLimit = 6
			i.Jobs = []inventory.Workload{j}
		})), want: []string{"search job/reindex"}, detail: "backoffLimit 6, no activeDeadlineSeconds, no memory limit on reindex"},
		{name: "deadline set", inv: newInventory(with(func(i *inventory.Inventory) {
			j := workload("Job", "search", "reindex", 1, container("reindex", nil))
			j.ActiveDeadlineSeconds = 3600
			i.Jobs = []inventory.Workload{j}
		}))},
		{name: "limited", inv: newInventory(with(func(i *inventory.Inventory) { i.Jobs = []inventory.Workload{workload("Job", "search", "reindex", 1)} }))},
	},
	"replicas-on-one-node": {
		{name: "three replicas on one node", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Deployments = []inventory.Workload{workload("Deployment", "web", "api", 3)}
			for _, n := range []string{"api-1", "api-2", "api-3"} {
				i.Pods = append(i.Pods, pod("web", n, "Deployment/api", "w-1"))
			}
		})), want: []string{"web deployment/api"}, detail: "3 running replicas, all on node w-1"},
		{name: "spread", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Deployments = []inventory.Workload{workload("Deployment", "web", "api", 2)}
			i.Pods = []inventory.Pod{pod("web", "api-1", "Deployment/api", "w-1"), pod("web", "api-2", "Deployment/api", "w-2")}
		}))},
		{name: "one replica", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Deployments = []inventory.Workload{workload("Deployment", "web", "api", 1)}
			i.Pods = []inventory.Pod{pod("web", "api-1", "Deployment/api", "w-1")}
		}))},
	},
	"gpu-product-selector-no-node": {
		{name: "near-miss product", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Nodes = []inventory.Node{node("gpu-1", h100, gpus8)}
			p := pod("ml", "train-0", "Job/train", "")
			p.Phase, p.Ready = "Pending", false
			p.Spec.NodeSelector["nvidia.com/gpu.product"] = "NVIDIA-H100-SXM5-80GB"
			i.Pods = []inventory.Pod{p}
		})), want: []string{"ml pod/train-0"}, detail: "Job/train: selects nvidia.com/gpu.product=NVIDIA-H100-SXM5-80GB; nodes carry NVIDIA-H100-80GB-HBM3"},
		{name: "exact product", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Nodes = []inventory.Node{node("gpu-1", h100, gpus8)}
			p := pod("ml", "train-0", "", "gpu-1")
			p.Spec.NodeSelector["nvidia.com/gpu.product"] = "NVIDIA-H100-80GB-HBM3"
			i.Pods = []inventory.Pod{p}
		}))},
	},
	"removed-master-label-selector": {
		{name: "route reflector DaemonSet", inv: newInventory(with(func(i *inventory.Inventory) {
			ds := workload("DaemonSet", "kube-system", "calico-rr", 3)
			ds.Template.NodeSelector["node-role.kubernetes.io/master"] = ""
			d := workload("Deployment", "ops", "backup", 1)
			d.Template.NodeAffinity = []snapshot.NodeSelectorTerm{{MatchExpressions: []snapshot.Requirement{{Key: "node-role.kubernetes.io/master", Operator: "Exists"}}}}
			i.DaemonSets, i.Deployments = []inventory.Workload{ds}, []inventory.Workload{d}
		})), want: []string{"Deployment ops/backup", "DaemonSet kube-system/calico-rr"}},
		{name: "control-plane label", inv: newInventory(with(func(i *inventory.Inventory) {
			ds := workload("DaemonSet", "kube-system", "calico-rr", 3)
			ds.Template.NodeSelector["node-role.kubernetes.io/control-plane"] = ""
			i.DaemonSets = []inventory.Workload{ds}
		}))},
	},
	"gpu-pool-os-drift": {
		{name: "one node on a newer kernel", inv: newInventory(with(func(i *inventory.Inventory) {
			a, b, c := node("gpu-1", h100, gpus8), node("gpu-2", h100, gpus8), node("cpu-1", nil, nil)
			b.KernelVersion = "6.1.0-2"
			c.KernelVersion = "6.8.0"
			i.Nodes = []inventory.Node{a, b, c}
		})), want: []string{"pool gpu: Ubuntu 22.04, kernel 5.15.0-1 / Ubuntu 22.04, kernel 6.1.0-2"}},
		{name: "uniform pool, other pool differs", inv: newInventory(with(func(i *inventory.Inventory) {
			l4 := labels("nvidia.com/gpu.present", "true", "eks.amazonaws.com/nodegroup", "l4")
			a, b, c := node("gpu-1", h100, gpus8), node("gpu-2", h100, gpus8), node("l4-1", l4, gpus8)
			c.OSImage = "Amazon Linux 2023"
			i.Nodes = []inventory.Node{a, b, c}
		}))},
	},
	"device-plugin-not-ready-on-gpu-node": {
		{name: "one GPU node without, one with a crashing plugin", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Nodes = []inventory.Node{node("gpu-1", h100, gpus8), node("gpu-2", h100, nil), node("gpu-3", h100, res("nvidia.com/gpu", "0")), node("cpu-1", nil, nil)}
			ok, bad := pod("gpu-operator", "dp-1", "DaemonSet/nvidia-device-plugin", "gpu-1"), pod("gpu-operator", "dp-2", "DaemonSet/nvidia-device-plugin", "gpu-2")
			ok.GPUComponent, bad.GPUComponent, bad.Ready = "device-plugin", "device-plugin", false
			i.Pods = []inventory.Pod{ok, bad}
		})), want: []string{"node/gpu-2", "node/gpu-3"}, detail: "device plugin pod gpu-operator/dp-2 (Running) is not Ready"},
		{name: "allocatable GPUs prove a plugin whose pod is not in the read", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Nodes = []inventory.Node{node("gke-gpu-1", labels("cloud.google.com/gke-accelerator", "nvidia-l4", "nvidia.com/gpu.present", "true"), gpus8)}
		}))},
		{name: "every GPU node covered", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Nodes = []inventory.Node{node("gpu-1", h100, gpus8), node("cpu-1", nil, nil)}
			p := pod("gpu-operator", "dp-1", "DaemonSet/nvidia-device-plugin", "gpu-1")
			p.GPUComponent = "device-plugin"
			i.Pods = []inventory.Pod{p}
		}))},
	},
	"gpu-stack-daemonset-unavailable": {
		{name: "driver not ready on a node", inv: newInventory(with(func(i *inventory.Inventory) {
			d := workload("DaemonSet", "gpu-operator", "nvidia-driver-daemonset", 3)
			d.GPUComponent, d.ReadyReplicas = "driver", 2
			i.DaemonSets = []inventory.Workload{d}
		})), want: []string{"gpu-operator daemonset/nvidia-driver-daemonset"}, detail: "driver: 2 of 3 pods ready"},
		{name: "device plugin is another check's", inv: newInventory(with(func(i *inventory.Inventory) {
			d := workload("DaemonSet", "gpu-operator", "nvidia-device-plugin", 3)
			d.GPUComponent, d.ReadyReplicas = "device-plugin", 0
			i.DaemonSets = []inventory.Workload{d}
		}))},
		{name: "all ready", inv: newInventory(with(func(i *inventory.Inventory) {
			d := workload("DaemonSet", "gpu-operator", "nvidia-container-toolkit-daemonset", 3)
			d.GPUComponent = "toolkit"
			i.DaemonSets = []inventory.Workload{d}
		}))},
	},
	"gke-containerd2-gpu-toolkit": {
		{name: "GKE 1.33 GPU node with the toolkit", inv: newInventory(with(func(i *inventory.Inventory) {
			n := node("gke-gpu-1", labels("cloud.google.com/gke-nodepool", "gpu", "nvidia.com/gpu.present", "true"), gpus8)
			n.ContainerRuntimeVersion = "containerd://2.0.4"
			d := workload("DaemonSet", "gpu-operator", "nvidia-container-toolkit-daemonset", 1)
			d.GPUComponent = "toolkit"
			i.Nodes, i.DaemonSets = []inventory.Node{n}, []inventory.Workload{d}
		})), want: []string{"node/gke-gpu-1"}, detail: "containerd://2.0.4, node pool gpu"},
		{name: "containerd 1.7", inv: newInventory(with(func(i *inventory.Inventory) {
			n := node("gke-gpu-1", labels("cloud.google.com/gke-nodepool", "gpu", "nvidia.com/gpu.present", "true"), gpus8)
			n.ContainerRuntimeVersion = "containerd://1.7.24"
			d := workload("DaemonSet", "gpu-operator", "nvidia-container-toolkit-daemonset", 1)
			d.GPUComponent = "toolkit"
			i.Nodes, i.DaemonSets = []inventory.Node{n}, []inventory.Workload{d}
		}))},
	},
}

// TestShippedChecks evaluates every check of library/checks, with real
// CEL, on inventories that hold its gap and inventories that do not.
func TestShippedChecks(t *testing.T) {
	set, problems := Load(library.FS)
	if len(problems) > 0 {
		t.Fatalf("checks have problems: %v", problems)
	}
	for _, c := range set.Checks {
		cases := shippedCases[c.ID]
		found, passed := 0, 0
		for _, tc := range cases {
			t.Run(c.ID+"/"+tc.name, func(t *testing.T) {
				one := &Set{Checks: []*Check{c}}
				r := one.Run(context.Background(), tc.inv, Limits{}).Results[0]
				if tc.want == nil {
					if r.Status != StatusPassed {
						t.Fatalf("status %s (%s), objects %v; want passed", r.Status, r.Error, r.Objects)
					}
					return
				}
				if r.Status != StatusFound {
					t.Fatalf("status %s (%s); want found %v", r.Status, r.Error, tc.want)
				}
				var got []string
				for _, o := range r.Objects {
					got = append(got, o.Object)
				}
				if !slices.Equal(got, tc.want) {
					t.Errorf("objects %q, want %q", got, tc.want)
				}
				if tc.detail != "" && !strings.Contains(r.Objects[0].Detail, tc.detail) {
					t.Errorf("detail %q, want it to contain %q", r.Objects[0].Detail, tc.detail)
				}
				if strings.Contains(r.Message, "{") {
					t.Errorf("message has an unfilled placeholder: %s", r.Message)
				}
			})
			if tc.want == nil {
				passed++
			} else {
				found++
			}
		}
		if found == 0 || passed == 0 {
			t.Errorf("check %s needs at least one inventory that holds its gap and one that does not (has %d and %d)", c.ID, found, passed)
		}
	}
	for id := range shippedCases {
		if _, ok := set.Check(id); !ok {
			t.Errorf("cases for %s, which is not a shipped check", id)
		}
	}
}
