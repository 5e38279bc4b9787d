package cluster_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"casebook/internal/cluster"
	"casebook/internal/probe"
	"casebook/internal/snapshot"
	"casebook/internal/triage"
	"casebook/library"
)

// controllersEnv names the admin kubeconfig of a harness started with
// --with-controllers, where kube-controller-manager turns workloads into
// pods, counts quota usage and creates ResourceClaims from templates.
const controllersEnv = "CASEBOOK_KUBEHARNESS_CONTROLLERS_KUBECONFIG"

func controllerHarness(t *testing.T) *rest.Config {
	t.Helper()
	path := os.Getenv(controllersEnv)
	if path == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set: CI must start a harness with controllers (scripts/kubeharness.sh start --with-controllers)", controllersEnv)
		}
		t.Skipf("%s is not set; start a harness with scripts/kubeharness.sh start --with-controllers", controllersEnv)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatalf("harness kubeconfig %s: %v", path, err)
	}
	cfg.QPS, cfg.Burst = 100, 200
	return cfg
}

// TestLiveTriageWithControllers triages, as the read-only ServiceAccount,
// workloads whose pods the real controllers create (or refuse), on the real
// scheduler: a Deployment some of whose replicas a quota forbids, a MIG
// profile requested where nodes advertise whole GPUs, a GPU resource no node
// has, pods waiting for a scheduler that does not run or that gives its own
// reason, and a DRA claim whose driver publishes no devices.
func TestLiveTriageWithControllers(t *testing.T) {
	admin := controllerHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c := kubernetes.NewForConfigOrDie(admin)
	applyRBAC(t, ctx, c)
	w := &world{t: t, ctx: ctx, c: c, admin: admin, id: runID(t)}
	scenarios := w.buildWithControllers()

	ro := tokenConfig(t, ctx, admin, c, "casebook", "casebook")
	r, err := cluster.NewReader(ro, cluster.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cat, _ := triage.Load(library.FS)
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			s, err := r.Collect(ctx, sc.ns, sc.target)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range s.ReadErrors {
				t.Errorf("read error as the read-only ServiceAccount: %s (%s): %s", e.What, e.Kind, e.Message)
			}
			rep, err := probe.Triage(cat, s)
			if err != nil {
				t.Fatal(err)
			}
			checkReport(t, rep, sc)
			// CASEBOOK_SNAPSHOT_SAVE=DIR writes each snapshot, the source
			// of internal/probe/testdata's fixtures for these cases.
			if dir := os.Getenv("CASEBOOK_SNAPSHOT_SAVE"); dir != "" {
				var buf bytes.Buffer
				if err := snapshot.Encode(&buf, s); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, sc.file), buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func (w *world) buildWithControllers() []scenario {
	qns, ns := w.namespace("team-quota"), w.namespace("team-c")
	var out []scenario

	// Three replicas, a quota of two pods: the controllers create two,
	// the scheduler binds them, the kubelet (the test) runs them, and the
	// ReplicaSet records FailedCreate for the third.
	w.node("cq", nodeSpec{pool: "cq"})
	w.quotaPods(qns, "pods", "2")
	web := w.deployment(qns, "web", 3, corev1.PodSpec{NodeSelector: map[string]string{poolLabel: w.name("cq")},
		Containers: []corev1.Container{{Name: "main", Image: "registry.example/web:1", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}}}})
	w.waitPods(qns, "app=web", 2)
	for _, p := range w.listPods(qns, "app=web") {
		w.waitBound(qns, p.Name)
		w.running(qns, p.Name)
	}
	w.waitFailedCreate(qns, web)
	out = append(out, scenario{name: "quota forbids some replicas", file: "quota-partial.json", ns: qns, target: "deployment/web",
		wantRoute: "pending/resource-quota", evidence: []string{"exceeded quota", "3 wanted, 2 ready"}})

	// A MIG profile where the node advertises whole GPUs (single strategy).
	w.node("mig", nodeSpec{pool: "mig", alloc: gpus("8"), labels: map[string]string{
		"nvidia.com/gpu.present": "true", "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB", "nvidia.com/mig.strategy": "single"}})
	w.deployment(ns, "infer", 1, corev1.PodSpec{NodeSelector: map[string]string{poolLabel: w.name("mig")},
		Containers: []corev1.Container{{Name: "main", Image: "registry.example/infer:1", Resources: corev1.ResourceRequirements{
			Limits: corev1.ResourceList{"nvidia.com/mig-1g.10gb": resource.MustParse("1")}}}}})
	infer := w.waitPods(ns, "app=infer", 1)[0]
	w.waitUnschedulable(ns, infer)
	out = append(out, scenario{name: "MIG resource name mismatch", file: "mig-name.json", ns: ns, target: "deployment/infer",
		wantRoute: "gpu/operator-policy", evidence: []string{"nvidia.com/gpu", "the pod requests nvidia.com/mig-1g.10gb", "nvidia.com/mig.strategy=single"}})

	// A GPU resource that no node of the cluster advertises.
	w.job(ns, "amd-train", corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
		Containers: []corev1.Container{{Name: "main", Image: "registry.example/train:1", Resources: corev1.ResourceRequirements{
			Limits: corev1.ResourceList{"amd.com/gpu": resource.MustParse("1")}}}}})
	amd := w.waitPods(ns, "job-name=amd-train", 1)[0]
	w.waitUnschedulable(ns, amd)
	out = append(out, scenario{name: "no node advertises the GPU resource", file: "no-amd-gpu.json", ns: ns, target: "job/amd-train",
		wantRoute: "pending/insufficient-resources", evidence: []string{"pending-gpu-present=nowhere", "absent on all"}})

	// A Job whose pod fails: the Job controller gives up at its backoff
	// limit, and the pod's own exit is the evidence behind the condition.
	w.node("jobs", nodeSpec{pool: "jobs"})
	w.jobWithBackoff(ns, "export", 0, corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, NodeSelector: map[string]string{poolLabel: w.name("jobs")},
		Containers: []corev1.Container{{Name: "main", Image: "registry.example/export:1"}}})
	exp := w.waitPods(ns, "job-name=export", 1)[0]
	w.waitBound(ns, exp)
	w.setPodStatus(ns, exp, func(st *corev1.PodStatus) {
		st.Phase = corev1.PodFailed
		st.ContainerStatuses = []corev1.ContainerStatus{{Name: "main", Image: "registry.example/export:1",
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 2, Reason: "Error"}}}}
	})
	w.waitJobFailed(ns, "export")
	out = append(out, scenario{name: "failed Job", file: "job-failed-live.json", ns: ns, target: "job/export",
		wantRoute: "workload/job-failed", evidence: []string{"status.conditions[Failed]: BackoffLimitExceeded", "exitCode 2"}})

	// A container waiting on a Secret that does not exist: the kubelet's
	// message names it; Casebook never reads Secrets.
	w.pod(podSpec{ns: ns, name: "api", pool: "jobs"})
	w.waitBound(ns, "api")
	w.setPodStatus(ns, "api", func(st *corev1.PodStatus) {
		st.ContainerStatuses = []corev1.ContainerStatus{{Name: "main", Image: "registry.example/app:1",
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CreateContainerConfigError", Message: `secret "db-credentials" not found`}}}}
	})
	out = append(out, scenario{name: "container waits on a missing Secret", file: "secret-missing-live.json", ns: ns, target: "api",
		wantRoute: "pod/config-error", evidence: []string{"CreateContainerConfigError", `secret "db-credentials" not found`}})

	// A scheduler that does not run: nothing ever answers for the pod.
	w.deployment(ns, "queued", 1, corev1.PodSpec{SchedulerName: "volcano",
		Containers: []corev1.Container{{Name: "main", Image: "registry.example/queued:1"}}})
	w.waitPods(ns, "app=queued", 1)
	out = append(out, scenario{name: "third-party scheduler silent", file: "scheduler-silent.json", ns: ns, target: "deployment/queued",
		wantAsk: "pending-reason", evidence: []string{"spec.schedulerName: volcano", "no event from volcano", "check that volcano runs"}})

	// YuniKorn answers with its own reason (the event as it writes it).
	w.deployment(ns, "yk", 1, corev1.PodSpec{SchedulerName: "yunikorn",
		Containers: []corev1.Container{{Name: "main", Image: "registry.example/yk:1"}}})
	yk := w.waitPods(ns, "app=yk", 1)[0]
	w.recordEvent(ns, yk, "yunikorn", "PodUnschedulable", "Task "+ns+"/"+yk+" is skipped from scheduling because the queue quota has been exceed")
	out = append(out, scenario{name: "third-party scheduler reports its reason", file: "scheduler-yunikorn.json", ns: ns, target: "deployment/yk",
		wantRoute: "pending/resource-quota", evidence: []string{"yunikorn: Task", "queue quota has been exceed"}})

	// A liveness probe that kills a slow server: the kubelet's events.
	w.node("cp1", nodeSpec{pool: "probes"})
	w.deployment(ns, "slow", 1, corev1.PodSpec{NodeSelector: map[string]string{poolLabel: w.name("probes")},
		Containers: []corev1.Container{{Name: "api", Image: "registry.example/slow:1"}}})
	slow := w.waitPods(ns, "app=slow", 1)[0]
	w.waitBound(ns, slow)
	w.running(ns, slow)
	w.recordEvent(ns, slow, "kubelet", "Unhealthy", `Liveness probe failed: Get "http://10.244.3.18:8080/healthz": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`)
	w.recordEvent(ns, slow, "kubelet", "Killing", "Container api failed liveness probe, will be restarted")
	out = append(out, scenario{name: "liveness probe kills the container", file: "probe-liveness.json", ns: ns, target: "deployment/slow",
		wantRoute: "pod/probe-failure", evidence: []string{"failed liveness probe, will be restarted"}})

	// A pod on a node whose kubelet stopped reporting.
	down := w.node("down", nodeSpec{pool: "down"})
	w.deployment(ns, "stuck", 1, corev1.PodSpec{NodeSelector: map[string]string{poolLabel: w.name("down")},
		Containers: []corev1.Container{{Name: "main", Image: "registry.example/stuck:1"}}})
	stuck := w.waitPods(ns, "app=stuck", 1)[0]
	w.waitBound(ns, stuck)
	w.running(ns, stuck)
	w.nodeUnknown(down.Name)
	out = append(out, scenario{name: "pod on a node that stopped reporting", file: "node-unknown.json", ns: ns, target: "deployment/stuck",
		wantRoute: "node/not-ready", evidence: []string{"Kubelet stopped posting node status."}})

	// DRA: a claim from a template, for a class whose driver publishes no
	// ResourceSlice, so the scheduler cannot allocate it.
	class := w.deviceClass("gpu-example-"+w.id, `device.driver == "gpu.example.com"`)
	w.claimTemplate(ns, "one-gpu", class)
	w.deployment(ns, "dra", 1, corev1.PodSpec{
		ResourceClaims: []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: ptr("one-gpu")}},
		Containers: []corev1.Container{{Name: "main", Image: "registry.example/dra:1",
			Resources: corev1.ResourceRequirements{Claims: []corev1.ResourceClaim{{Name: "gpu"}}}}}})
	dra := w.waitPods(ns, "app=dra", 1)[0]
	w.waitUnschedulable(ns, dra)
	out = append(out, scenario{name: "DRA claim unallocated", file: "dra-no-slices.json", ns: ns, target: "deployment/dra",
		wantRoute: "pending/dra-claim-unallocated", evidence: []string{"status.allocation: none", "driver: gpu.example.com", "resourceslices spec.driver=gpu.example.com: none"}})
	return out
}

func (w *world) deployment(ns, name string, replicas int32, spec corev1.PodSpec) *appsv1.Deployment {
	w.t.Helper()
	sel := map[string]string{"app": name}
	d, err := w.c.AppsV1().Deployments(ns).Create(w.ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: appsv1.DeploymentSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: sel},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: sel}, Spec: spec}}}, metav1.CreateOptions{})
	if err != nil {
		w.t.Fatalf("create deployment %s/%s: %v", ns, name, err)
	}
	return d
}

func (w *world) job(ns, name string, spec corev1.PodSpec) {
	w.t.Helper()
	if _, err := w.c.BatchV1().Jobs(ns).Create(w.ctx, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: spec}}}, metav1.CreateOptions{}); err != nil {
		w.t.Fatalf("create job %s/%s: %v", ns, name, err)
	}
}

// jobWithBackoff creates a Job that gives up after backoff failed pods.
func (w *world) jobWithBackoff(ns, name string, backoff int32, spec corev1.PodSpec) {
	w.t.Helper()
	if _, err := w.c.BatchV1().Jobs(ns).Create(w.ctx, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: batchv1.JobSpec{BackoffLimit: &backoff, Template: corev1.PodTemplateSpec{Spec: spec}}}, metav1.CreateOptions{}); err != nil {
		w.t.Fatalf("create job %s/%s: %v", ns, name, err)
	}
}

// waitJobFailed waits until the Job controller has marked the Job Failed.
func (w *world) waitJobFailed(ns, name string) {
	w.t.Helper()
	eventually(w.t, "Failed condition of job "+ns+"/"+name, 60*time.Second, func() (bool, error) {
		j, err := w.c.BatchV1().Jobs(ns).Get(w.ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range j.Status.Conditions {
			if c.Type == batchv1.JobFailed && c.Status == corev1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
}

// quotaPods creates a quota and waits for the quota controller to publish
// its hard limits, without which admission refuses nothing.
func (w *world) quotaPods(ns, name, pods string) {
	w.t.Helper()
	if _, err := w.c.CoreV1().ResourceQuotas(ns).Create(w.ctx, &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse(pods)}}}, metav1.CreateOptions{}); err != nil {
		w.t.Fatal(err)
	}
	eventually(w.t, "the quota controller's status for "+name, 60*time.Second, func() (bool, error) {
		q, err := w.c.CoreV1().ResourceQuotas(ns).Get(w.ctx, name, metav1.GetOptions{})
		return err == nil && len(q.Status.Hard) > 0, err
	})
}

func (w *world) listPods(ns, selector string) []corev1.Pod {
	w.t.Helper()
	list, err := w.c.CoreV1().Pods(ns).List(w.ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		w.t.Fatal(err)
	}
	return list.Items
}

// waitPods waits until the controllers have created n pods and returns
// their names.
func (w *world) waitPods(ns, selector string, n int) []string {
	w.t.Helper()
	var names []string
	eventually(w.t, "pods "+selector+" in "+ns, 60*time.Second, func() (bool, error) {
		names = names[:0]
		for _, p := range w.listPods(ns, selector) {
			names = append(names, p.Name)
		}
		return len(names) >= n, nil
	})
	return names
}

// waitFailedCreate waits until the Deployment's ReplicaSet reports that it
// could not create a pod.
func (w *world) waitFailedCreate(ns string, d *appsv1.Deployment) {
	w.t.Helper()
	eventually(w.t, "FailedCreate on the ReplicaSet of "+d.Name, 60*time.Second, func() (bool, error) {
		list, err := w.c.AppsV1().ReplicaSets(ns).List(w.ctx, metav1.ListOptions{LabelSelector: "app=" + d.Name})
		if err != nil {
			return false, err
		}
		for _, rs := range list.Items {
			for _, c := range rs.Status.Conditions {
				if c.Type == appsv1.ReplicaSetReplicaFailure && c.Status == corev1.ConditionTrue {
					return true, nil
				}
			}
		}
		return false, nil
	})
}

// recordEvent records an event about a pod as its source (a scheduler,
// the kubelet) writes it.
func (w *world) recordEvent(ns, pod, source, reason, msg string) {
	w.t.Helper()
	p, err := w.c.CoreV1().Pods(ns).Get(w.ctx, pod, metav1.GetOptions{})
	if err != nil {
		w.t.Fatal(err)
	}
	now := metav1.Now()
	_, err = w.c.CoreV1().Events(ns).Create(w.ctx, &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{GenerateName: pod + ".", Namespace: ns},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: pod, UID: p.UID, APIVersion: "v1"},
		Reason:         reason, Message: msg, Type: corev1.EventTypeWarning, Source: corev1.EventSource{Component: source},
		FirstTimestamp: now, LastTimestamp: now, Count: 1,
	}, metav1.CreateOptions{})
	if err != nil {
		w.t.Fatal(err)
	}
}

// nodeUnknown writes what the node lifecycle controller writes when a
// kubelet stops posting status.
func (w *world) nodeUnknown(name string) {
	w.t.Helper()
	n, err := w.c.CoreV1().Nodes().Get(w.ctx, name, metav1.GetOptions{})
	if err != nil {
		w.t.Fatal(err)
	}
	for i, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			n.Status.Conditions[i].Status, n.Status.Conditions[i].Reason, n.Status.Conditions[i].Message =
				corev1.ConditionUnknown, "NodeStatusUnknown", "Kubelet stopped posting node status."
		}
	}
	if _, err := w.c.CoreV1().Nodes().UpdateStatus(w.ctx, n, metav1.UpdateOptions{}); err != nil {
		w.t.Fatal(err)
	}
}

func (w *world) deviceClass(name, expr string) string {
	w.t.Helper()
	_, err := w.c.ResourceV1().DeviceClasses().Create(w.ctx, &resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: resourcev1.DeviceClassSpec{Selectors: []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{Expression: expr}}}}}, metav1.CreateOptions{})
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() {
		_ = w.c.ResourceV1().DeviceClasses().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	return name
}

func (w *world) claimTemplate(ns, name, class string) {
	w.t.Helper()
	_, err := w.c.ResourceV1().ResourceClaimTemplates(ns).Create(w.ctx, &resourcev1.ResourceClaimTemplate{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: resourcev1.ResourceClaimTemplateSpec{Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{
			Requests: []resourcev1.DeviceRequest{{Name: "gpu", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: class}}}}}}}, metav1.CreateOptions{})
	if err != nil {
		w.t.Fatal(err)
	}
}
