package probe

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"casebook/internal/snapshot"
	"casebook/internal/triage"
	"casebook/library"
)

func loadCatalog(t *testing.T) *triage.Catalog {
	t.Helper()
	cat, problems := triage.Load(library.FS)
	for _, p := range problems {
		t.Logf("library problem: %s", p)
	}
	return cat
}

func loadFile(t *testing.T, name string) *snapshot.Snapshot {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	snaps, err := snapshot.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return &snaps[0]
}

func TestProbes(t *testing.T) {
	cat := loadCatalog(t)
	tests := []struct {
		file, probe string
		want        string // "" means unknown
		evidence    []string
	}{
		{"taint.json", "pod-symptom", "pending", []string{"PodScheduled"}},
		{"taint.json", "scheduler-message", "taint", []string{"had untolerated taint(s)", "node/gpu-1 spec.taints: nvidia.com/gpu=present:NoSchedule"}},
		{"taint.json", "preemption-expected", "no", nil},
		{"selector.json", "scheduler-message", "selector", []string{"nvidia.com/gpu.product=NVIDIA-H100-SXM5-80GB", "nearest: nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3 on node/gpu-1"}},
		{"four-gpu.json", "scheduler-message", "insufficient", []string{"Insufficient nvidia.com/gpu", "allocatable 4, requested 2, free 2"}},
		{"four-gpu.json", "preemption-expected", "no", []string{"spec.priority: 0"}},
		{"preempt.json", "preemption-expected", "yes", []string{"spec.priority: 100000 - priorityClassName inference-critical", "No preemption victims found"}},
		{"four-gpu.json", "gpu-allocatable", "yes", []string{"4 free in total across 2 nodes, but no single node has 4 free"}},
		{"quota.json", "pod-symptom", "pending", []string{"exceeded quota"}},
		{"quota.json", "scheduler-message", "quota", []string{"resourcequota/gpu-quota requests.nvidia.com/gpu: used 4 / hard 4"}},
		{"cordoned.json", "scheduler-message", "unschedulable", []string{"node/gpu-1 spec.unschedulable: true"}},
		{"pvc.json", "scheduler-message", "volume", []string{"persistentvolumeclaim/data-db-0 status.phase: Pending", "no storage class is set"}},
		{"oom.json", "pod-symptom", "restarts", nil},
		{"oom.json", "container-state", "oomkilled", []string{"reason OOMKilled, exitCode 137", "resources.limits.memory: 512Mi"}},
		{"secret-missing.json", "container-state", "config-error", []string{"CreateContainerConfigError", `secret "db-credentials" not found`}},
		{"job-failed.json", "pod-symptom", "workload", []string{"BackoffLimitExceeded", "exitCode 2"}},
		{"job-failed.json", "workload-state", "job-failed", []string{"status.conditions[Failed]: BackoffLimitExceeded", "reason Error, exitCode 2"}},
		{"rollout-stuck.json", "workload-state", "rollout-stuck", []string{"status.conditions[Progressing]: ProgressDeadlineExceeded", "1 of 3"}},
		{"evicted.json", "container-state", "evicted", []string{"The node was low on resource: memory", "node/cpu-1 status.conditions[MemoryPressure]: True"}},
		{"gpu-lost.json", "pod-symptom", "gpu-missing", []string{"node/gpu-1 status.allocatable[nvidia.com/gpu]: 0", "nvidia.com/gpu.present=true"}},
		{"gpu-lost.json", "gpu-allocatable", "no", []string{"node/gpu-1"}},
		{"gpu-lost.json", "gpu-driver", "ok", []string{"nvidia-driver-daemonset-a"}},
		{"gpu-lost.json", "gpu-toolkit", "ok", nil},
		{"gpu-lost.json", "device-plugin", "", nil},
		{"gpu-lost-logs.json", "device-plugin", "failing", []string{"Failed to initialize NVML"}},
		{"plugin-notready.json", "device-plugin", "failing", []string{"not Ready, CrashLoopBackOff, 7 restarts"}},
		{"mig.json", "device-plugin", "ok", nil},
		{"mig.json", "gpu-resource-name", "mismatch", []string{"nvidia.com/mig-1g.10gb", "nvidia.com/mig.strategy=mixed"}},
		{"mig.json", "gpu-node-health", "healthy", nil},
		{"hw-unhealthy.json", "gpu-node-health", "unhealthy", []string{"status.conditions[AcceleratedHardwareReady]: False - NvidiaXID79Error GPU has fallen off the bus"}},
		{"forbidden.json", "scheduler-message", "taint", []string{"status.conditions[PodScheduled].message", "needs list nodes"}},
		{"forbidden.json", "gpu-allocatable", "", nil},
		{"mixed.json", "scheduler-message", "insufficient", []string{"node/gpu-1 nvidia.com/gpu: allocatable 4", "no single node has 4 free"}},
		{"mixed-forbidden.json", "scheduler-message", "", nil},
		// Snapshots read on the harness with kube-controller-manager running
		// (internal/cluster TestLiveTriageWithControllers, CASEBOOK_SNAPSHOT_SAVE).
		{"quota-partial.json", "pod-symptom", "pending", []string{"exceeded quota"}},
		{"quota-partial.json", "scheduler-message", "quota", []string{"3 wanted, 2 ready", "used 2 / hard 2"}},
		{"mig-name.json", "pod-symptom", "pending", nil},
		{"mig-name.json", "gpu-allocatable", "other-name", []string{"status.allocatable: nvidia.com/gpu", "the pod requests nvidia.com/mig-1g.10gb; label nvidia.com/mig.strategy=single"}},
		{"no-amd-gpu.json", "gpu-allocatable", "nowhere", []string{"status.allocatable[amd.com/gpu]: absent on all"}},
		{"scheduler-silent.json", "scheduler-message", "", []string{"spec.schedulerName: volcano - no event from volcano"}},
		{"scheduler-yunikorn.json", "scheduler-message", "quota", []string{"yunikorn: Task", "queue quota has been exceed"}},
		{"dra-no-slices.json", "scheduler-message", "dra", []string{"status.allocation: none", "driver: gpu.example.com", "resourceslices spec.driver=gpu.example.com: none"}},
		{"probe-liveness.json", "pod-symptom", "probe-failure", []string{"failed liveness probe, will be restarted"}},
		{"probe-liveness.json", "probe-failure", "liveness", []string{"Liveness probe failed"}},
		{"node-unknown.json", "pod-symptom", "node-not-ready", []string{"Unknown NodeStatusUnknown"}},
		{"node-unknown.json", "node-ready-condition", "stopped-posting", []string{"Kubelet stopped posting node status."}},
		// Issue 31's everyday situations, read on the controller harness
		// (internal/cluster TestLiveEverydayFailures, CASEBOOK_SNAPSHOT_SAVE).
		{"service-no-endpoints-live.json", "pod-symptom", "traffic", []string{"spec.selector: app=checkout"}},
		{"service-no-endpoints-live.json", "traffic-path", "no-endpoints", []string{"spec.selector: app=checkout - matches 0 pods", "endpointslices: 0 ready, 0 not ready", "metadata.labels: app=checkout-v2"}},
		{"ingress-missing-service-live.json", "traffic-path", "ingress", []string{"backend.service: shop-frontend:80 - Service shop-frontend does not exist", "secretName: shop-tls - referenced only"}},
		{"hpa-no-metrics-live.json", "pod-symptom", "autoscaling", []string{"FailedGetResourceMetric"}},
		{"hpa-no-metrics-live.json", "autoscaling-state", "hpa", []string{"status.conditions[ScalingActive]: False FailedGetResourceMetric", "unable to fetch metrics from resource metrics API"}},
		{"webhook-no-backend-live.json", "pod-symptom", "api-refused", []string{"failed calling webhook"}},
		{"webhook-no-backend-live.json", "api-refusal", "webhook", []string{"failed calling webhook", "failurePolicy Fail: the Service does not exist"}},
		{"webhook-no-backend-live.json", "scheduler-message", "", nil},
		{"rollout-not-ready-live.json", "workload-state", "rollout-stuck", []string{"ProgressDeadlineExceeded", "0 of 1"}},
		{"service-no-endpoints-live.json", "api-refusal", "", nil},
		{"taint.json", "traffic-path", "", nil},
		{"taint.json", "autoscaling-state", "", nil},
		{"taint.json", "storage-state", "", nil},
		{"taint.json", "cpu-throttling", "", nil},
		{"taint.json", "previous-log", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.file+"/"+tt.probe, func(t *testing.T) {
			s := loadFile(t, tt.file)
			r := Answer(s, tt.probe, cat)
			if got := map[bool]string{true: r.Value}[r.Known]; got != tt.want {
				t.Fatalf("value = %q (known %v, note %q), want %q; evidence:\n%s", r.Value, r.Known, r.Note, tt.want, evidenceText(r))
			}
			text := evidenceText(r)
			for _, want := range tt.evidence {
				if !strings.Contains(text, want) {
					t.Errorf("evidence lacks %q:\n%s", want, text)
				}
			}
			if !r.Known && r.Note == "" {
				t.Error("an unknown answer must say why")
			}
		})
	}
}

func evidenceText(r Result) string {
	var b strings.Builder
	for _, e := range r.Evidence {
		b.WriteString(e.String() + "\n")
	}
	return b.String()
}

func TestForbiddenNamesPermission(t *testing.T) {
	s := loadFile(t, "forbidden.json")
	r := Answer(s, "gpu-allocatable", nil)
	if r.Known || !strings.Contains(r.Note, "needs list nodes") {
		t.Fatalf("got %+v, want unknown naming the permission", r)
	}
}

func TestWalkRoutes(t *testing.T) {
	cat := loadCatalog(t)
	tests := []struct {
		file      string
		wantRoute string // "" when the walk must stop at wantAsk
		wantAsk   string
	}{
		{"taint.json", "pending/untolerated-taint", ""},
		{"selector.json", "pending/node-selector-mismatch", ""},
		{"four-gpu.json", "pending/insufficient-resources", ""},
		{"quota.json", "pending/resource-quota", ""},
		{"cordoned.json", "pending/unschedulable-node", ""},
		{"pvc.json", "pending/volume", ""},
		{"oom.json", "memory/oomkilled", ""},
		{"evicted.json", "memory/node-pressure-eviction", ""},
		{"gpu-lost.json", "", "gpu-device-plugin"},
		{"gpu-lost-logs.json", "gpu/device-plugin", ""},
		{"plugin-notready.json", "gpu/device-plugin", ""},
		{"mig.json", "gpu/operator-policy", ""},
		{"quota-partial.json", "pending/resource-quota", ""},
		{"mig-name.json", "gpu/operator-policy", ""},
		{"no-amd-gpu.json", "pending/insufficient-resources", ""},
		{"secret-missing.json", "pod/config-error", ""},
		{"job-failed.json", "workload/job-failed", ""},
		{"rollout-stuck.json", "workload/rollout-stuck", ""},
		{"scheduler-silent.json", "", "pending-reason"},
		{"scheduler-yunikorn.json", "pending/resource-quota", ""},
		{"dra-no-slices.json", "pending/dra-claim-unallocated", ""},
		{"probe-liveness.json", "pod/probe-failure", ""},
		{"node-unknown.json", "node/not-ready", ""},
		{"mixed.json", "pending/insufficient-resources", ""},
		{"preempt.json", "pending/preemption-failed", ""},
		{"mixed-forbidden.json", "", "pending-reason"},
		{"service-no-endpoints-live.json", "network/service-no-endpoints", ""},
		{"ingress-missing-service-live.json", "network/ingress-errors", ""},
		{"hpa-no-metrics-live.json", "autoscaling/hpa-not-scaling", ""},
		{"webhook-no-backend-live.json", "control-plane/webhook-failure", ""},
		{"rollout-not-ready-live.json", "workload/rollout-stuck", ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			s := loadFile(t, tt.file)
			w, err := cat.Walk(triage.State{Tree: cat.Root().ID}, triage.Hints{Cluster: NewProber(s, cat)})
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantRoute != "" {
				if !w.Node.IsOutcome() || w.Node.Outcome.Route != tt.wantRoute {
					t.Fatalf("walk ended at %s, want route %s", w.Node.ID, tt.wantRoute)
				}
				return
			}
			if w.Node.ID != tt.wantAsk {
				t.Fatalf("walk stopped at %s, want question %s", w.Node.ID, tt.wantAsk)
			}
		})
	}
}

func TestTriageReport(t *testing.T) {
	cat := loadCatalog(t)
	rep, err := Triage(cat, loadFile(t, "taint.json"))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Route != "pending/untolerated-taint" || rep.Section != "cause-c-untolerated-taint" {
		t.Fatalf("route %s#%s", rep.Route, rep.Section)
	}
	if len(rep.Steps) != 2 || rep.Steps[1].Probe != "scheduler-message" || len(rep.Steps[1].Evidence) < 2 {
		t.Fatalf("steps: %+v", rep.Steps)
	}
	rep, err = Triage(cat, loadFile(t, "gpu-lost.json"))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Ask == nil || rep.Ask.Question != "gpu-device-plugin" || !strings.Contains(rep.Ask.Why, "--read-logs") {
		t.Fatalf("ask: %+v", rep.Ask)
	}
}
