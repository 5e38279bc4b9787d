package cluster_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"casebook/internal/cluster"
	"casebook/internal/probe"
	"casebook/internal/snapshot"
	"casebook/internal/triage"
	"casebook/library"
)

// TestLiveEverydayFailures builds, in one namespace of a harness with
// controllers, the seven everyday situations of issue 31 - a Service whose
// selector matches no pod, an Ingress to a Service that does not exist, an
// HPA with no metrics API, a failed Job, a pod waiting on a missing Secret,
// a fail-closed admission webhook with no backend, a rollout whose pods
// never turn Ready - and triages each target, then the whole namespace
// with a scan, as the read-only ServiceAccount. The controllers write
// what they write on a real cluster (EndpointSlices, the HPA's conditions,
// the Job's Failed condition, the ReplicaSet's FailedCreate, the
// Deployment's Progressing); without a kubelet, the test writes pod status
// as the kubelet would.
func TestLiveEverydayFailures(t *testing.T) {
	admin := controllerHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c := kubernetes.NewForConfigOrDie(admin)
	applyRBAC(t, ctx, c)
	w := &world{t: t, ctx: ctx, c: c, admin: admin, id: runID(t)}
	ns := w.namespace("everyday")
	scenarios := w.buildEveryday(ns)

	ro := tokenConfig(t, ctx, admin, c, "casebook", "casebook")
	rec := &recorder{}
	r, err := cluster.NewReader(ro, cluster.Options{WrapTransport: rec.wrap})
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
			if dir := os.Getenv("CASEBOOK_SNAPSHOT_SAVE"); dir != "" && sc.file != "" {
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

	t.Run("scan lists each with its route", func(t *testing.T) {
		sc, err := r.Scan(ctx, ns)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range sc.ReadErrors {
			t.Errorf("scan read error: %s (%s): %s", e.What, e.Kind, e.Message)
		}
		got := map[string]string{}
		for i := range sc.Snapshots {
			rep, err := probe.Triage(cat, &sc.Snapshots[i])
			if err != nil {
				t.Fatal(err)
			}
			got[rep.Target.Kind+"/"+rep.Target.Name] = rep.Route
		}
		for _, want := range []struct{ target, route string }{
			{"Service/checkout", "network/service-no-endpoints"},
			{"Ingress/shop", "network/ingress-errors"},
			{"HorizontalPodAutoscaler/api", "autoscaling/hpa-not-scaling"},
			{"Pod/export-", "workload/job-failed"},
			{"Pod/config", "pod/config-error"},
			{"ReplicaSet/guarded-", "control-plane/webhook-failure"},
			{"Pod/web-", "workload/rollout-stuck"},
			// The webhook configuration itself: its Service lives here.
			{"ValidatingWebhookConfiguration/policy-", "control-plane/webhook-failure"},
		} {
			found := false
			for target, route := range got {
				found = found || (strings.HasPrefix(target, want.target) && route == want.route)
			}
			if !found {
				t.Errorf("scan lacks %s with route %s; got %v", want.target, want.route, got)
			}
		}
		if len(got) != 8 {
			t.Errorf("scan found %d troubled objects, want the 7 situations and the webhook configuration: %v", len(got), got)
		}
	})

	t.Run("read only, no secrets", func(t *testing.T) {
		for _, p := range rec.all() {
			if !strings.HasPrefix(p, "GET ") || strings.Contains(p, "/secrets") || strings.Contains(p, "/configmaps") {
				t.Errorf("request beyond a read of what triage needs: %s", p)
			}
		}
	})
}

func (w *world) buildEveryday(ns string) []scenario {
	w.node("ev", nodeSpec{pool: "ev"})
	on := map[string]string{poolLabel: w.name("ev")}
	container := corev1.Container{Name: "main", Image: "registry.example/app:1",
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}}
	spec := corev1.PodSpec{NodeSelector: on, Containers: []corev1.Container{container}}
	var out []scenario

	// A Service whose selector matches no pod: the pods say app=checkout-v2.
	w.pod(podSpec{ns: ns, name: "checkout-v2-0", pool: "ev", labels: map[string]string{"app": "checkout-v2"}})
	w.running(ns, "checkout-v2-0")
	w.create(func() error {
		_, err := w.c.CoreV1().Services(ns).Create(w.ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "checkout", Namespace: ns},
			Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "checkout"}, Ports: []corev1.ServicePort{{Port: 80}}}}, metav1.CreateOptions{})
		return err
	})
	out = append(out, scenario{name: "Service selects no pod", file: "service-no-endpoints-live.json", ns: ns, target: "service/checkout", wantRoute: "network/service-no-endpoints",
		evidence: []string{"spec.selector: app=checkout - matches 0 pods", "metadata.labels: app=checkout-v2"}})

	// An Ingress to a Service that does not exist; its TLS Secret is named only.
	w.create(func() error {
		prefix := networkingv1.PathTypePrefix
		_, err := w.c.NetworkingV1().Ingresses(ns).Create(w.ctx, &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: ns},
			Spec: networkingv1.IngressSpec{TLS: []networkingv1.IngressTLS{{Hosts: []string{"shop.example.com"}, SecretName: "shop-tls"}},
				Rules: []networkingv1.IngressRule{{Host: "shop.example.com", IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
					Paths: []networkingv1.HTTPIngressPath{{Path: "/", PathType: &prefix, Backend: networkingv1.IngressBackend{
						Service: &networkingv1.IngressServiceBackend{Name: "shop-frontend", Port: networkingv1.ServiceBackendPort{Number: 80}}}}}}}}}}}, metav1.CreateOptions{})
		return err
	})
	out = append(out, scenario{name: "Ingress to a missing Service", file: "ingress-missing-service-live.json", ns: ns, target: "ingress/shop", wantRoute: "network/ingress-errors",
		evidence: []string{"backend.service: shop-frontend:80 - Service shop-frontend does not exist", "secretName: shop-tls - referenced only"}})

	// An HPA on a cluster without the resource metrics API.
	w.deployment(ns, "api", 1, spec)
	for _, p := range w.waitPods(ns, "app=api", 1) {
		w.running(ns, p)
	}
	w.create(func() error {
		min, util := int32(1), int32(60)
		_, err := w.c.AutoscalingV2().HorizontalPodAutoscalers(ns).Create(w.ctx, &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: ns},
			Spec: autoscalingv2.HorizontalPodAutoscalerSpec{MinReplicas: &min, MaxReplicas: 5,
				ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "api"},
				Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
					Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: &util}}}}}}, metav1.CreateOptions{})
		return err
	})
	eventually(w.t, "the HPA controller's ScalingActive", 90*time.Second, func() (bool, error) {
		h, err := w.c.AutoscalingV2().HorizontalPodAutoscalers(ns).Get(w.ctx, "api", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range h.Status.Conditions {
			if c.Type == autoscalingv2.ScalingActive && c.Status == corev1.ConditionFalse {
				return true, nil
			}
		}
		return false, nil
	})
	out = append(out, scenario{name: "HPA without a metrics API", file: "hpa-no-metrics-live.json", ns: ns, target: "hpa/api", wantRoute: "autoscaling/hpa-not-scaling",
		evidence: []string{"status.conditions[ScalingActive]: False FailedGetResourceMetric", "spec.scaleTargetRef: deployment/api"}})

	// A Job whose pod exits 2, with no retry left.
	w.jobWithBackoff(ns, "export", 0, corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, NodeSelector: on, Containers: []corev1.Container{container}})
	exp := w.waitPods(ns, "job-name=export", 1)[0]
	w.waitBound(ns, exp)
	w.setPodStatus(ns, exp, func(st *corev1.PodStatus) {
		st.Phase = corev1.PodFailed
		st.ContainerStatuses = []corev1.ContainerStatus{{Name: "main", Image: container.Image,
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 2, Reason: "Error"}}}}
	})
	w.waitJobFailed(ns, "export")
	out = append(out, scenario{name: "failed Job", ns: ns, target: "job/export", wantRoute: "workload/job-failed",
		evidence: []string{"status.conditions[Failed]: BackoffLimitExceeded", "exitCode 2"}})

	// A pod whose env names a Secret that does not exist: the kubelet's
	// waiting message names it; Casebook never reads Secrets.
	w.create(func() error {
		env := container
		env.Env = []corev1.EnvVar{{Name: "DB_PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: "db-credentials"}, Key: "password"}}}}
		_, err := w.c.CoreV1().Pods(ns).Create(w.ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "config", Namespace: ns},
			Spec: corev1.PodSpec{NodeSelector: on, Containers: []corev1.Container{env}}}, metav1.CreateOptions{})
		return err
	})
	w.waitBound(ns, "config")
	w.setPodStatus(ns, "config", func(st *corev1.PodStatus) {
		*st = runningStatus(false, 0, &corev1.ContainerStateWaiting{Reason: "CreateContainerConfigError", Message: `secret "db-credentials" not found`})
		st.Phase = corev1.PodPending
	})
	out = append(out, scenario{name: "pod waits on a missing Secret", ns: ns, target: "config", wantRoute: "pod/config-error",
		evidence: []string{"state.waiting: CreateContainerConfigError", `secret "db-credentials" not found`}})

	// A fail-closed webhook whose Service does not exist refuses the pods
	// it selects (only this test's, by label).
	hook := "policy-" + w.id + ".casebook.example"
	fail, none, path := admissionv1.Fail, admissionv1.SideEffectClassNone, "/validate"
	guard := map[string]string{"casebook.test/guarded": w.id}
	w.create(func() error {
		_, err := w.c.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(w.ctx, &admissionv1.ValidatingWebhookConfiguration{
			ObjectMeta: metav1.ObjectMeta{Name: "policy-" + w.id},
			Webhooks: []admissionv1.ValidatingWebhook{{Name: hook, FailurePolicy: &fail, SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
				ObjectSelector: &metav1.LabelSelector{MatchLabels: guard},
				ClientConfig:   admissionv1.WebhookClientConfig{Service: &admissionv1.ServiceReference{Namespace: ns, Name: "policy-webhook", Path: &path}},
				Rules: []admissionv1.RuleWithOperations{{Operations: []admissionv1.OperationType{admissionv1.Create},
					Rule: admissionv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}}}}}, metav1.CreateOptions{})
		return err
	})
	w.t.Cleanup(func() {
		_ = w.c.AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete(context.Background(), "policy-"+w.id, metav1.DeleteOptions{})
	})
	one := int32(1)
	guarded := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "guarded", Namespace: ns},
		Spec: appsv1.DeploymentSpec{Replicas: &one, Selector: &metav1.LabelSelector{MatchLabels: guard},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: guard}, Spec: spec}}}
	w.create(func() error {
		_, err := w.c.AppsV1().Deployments(ns).Create(w.ctx, guarded, metav1.CreateOptions{})
		return err
	})
	eventually(w.t, "FailedCreate on the ReplicaSet of guarded", 60*time.Second, func() (bool, error) {
		list, err := w.c.AppsV1().ReplicaSets(ns).List(w.ctx, metav1.ListOptions{LabelSelector: "casebook.test/guarded=" + w.id})
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
	out = append(out, scenario{name: "fail-closed webhook without a backend", file: "webhook-no-backend-live.json", ns: ns, target: "deployment/guarded", wantRoute: "control-plane/webhook-failure",
		evidence: []string{`failed calling webhook "` + hook + `"`, "clientConfig.service: " + ns + "/policy-webhook - failurePolicy Fail: the Service does not exist"}})

	// A rollout whose pods run but never turn Ready, past its deadline.
	deadline := int32(2)
	web := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
		Spec: appsv1.DeploymentSpec{Replicas: &one, ProgressDeadlineSeconds: &deadline, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}}, Spec: spec}}}
	w.create(func() error {
		_, err := w.c.AppsV1().Deployments(ns).Create(w.ctx, web, metav1.CreateOptions{})
		return err
	})
	for _, p := range w.waitPods(ns, "app=web", 1) {
		w.waitBound(ns, p)
		w.setPodStatus(ns, p, func(st *corev1.PodStatus) { *st = runningStatus(false, 0, nil) })
	}
	eventually(w.t, "ProgressDeadlineExceeded on deployment web", 90*time.Second, func() (bool, error) {
		d, err := w.c.AppsV1().Deployments(ns).Get(w.ctx, "web", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range d.Status.Conditions {
			if c.Type == appsv1.DeploymentProgressing && c.Status == corev1.ConditionFalse {
				return true, nil
			}
		}
		return false, nil
	})
	out = append(out, scenario{name: "rollout never turns Ready", file: "rollout-not-ready-live.json", ns: ns, target: "deployment/web", wantRoute: "workload/rollout-stuck",
		evidence: []string{"status.conditions[Progressing]: ProgressDeadlineExceeded", "status.readyReplicas: 0 of 1"}})
	return out
}

// create runs one create call, failing the test on an error.
func (w *world) create(fn func() error) {
	w.t.Helper()
	if err := fn(); err != nil {
		w.t.Fatal(err)
	}
}

// TestLiveCronJobAndClaim triages a CronJob through the Job its
// controller created, which failed, and a claim no pod uses that stays
// Pending (no PersistentVolume controller runs, as on a cluster whose
// provisioner is missing).
func TestLiveCronJobAndClaim(t *testing.T) {
	admin := controllerHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c := kubernetes.NewForConfigOrDie(admin)
	applyRBAC(t, ctx, c)
	w := &world{t: t, ctx: ctx, c: c, admin: admin, id: runID(t)}
	ns := w.namespace("cron")
	w.node("cron", nodeSpec{pool: "cron"})
	backoff := int32(0)
	w.create(func() error {
		_, err := c.BatchV1().CronJobs(ns).Create(ctx, &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "nightly", Namespace: ns},
			Spec: batchv1.CronJobSpec{Schedule: "* * * * *", ConcurrencyPolicy: batchv1.ForbidConcurrent, JobTemplate: batchv1.JobTemplateSpec{
				Spec: batchv1.JobSpec{BackoffLimit: &backoff, Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
					NodeSelector: map[string]string{poolLabel: w.name("cron")}, Containers: []corev1.Container{{Name: "main", Image: "registry.example/report:1"}}}}}}}},
			metav1.CreateOptions{})
		return err
	})
	// The controller creates the first Job at the next minute.
	var job string
	eventually(t, "the CronJob's first Job", 90*time.Second, func() (bool, error) {
		list, err := c.BatchV1().Jobs(ns).List(ctx, metav1.ListOptions{})
		if err != nil || len(list.Items) == 0 {
			return false, err
		}
		job = list.Items[0].Name
		return true, nil
	})
	pod := w.waitPods(ns, "job-name="+job, 1)[0]
	w.waitBound(ns, pod)
	w.setPodStatus(ns, pod, func(st *corev1.PodStatus) {
		st.Phase = corev1.PodFailed
		st.ContainerStatuses = []corev1.ContainerStatus{{Name: "main", Image: "registry.example/report:1",
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error"}}}}
	})
	w.waitJobFailed(ns, job)
	w.pvc(ns, "data")

	ro := tokenConfig(t, ctx, admin, c, "casebook", "casebook")
	r, err := cluster.NewReader(ro, cluster.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cat, _ := triage.Load(library.FS)
	for _, sc := range []scenario{
		{name: "CronJob whose Job failed", ns: ns, target: "cronjob/nightly", wantRoute: "workload/job-failed",
			evidence: []string{"job/" + job + " status.conditions[Failed]: BackoffLimitExceeded", "exitCode 1"}},
		{name: "claim not bound", ns: ns, target: "pvc/data", wantRoute: "pending/volume",
			evidence: []string{"persistentvolumeclaim/data status.phase: Pending"}},
	} {
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
		})
	}
}
