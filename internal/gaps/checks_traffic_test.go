package gaps

import (
	"casebook/internal/inventory"
	"casebook/internal/snapshot"
)

// Cases for the checks about Services, Ingresses, HPAs and webhook
// backends; they join shippedCases.
func init() {
	for id, cases := range trafficCases {
		shippedCases[id] = cases
	}
}

func service(ns, name string, sel map[string]string) inventory.Service {
	return inventory.Service{Namespace: ns, Name: name, Type: "ClusterIP", Selector: sel}
}

func slice(ns, svc string, endpoints, ready int32) inventory.EndpointSlice {
	return inventory.EndpointSlice{Namespace: ns, Name: svc + "-x7k2p", Service: svc, Endpoints: endpoints, Ready: ready}
}

func labelled(p inventory.Pod, l map[string]string) inventory.Pod {
	p.Labels = l
	return p
}

func hpa(cond ...snapshot.Condition) inventory.HorizontalPodAutoscaler {
	return inventory.HorizontalPodAutoscaler{Namespace: "shop", Name: "checkout", Target: "Deployment/checkout",
		MinReplicas: 3, MaxReplicas: 30, CurrentReplicas: 3, DesiredReplicas: 3, Conditions: cond}
}

var trafficCases = map[string][]checkCase{
	"service-selects-no-pod": {
		{name: "pods removed, service kept", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Services = []inventory.Service{service("eventgate", "main", labels("app", "eventgate", "release", "main"))}
			i.Pods = []inventory.Pod{labelled(pod("eventgate", "analytics-0", "", "w-1"), labels("app", "eventgate", "release", "analytics"))}
		})), want: []string{"eventgate service/main"}, detail: "selector app=eventgate,release=main matches no pod in namespace eventgate"},
		{name: "same labels in another namespace do not count", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Services = []inventory.Service{service("shop", "web", labels("app", "web"))}
			i.Pods = []inventory.Pod{labelled(pod("staging", "web-0", "", "w-1"), labels("app", "web"))}
		})), want: []string{"shop service/web"}},
		{name: "selector matches a pod", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Services = []inventory.Service{service("shop", "web", labels("app", "web"))}
			i.Pods = []inventory.Pod{labelled(pod("shop", "web-0", "", "w-1"), labels("app", "web", "pod-template-hash", "5d8f"))}
		}))},
		{name: "no selector, ExternalName", inv: newInventory(with(func(i *inventory.Inventory) {
			ext := service("shop", "payments", nil)
			ext.Type = "ExternalName"
			i.Services = []inventory.Service{service("default", "kubernetes", map[string]string{}), ext}
		}))},
	},
	"service-endpoints-miss-ready-pods": {
		{name: "endpoints stuck not ready after a partition", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Services = []inventory.Service{service("shop", "web", labels("app", "web"))}
			i.EndpointSlices = []inventory.EndpointSlice{slice("shop", "web", 2, 0)}
			i.Pods = []inventory.Pod{labelled(pod("shop", "web-0", "", "w-1"), labels("app", "web")), labelled(pod("shop", "web-1", "", "w-2"), labels("app", "web"))}
		})), want: []string{"shop service/web"}, detail: "2 Ready pod(s) selected, 0 ready endpoints in web-x7k2p"},
		{name: "pods not ready either", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Services = []inventory.Service{service("shop", "web", labels("app", "web"))}
			i.EndpointSlices = []inventory.EndpointSlice{slice("shop", "web", 1, 0)}
			p := labelled(pod("shop", "web-0", "", "w-1"), labels("app", "web"))
			p.Ready = false
			i.Pods = []inventory.Pod{p}
		}))},
		{name: "endpoints ready", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Services = []inventory.Service{service("shop", "web", labels("app", "web"))}
			i.EndpointSlices = []inventory.EndpointSlice{slice("shop", "web", 1, 1)}
			i.Pods = []inventory.Pod{labelled(pod("shop", "web-0", "", "w-1"), labels("app", "web"))}
		}))},
		{name: "no EndpointSlice controller: not judged", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Services = []inventory.Service{service("shop", "web", labels("app", "web"))}
			i.Pods = []inventory.Pod{labelled(pod("shop", "web-0", "", "w-1"), labels("app", "web"))}
		}))},
	},
	"ingress-backend-not-served": {
		{name: "backend crash-looping, another missing", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Ingresses = []inventory.Ingress{{Namespace: "prow", Name: "prow", Backends: []string{"hook", "deck", "tide"}}}
			i.Services = []inventory.Service{service("prow", "hook", labels("app", "hook")), service("prow", "deck", labels("app", "deck"))}
			i.EndpointSlices = []inventory.EndpointSlice{slice("prow", "hook", 2, 0), slice("prow", "deck", 2, 2)}
		})), want: []string{"prow ingress/prow"}, detail: "service tide does not exist; service hook has no ready endpoint"},
		{name: "every backend has a ready endpoint", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Ingresses = []inventory.Ingress{{Namespace: "prow", Name: "prow", Backends: []string{"hook"}}}
			i.Services = []inventory.Service{service("prow", "hook", labels("app", "hook"))}
			i.EndpointSlices = []inventory.EndpointSlice{slice("prow", "hook", 2, 0), slice("prow", "hook", 1, 1)}
		}))},
		{name: "no EndpointSlice controller: not judged", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Ingresses = []inventory.Ingress{{Namespace: "prow", Name: "prow", Backends: []string{"hook"}}}
			i.Services = []inventory.Service{service("prow", "hook", labels("app", "hook"))}
		}))},
	},
	"hpa-metrics-unavailable": {
		{name: "metrics API down", inv: newInventory(with(func(i *inventory.Inventory) {
			i.HorizontalPodAutoscalers = []inventory.HorizontalPodAutoscaler{hpa(
				snapshot.Condition{Type: "AbleToScale", Status: "True", Reason: "SucceededGetScale"},
				snapshot.Condition{Type: "ScalingActive", Status: "False", Reason: "FailedGetResourceMetric",
					Message: "the HPA was unable to compute the replica count: failed to get cpu utilization: unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API: the server is currently unable to handle the request (get pods.metrics.k8s.io)"})}
		})), want: []string{"shop horizontalpodautoscaler/checkout"}, detail: "Deployment/checkout at 3 of 3-30 replicas; FailedGetResourceMetric: the HPA was unable"},
		{name: "scaling active", inv: newInventory(with(func(i *inventory.Inventory) {
			i.HorizontalPodAutoscalers = []inventory.HorizontalPodAutoscaler{hpa(
				snapshot.Condition{Type: "ScalingActive", Status: "True", Reason: "ValidMetricFound"},
				snapshot.Condition{Type: "ScalingLimited", Status: "True", Reason: "TooFewReplicas"})}
		}))},
		{name: "scaled to zero on purpose", inv: newInventory(with(func(i *inventory.Inventory) {
			i.HorizontalPodAutoscalers = []inventory.HorizontalPodAutoscaler{hpa(
				snapshot.Condition{Type: "ScalingActive", Status: "False", Reason: "ScalingDisabled", Message: "scaling is disabled since the replica count of the target is zero"})}
		}))},
	},
	"webhook-service-no-endpoints": {
		{name: "backend crash-looping", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Webhooks = []inventory.Webhook{webhook("kyverno-resource", "Fail", inventory.LabelSelector{})}
			i.Webhooks[0].Service = "kyverno/kyverno-svc"
			i.Services = []inventory.Service{service("kyverno", "kyverno-svc", labels("app", "kyverno"))}
			i.EndpointSlices = []inventory.EndpointSlice{slice("kyverno", "kyverno-svc", 3, 0)}
		})), want: []string{"validatingwebhookconfiguration/kyverno-resource webhook kyverno-resource.example.com"}, detail: "service kyverno/kyverno-svc has no ready endpoint, timeout 10s"},
		{name: "service gone with its operator", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Webhooks = []inventory.Webhook{webhook("opa", "Fail", inventory.LabelSelector{}), webhook("audit", "Ignore", inventory.LabelSelector{})}
		})), want: []string{"validatingwebhookconfiguration/opa webhook opa.example.com"}, detail: "service policy/opa does not exist"},
		{name: "backend outside the namespaces read", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Scope.Namespaces = []string{"team-a"}
			i.Webhooks = []inventory.Webhook{webhook("opa", "Fail", inventory.LabelSelector{})}
		}))},
		{name: "backend ready", inv: newInventory(with(func(i *inventory.Inventory) {
			i.Webhooks = []inventory.Webhook{webhook("opa", "Fail", inventory.LabelSelector{})}
			i.Services = []inventory.Service{service("policy", "opa", labels("app", "opa"))}
			i.EndpointSlices = []inventory.EndpointSlice{slice("policy", "opa", 2, 2)}
		}))},
	},
}
