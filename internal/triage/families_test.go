package triage

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFamilies checks, per family of messages that real GPU clusters
// print, real texts from the corpus's dev split, the even half of
// holdout2 and holdout3 once its blind figure was taken (and hand-written pastes
// where the corpus has none of that shape): the route and the line that
// proves it. A family that regresses fails here by name, before the
// corpus-wide accuracy moves.
func TestFamilies(t *testing.T) {
	c := loadReal(t)
	cases := []struct {
		family, file, route, evidence string
	}{
		{"DRA: scheduler waits for the driver", "corpus/c205-dra-example-reserve-waiting-for-driver.txt", "pending/dra-claim-unallocated", "waiting for resource driver to allocate resource"},
		{"DRA: kubelet plugin not registered", "corpus/c206-dra-compute-domain-driver-not-registered.txt", "pending/dra-claim-unallocated", "is not registered"},
		{"DRA: driver controller pending claims", "corpus/c014-dra-controller-pending-pod-claims-mig.txt", "pending/dra-claim-unallocated", "pending pod claims"},
		{"DRA: claim listed pending", "pastes/094-resourceclaim-pending.txt", "pending/dra-claim-unallocated", "pending"},
		{"MIG: request and node names differ", "pastes/095-mig-name-mismatch.txt", "gpu/operator-policy", "nvidia.com/mig-1g.5gb"},
		{"MIG: profile short in an autoscaler message", "corpus/c013-aks-mig-1g10gb-autoscaler-decoy.txt", "gpu/operator-policy", "Insufficient nvidia.com/mig-1g.10gb"},
		{"MIG: mig-manager log", "corpus/c232-mig-manager-rtx-pro-6000-config-fails.txt", "gpu/operator-policy", "Updating to MIG config"},
		{"Kueue: borrowing limit", "corpus/c010-kueue-borrowing-limit-exceeded.txt", "pending/resource-quota", "borrowing limit for cpu"},
		{"Kueue: insufficient quota (zh docs)", "corpus/c145-kueue-docs-zh-pending-insufficient-quota.txt", "pending/resource-quota", "insufficient quota for cpu"},
		{"Volcano: queue quota", "corpus/c007-volcano-queue-limit-instances-not-created.txt", "pending/resource-quota", "queue resource quota insufficient"},
		{"Volcano: gang unschedulable", "corpus/c008-volcano-gang-notenoughresources.txt", "pending/insufficient-resources", "tasks in gang unschedulable"},
		{"Volcano: cannot preempt", "corpus/c152-volcano-two-task-job-cannot-preempt-gpu.txt", "pending/preemption-failed", "cannot preempt"},
		{"Volcano: cannot preempt (paste)", "pastes/096-volcano-cannot-preempt.txt", "pending/preemption-failed", "cannot preempt"},
		{"KAI: no nodes with enough resources", "corpus/c017-kai-no-nodes-enough-gpus-aks.txt", "pending/insufficient-resources", "No nodes with enough resources were found"},
		{"HAMi: node scores do not meet", "corpus/c002-hami-extender-request-exceeds-devices.txt", "pending/insufficient-resources", "all node scores do not meet"},
		{"EKS node monitoring agent: DCGM", "corpus/c089-eks-nma-dcgm-health-codes-repair.txt", "gpu/node-health", "DCGMHealthCode"},
		{"NVRM: fallen off the bus over lines", "corpus/c082-dmesg-gpu-fallen-off-no-xid.txt", "gpu/node-health", "fallen off the bus"},
		{"vLLM v1: waiting queue", "corpus/c127-vllm-mtp-waiting-43-kv-96.txt", "llm/latency", "Waiting: 43 reqs"},
		{"vLLM v0: pending queue", "corpus/c128-vllm-stuck-pending-115-kv-99.txt", "llm/latency", "Pending: 115 reqs"},
		{"etcd: slow range requests", "corpus/c067-etcd-range-took-too-long-openstack.txt", "control-plane/api-overload", "took too long"},
		{"apiserver: 429 in its log", "corpus/c064-apiserver-429-kube-proxy-list.txt", "control-plane/api-overload", "429"},
		{"cordoned by automation", "corpus/c119-kubespray-drain-pdb-ansible-output.txt", "pending/unschedulable-node", "disruption budget"},
		{"legacy fit failure summary", "corpus/c239-kops-matchnodeselector-2-taints-1.txt", "pending/node-selector-mismatch", "MatchNodeSelector"},
		{"etcd: heartbeat late, server overloaded", "corpus/c418-kcm-248-restarts-etcd-likely-overloaded.txt", "control-plane/api-overload", "failed to send out heartbeat on time"},
		{"apiserver: slow requests in its httplog", "corpus/c282-apiserver-list-requests-15-minutes.txt", "control-plane/api-overload", "(15m39.753840196s) 200"},
		{"kubelet unit exits (systemd)", "corpus/c364-zh-kubeasz-aio-kubelet-exit-255.txt", "node/not-ready", "kubelet.service: Main process exited"},
		{"drain refused by a PDB, through Ansible", "corpus/c394-ansible-drain-too-many-requests-pdb.txt", "pending/unschedulable-node", "Drain node"},
		{"claim bound to a deleted volume", "corpus/c366-mariadb-pvc-bound-nonexistent-pv.txt", "pending/volume", "bound to non-existent persistentvolume"},
		{"GKE: XidCriticalError node condition", "corpus/c414-gke-xidcriticalerror-node-condition.txt", "gpu/node-health", "XidCriticalError     True"},
		{"device plugin without NVML", "corpus/c444-device-plugin-opt-nvidia-lib64-nvml-not-detected.txt", "gpu/device-plugin", "NVML"},
		{"control plane taint on describe node", "corpus/c326-microk8s-master-noschedule-describe-node.txt", "pending/untolerated-taint", "node-role.kubernetes.io/master:NoSchedule"},
		{"application exits on a refused database", "corpus/c358-katib-db-manager-mysql-refused.txt", "pod/crashloop", "3306: connect: connection refused"},
		{"LLM serving slow while requests queue (zh prose)", "corpus/c316-zh-vllm-queueing-slow-8x4090.txt", "llm/latency", "推理速度很慢"},
		{"GPU Operator driver pod crash-looping", "pastes/097-operator-driver-pod-crashloop.txt", "gpu/driver", "nvidia-driver-daemonset-6xzh7"},
		{"libnvidia-container: mount error", "corpus/c478-docker-persistenced-socket-mount-error.txt", "gpu/container-toolkit", "nvidia-container-cli: mount error"},
		{"toolkit CDI spec behind ClusterPolicy notReady states", "corpus/c484-operator-cdi-spec-lstat-nvidiactl-validation-notready.txt", "gpu/container-toolkit", "failed to generate spec"},
		{"driver container build: kernel build dir missing", "corpus/c462-driver-build-dir-missing-rancher.txt", "gpu/driver", "/lib/modules/5.15.0-60-generic/build: No such file or directory"},
		{"driver DaemonSet with no pod ready", "corpus/c459-driver-daemonset-not-ready-kernel-label.txt", "gpu/driver", "nvidia-driver-daemonset"},
		{"Karpenter: selected label no NodePool has", "corpus/c497-karpenter-nodegroup-label-no-known-values.txt", "pending/node-selector-mismatch", "does not have known values"},
		{"Karpenter: GPU pool taint beside the real reason", "corpus/c495-karpenter-gpu-taint-and-unknown-nodegroup-label.txt", "pending/node-selector-mismatch", "does not have known values"},
		{"DRA: PreFilter status before a lone preemption tail", "corpus/c476-dra-example-waiting-for-resourceclaim-containercreating.txt", "pending/dra-claim-unallocated", "waiting for dynamic resource controller"},
		{"ClusterPolicy turns the device plugin off (ko)", "corpus/c494-eks-device-plugin-disabled-insufficient-gpu-ko.txt", "gpu/operator-policy", "devicePlugin.enabled: false"},
	}
	for _, tc := range cases {
		t.Run(tc.family, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			text := string(data)
			if filepath.Dir(tc.file) == "corpus" {
				ct, err := parseCorpusText(data)
				if err != nil {
					t.Fatal(err)
				}
				ct.Name = filepath.Base(tc.file)
				if v := view(ct); v != "dev" && v != "holdout2-dev" && v != "holdout3" {
					t.Fatalf("%s is in %s; family tests use texts read for tuning only (dev, holdout2-dev, holdout3)", tc.file, v)
				}
				text = ct.Text
			}
			res := c.Classify(text)
			if len(res.Routes) == 0 || res.Routes[0].Route != tc.route {
				t.Fatalf("want %s first, got %+v", tc.route, res.Routes)
			}
			if !evidenceShows(res.Routes[0], tc.evidence) {
				t.Errorf("evidence does not show %q: %+v", tc.evidence, res.Routes[0].Evidence)
			}
		})
	}
}
