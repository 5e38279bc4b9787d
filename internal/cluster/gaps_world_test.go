package cluster_test

import (
	admissionv1 "k8s.io/api/admissionregistration/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The traffic and autoscaling part of the gap worlds: Services, the
// EndpointSlices a controller would keep for them (written here, as the
// harness runs no EndpointSlice controller), Ingresses, HPAs with the
// conditions their controller writes, and a webhook whose backend is in
// a namespace the read covers.

// buildTraffic plants four gaps in team-a and team-b (with a pod on node)
// and returns the findings they must give.
func (g *gapWorld) buildTraffic(a, b, node string) map[string][]string {
	// team-a's web has two running pods (build); checkout's were removed.
	g.service(a, "web", map[string]string{"app": "web"})
	g.endpointSlice(a, "web", 2, 0)
	g.service(a, "checkout", map[string]string{"app": "checkout"})
	g.endpointSlice(a, "checkout", 0, 0)
	// web-internal selects the same Ready pods, but its slice still lists
	// them as not ready, as after a partition the controller missed.
	g.service(a, "web-internal", map[string]string{"app": "web"})
	g.endpointSlice(a, "web-internal", 0, 2)
	// The shop's Ingress sends /cart to a Service nobody created.
	g.ingress(a, "shop", "web", "cart")
	g.hpa(a, "web", autoscalingv2.HorizontalPodAutoscalerCondition{Type: autoscalingv2.ScalingActive, Status: corev1.ConditionFalse,
		Reason: "FailedGetResourceMetric", Message: "the HPA was unable to compute the replica count: failed to get cpu utilization: " +
			"unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API: the server is currently unable " +
			"to handle the request (get pods.metrics.k8s.io)"})
	// A policy engine in team-b whose pod is crash-looping: selected, not
	// ready.
	g.service(b, "kyverno-svc", map[string]string{"app": "kyverno"})
	g.runningPod(b, "kyverno-6b8d9-0", node, map[string]string{"app": "kyverno"}, nil, memLimit("384Mi"))
	p, err := g.c.CoreV1().Pods(b).Get(g.ctx, "kyverno-6b8d9-0", metav1.GetOptions{})
	g.must("get pod", err)
	p.Status = runningStatus(false, 7, &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"})
	_, err = g.c.CoreV1().Pods(b).UpdateStatus(g.ctx, p, metav1.UpdateOptions{})
	g.must("kyverno pod status", err)
	g.endpointSlice(b, "kyverno-svc", 0, 3)
	g.webhookTo("kyverno", b, "kyverno-svc", admissionv1.Fail, &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"kube-system", b}}}})
	return map[string][]string{
		"service-selects-no-pod":            {a + " service/checkout"},
		"service-endpoints-miss-ready-pods": {a + " service/web-internal"},
		"ingress-backend-not-served":        {a + " ingress/shop"},
		"hpa-metrics-unavailable":           {a + " horizontalpodautoscaler/web"},
		"webhook-service-no-endpoints":      {"validatingwebhookconfiguration/kyverno-" + g.id + " webhook kyverno.casebook.test"},
	}
}

// buildHealthyTraffic serves the inference pods of ns (app=llm) through a
// Service with ready endpoints, an Ingress and an HPA that reads its
// metrics.
func (g *gapWorld) buildHealthyTraffic(ns string) {
	g.service(ns, "llm", map[string]string{"app": "llm"})
	g.endpointSlice(ns, "llm", 2, 0)
	g.ingress(ns, "llm", "llm")
	g.hpa(ns, "llm", autoscalingv2.HorizontalPodAutoscalerCondition{Type: autoscalingv2.ScalingActive, Status: corev1.ConditionTrue,
		Reason: "ValidMetricFound", Message: "the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)"})
}

func (g *gapWorld) service(ns, name string, sel map[string]string) {
	g.t.Helper()
	_, err := g.c.CoreV1().Services(ns).Create(g.ctx, &corev1.Service{ObjectMeta: g.meta(name, ns), Spec: corev1.ServiceSpec{
		Selector: sel, Ports: []corev1.ServicePort{{Port: 80}}}}, metav1.CreateOptions{})
	g.must("create service "+name, err)
}

// endpointSlice writes the slice the EndpointSlice controller keeps for a
// Service: ready and not-ready endpoints.
func (g *gapWorld) endpointSlice(ns, svc string, ready, notReady int) {
	g.t.Helper()
	m := g.meta(svc+"-"+g.id, ns)
	m.Labels[discoveryv1.LabelServiceName] = svc
	m.Labels[discoveryv1.LabelManagedBy] = "endpointslice-controller.k8s.io"
	es := &discoveryv1.EndpointSlice{ObjectMeta: m, AddressType: discoveryv1.AddressTypeIPv4,
		Ports: []discoveryv1.EndpointPort{{Port: ptr[int32](80)}}, Endpoints: []discoveryv1.Endpoint{}}
	for i := range ready + notReady {
		es.Endpoints = append(es.Endpoints, discoveryv1.Endpoint{Addresses: []string{"10.0.0." + string(rune('1'+i))},
			Conditions: discoveryv1.EndpointConditions{Ready: ptr(i < ready)}})
	}
	_, err := g.c.DiscoveryV1().EndpointSlices(ns).Create(g.ctx, es, metav1.CreateOptions{})
	g.must("create endpointslice "+svc, err)
}

func (g *gapWorld) ingress(ns, name string, backends ...string) {
	g.t.Helper()
	prefix := networkingv1.PathTypePrefix
	var paths []networkingv1.HTTPIngressPath
	for _, b := range backends {
		paths = append(paths, networkingv1.HTTPIngressPath{Path: "/" + b, PathType: &prefix, Backend: networkingv1.IngressBackend{
			Service: &networkingv1.IngressServiceBackend{Name: b, Port: networkingv1.ServiceBackendPort{Number: 80}}}})
	}
	_, err := g.c.NetworkingV1().Ingresses(ns).Create(g.ctx, &networkingv1.Ingress{ObjectMeta: g.meta(name, ns), Spec: networkingv1.IngressSpec{
		IngressClassName: ptr("nginx"),
		Rules:            []networkingv1.IngressRule{{Host: name + ".casebook.test", IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: paths}}}},
	}}, metav1.CreateOptions{})
	g.must("create ingress "+name, err)
}

// hpa creates an HPA on the Deployment of the same name and writes the
// status its controller would.
func (g *gapWorld) hpa(ns, name string, cond autoscalingv2.HorizontalPodAutoscalerCondition) {
	g.t.Helper()
	h, err := g.c.AutoscalingV2().HorizontalPodAutoscalers(ns).Create(g.ctx, &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: g.meta(name, ns),
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: name},
			MinReplicas:    ptr[int32](2), MaxReplicas: 10,
			Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
				Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr[int32](70)}}}},
		}}, metav1.CreateOptions{})
	g.must("create hpa "+name, err)
	cond.LastTransitionTime = metav1.Now()
	h.Status = autoscalingv2.HorizontalPodAutoscalerStatus{CurrentReplicas: 2, DesiredReplicas: 2, Conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{
		{Type: autoscalingv2.AbleToScale, Status: corev1.ConditionTrue, Reason: "ReadyForNewScale", LastTransitionTime: cond.LastTransitionTime}, cond}}
	_, err = g.c.AutoscalingV2().HorizontalPodAutoscalers(ns).UpdateStatus(g.ctx, h, metav1.UpdateOptions{})
	g.must("hpa status "+name, err)
}

// webhookTo is webhook with a backend Service of our choosing; like it, it
// only intercepts DELETE of CronJobs.
func (g *gapWorld) webhookTo(name, svcNS, svcName string, policy admissionv1.FailurePolicyType, nsSel *metav1.LabelSelector) {
	g.t.Helper()
	scope := admissionv1.NamespacedScope
	none := admissionv1.SideEffectClassNone
	_, err := g.c.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(g.ctx, &admissionv1.ValidatingWebhookConfiguration{
		ObjectMeta: g.meta(name+"-"+g.id, ""),
		Webhooks: []admissionv1.ValidatingWebhook{{
			Name: name + ".casebook.test", FailurePolicy: &policy, NamespaceSelector: nsSel, SideEffects: &none,
			AdmissionReviewVersions: []string{"v1"},
			ClientConfig:            admissionv1.WebhookClientConfig{Service: &admissionv1.ServiceReference{Namespace: svcNS, Name: svcName}},
			Rules: []admissionv1.RuleWithOperations{{Operations: []admissionv1.OperationType{admissionv1.Delete},
				Rule: admissionv1.Rule{APIGroups: []string{"batch"}, APIVersions: []string{"v1"}, Resources: []string{"cronjobs"}, Scope: &scope}}},
		}},
	}, metav1.CreateOptions{})
	g.must("create webhook "+name, err)
}
