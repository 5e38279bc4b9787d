package cluster_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

// gapWorld builds the objects of the gap checks' live test. Everything it
// makes carries gapsLabel, so objects left by an interrupted run (nothing
// garbage-collects on the harness) are removed before the next one, and
// the nodes carry the run's id, which the inventory selects on.
type gapWorld struct {
	t   *testing.T
	ctx context.Context
	c   kubernetes.Interface
	dyn dynamic.Interface
	id  string
}

const gapsLabel = "casebook.test/gaps-run"

func (g *gapWorld) meta(name, ns string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{gapsLabel: g.id}}
}

func (g *gapWorld) must(what string, err error) {
	g.t.Helper()
	if err != nil {
		g.t.Fatalf("%s: %v", what, err)
	}
}

// gpuNode is what a node's kubelet and GPU Feature Discovery would report.
type gpuNode struct {
	labels     map[string]string
	alloc      corev1.ResourceList
	kernel     string
	conditions []corev1.NodeCondition
	taints     []corev1.Taint // beside the test's own
}

// node creates a Ready node with the kubelet's status. Its one taint keeps
// other tests' pods from being scheduled onto it; every pod of this test
// is bound by nodeName.
func (g *gapWorld) node(base string, s gpuNode) string {
	g.t.Helper()
	name := base + "-" + g.id
	m := g.meta(name, "")
	for k, v := range s.labels {
		m.Labels[k] = v
	}
	n, err := g.c.CoreV1().Nodes().Create(g.ctx, &corev1.Node{ObjectMeta: m}, metav1.CreateOptions{})
	g.must("create node "+name, err)
	n.Spec.Taints = append([]corev1.Taint{{Key: gapsLabel, Value: g.id, Effect: corev1.TaintEffectNoSchedule}}, s.taints...)
	n, err = g.c.CoreV1().Nodes().Update(g.ctx, n, metav1.UpdateOptions{})
	g.must("taint node "+name, err)
	// The kubelet reserves memory for itself and the system, as every
	// node image does, so allocatable is below capacity.
	capacity := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("16"), corev1.ResourceMemory: resource.MustParse("64Gi"), corev1.ResourcePods: resource.MustParse("110")}
	alloc := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("15890m"), corev1.ResourceMemory: resource.MustParse("61Gi"), corev1.ResourcePods: resource.MustParse("110")}
	for k, v := range s.alloc {
		capacity[k], alloc[k] = v, v
	}
	now := metav1.Now()
	n.Status.Capacity, n.Status.Allocatable = capacity, alloc
	n.Status.Conditions = append([]corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", LastHeartbeatTime: now, LastTransitionTime: now}}, s.conditions...)
	kernel := s.kernel
	if kernel == "" {
		kernel = "5.15.0-1057-aws"
	}
	n.Status.NodeInfo = corev1.NodeSystemInfo{KubeletVersion: "v1.37.2", OSImage: "Ubuntu 22.04.5 LTS", KernelVersion: kernel, ContainerRuntimeVersion: "containerd://1.7.24"}
	_, err = g.c.CoreV1().Nodes().UpdateStatus(g.ctx, n, metav1.UpdateOptions{})
	g.must("node status "+name, err)
	return name
}

func (g *gapWorld) namespace(base string) string {
	name := base + "-" + g.id
	_, err := g.c.CoreV1().Namespaces().Create(g.ctx, &corev1.Namespace{ObjectMeta: g.meta(name, "")}, metav1.CreateOptions{})
	g.must("create namespace", err)
	return name
}

func memLimit(m string) corev1.ResourceRequirements {
	if m == "" {
		return corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}
	}
	return corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(m)}}
}

func podSpecWith(image string, res corev1.ResourceRequirements) corev1.PodSpec {
	return corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: image, Resources: res}}}
}

// runningPod creates a pod bound to a node, Running and Ready as its
// kubelet would report it.
func (g *gapWorld) runningPod(ns, name, node string, labels map[string]string, owner *metav1.OwnerReference, res corev1.ResourceRequirements) {
	g.t.Helper()
	m := g.meta(name, ns)
	for k, v := range labels {
		m.Labels[k] = v
	}
	if owner != nil {
		m.OwnerReferences = []metav1.OwnerReference{*owner}
	}
	spec := podSpecWith("registry.example/app:1", res)
	spec.NodeName = node
	spec.Tolerations = []corev1.Toleration{{Key: gapsLabel, Operator: corev1.TolerationOpExists}}
	_, err := g.c.CoreV1().Pods(ns).Create(g.ctx, &corev1.Pod{ObjectMeta: m, Spec: spec}, metav1.CreateOptions{})
	g.must("create pod "+ns+"/"+name, err)
	p, err := g.c.CoreV1().Pods(ns).Get(g.ctx, name, metav1.GetOptions{})
	g.must("get pod", err)
	p.Status = runningStatus(true, 0, nil)
	_, err = g.c.CoreV1().Pods(ns).UpdateStatus(g.ctx, p, metav1.UpdateOptions{})
	g.must("pod status", err)
}

func (g *gapWorld) deployment(ns, name string, replicas int32, labels map[string]string, spec corev1.PodSpec) *appsv1.Deployment {
	g.t.Helper()
	m := g.meta(name, ns)
	for k, v := range labels {
		m.Labels[k] = v
	}
	sel := map[string]string{"app": name}
	d, err := g.c.AppsV1().Deployments(ns).Create(g.ctx, &appsv1.Deployment{ObjectMeta: m, Spec: appsv1.DeploymentSpec{
		Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: sel},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: sel}, Spec: spec},
	}}, metav1.CreateOptions{})
	g.must("create deployment "+ns+"/"+name, err)
	return d
}

// daemonSet creates a DaemonSet with the status its controller would
// write: desired and ready counts.
// Like every node agent, it tolerates the taint of the test's nodes and runs
// at system-node-critical priority, so the gaps planted are only those the
// test names.
func (g *gapWorld) daemonSet(ns, name string, spec corev1.PodSpec, desired, ready int32) *appsv1.DaemonSet {
	g.t.Helper()
	sel := map[string]string{"app": name}
	spec.Tolerations = append(spec.Tolerations, corev1.Toleration{Key: gapsLabel, Operator: corev1.TolerationOpExists})
	spec.PriorityClassName = "system-node-critical"
	ds, err := g.c.AppsV1().DaemonSets(ns).Create(g.ctx, &appsv1.DaemonSet{ObjectMeta: g.meta(name, ns), Spec: appsv1.DaemonSetSpec{
		Selector: &metav1.LabelSelector{MatchLabels: sel},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: sel}, Spec: spec},
	}}, metav1.CreateOptions{})
	g.must("create daemonset "+ns+"/"+name, err)
	ds.Status = appsv1.DaemonSetStatus{DesiredNumberScheduled: desired, CurrentNumberScheduled: desired, NumberReady: ready, NumberAvailable: ready, NumberUnavailable: desired - ready}
	ds, err = g.c.AppsV1().DaemonSets(ns).UpdateStatus(g.ctx, ds, metav1.UpdateOptions{})
	g.must("daemonset status", err)
	return ds
}

// quota creates a ResourceQuota with the status its controller would write.
func (g *gapWorld) quota(ns, name string, hard, used corev1.ResourceList) {
	g.t.Helper()
	q, err := g.c.CoreV1().ResourceQuotas(ns).Create(g.ctx, &corev1.ResourceQuota{ObjectMeta: g.meta(name, ns),
		Spec: corev1.ResourceQuotaSpec{Hard: hard}}, metav1.CreateOptions{})
	g.must("create quota", err)
	q.Status = corev1.ResourceQuotaStatus{Hard: hard, Used: used}
	_, err = g.c.CoreV1().ResourceQuotas(ns).UpdateStatus(g.ctx, q, metav1.UpdateOptions{})
	g.must("quota status", err)
}

// pdb creates a PodDisruptionBudget with minAvailable and the status the
// disruption controller would write.
func (g *gapWorld) pdb(ns, name string, sel map[string]string, minAvailable, expected, allowed int32) {
	g.t.Helper()
	min := intstr.FromInt32(minAvailable)
	p, err := g.c.PolicyV1().PodDisruptionBudgets(ns).Create(g.ctx, &policyv1.PodDisruptionBudget{ObjectMeta: g.meta(name, ns),
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: &min, Selector: &metav1.LabelSelector{MatchLabels: sel}}}, metav1.CreateOptions{})
	g.must("create pdb", err)
	p.Status = policyv1.PodDisruptionBudgetStatus{ExpectedPods: expected, CurrentHealthy: expected, DesiredHealthy: minAvailable, DisruptionsAllowed: allowed, ObservedGeneration: p.Generation}
	_, err = g.c.PolicyV1().PodDisruptionBudgets(ns).UpdateStatus(g.ctx, p, metav1.UpdateOptions{})
	g.must("pdb status", err)
}

func intstrFrom(v int32) intstr.IntOrString { return intstr.FromInt32(v) }

func (g *gapWorld) job(ns, name string, spec corev1.PodSpec) {
	g.t.Helper()
	spec.RestartPolicy = corev1.RestartPolicyNever
	_, err := g.c.BatchV1().Jobs(ns).Create(g.ctx, &batchv1.Job{ObjectMeta: g.meta(name, ns), Spec: batchv1.JobSpec{
		Template: corev1.PodTemplateSpec{Spec: spec}}}, metav1.CreateOptions{})
	g.must("create job", err)
}

// webhook creates a ValidatingWebhookConfiguration whose one rule only
// intercepts DELETE of CronJobs, which nothing on the harness does, so a
// backend that does not exist never blocks another test.
func (g *gapWorld) webhook(name string, policy admissionv1.FailurePolicyType, nsSel *metav1.LabelSelector, caBundle []byte) {
	g.t.Helper()
	scope := admissionv1.NamespacedScope
	none := admissionv1.SideEffectClassNone
	svc := &admissionv1.ServiceReference{Namespace: "policy", Name: name}
	_, err := g.c.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(g.ctx, &admissionv1.ValidatingWebhookConfiguration{
		ObjectMeta: g.meta(name+"-"+g.id, ""),
		Webhooks: []admissionv1.ValidatingWebhook{{
			Name: name + ".casebook.test", FailurePolicy: &policy, NamespaceSelector: nsSel, SideEffects: &none,
			AdmissionReviewVersions: []string{"v1"},
			ClientConfig:            admissionv1.WebhookClientConfig{Service: svc, CABundle: caBundle},
			Rules: []admissionv1.RuleWithOperations{{Operations: []admissionv1.OperationType{admissionv1.Delete},
				Rule: admissionv1.Rule{APIGroups: []string{"batch"}, APIVersions: []string{"v1"}, Resources: []string{"cronjobs"}, Scope: &scope}}},
		}},
	}, metav1.CreateOptions{})
	g.must("create webhook "+name, err)
}

// caBundle is a self-signed CA certificate that expires after d.
func caBundle(t *testing.T, cn string, d time.Duration) []byte {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: cn}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(d), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tpl, tpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

var (
	crdGVR      = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	nodePoolGVR = schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodepools"}
)

// karpenterCRDs installs minimal NodePool and EC2NodeClass definitions
// (schemaless), as a Karpenter install would, and waits until discovery
// serves them.
func (g *gapWorld) karpenterCRDs() {
	g.t.Helper()
	for _, d := range []struct{ group, kind, plural string }{{"karpenter.sh", "NodePool", "nodepools"}, {"karpenter.k8s.aws", "EC2NodeClass", "ec2nodeclasses"}} {
		crd := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
			"metadata": map[string]any{"name": d.plural + "." + d.group},
			"spec": map[string]any{"group": d.group, "scope": "Cluster",
				"names": map[string]any{"kind": d.kind, "plural": d.plural, "singular": lower(d.kind), "listKind": d.kind + "List"},
				"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true,
					"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}},
		}}
		_, err := g.dyn.Resource(crdGVR).Create(g.ctx, crd, metav1.CreateOptions{})
		if err != nil && !isAlreadyExists(err) {
			g.t.Fatalf("create CRD %s: %v", d.plural, err)
		}
		eventually(g.t, "discovery of "+d.group+"/v1", 30*time.Second, func() (bool, error) {
			_, err := g.c.Discovery().ServerResourcesForGroupVersion(d.group + "/v1")
			return err == nil, err
		})
	}
}

func (g *gapWorld) nodePool(name string, spec map[string]any) {
	g.t.Helper()
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "karpenter.sh/v1", "kind": "NodePool",
		"metadata": map[string]any{"name": name + "-" + g.id, "labels": map[string]any{gapsLabel: g.id}}, "spec": spec}}
	var err error
	eventually(g.t, "create nodepool "+name, 30*time.Second, func() (bool, error) {
		_, err = g.dyn.Resource(nodePoolGVR).Create(g.ctx, obj, metav1.CreateOptions{})
		return err == nil, err
	})
}

func ownerRef(kind, name string) *metav1.OwnerReference {
	return &metav1.OwnerReference{APIVersion: "apps/v1", Kind: kind, Name: name, UID: types.UID("uid-" + name), Controller: ptr(true)}
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
