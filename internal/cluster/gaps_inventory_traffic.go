package cluster

import (
	"context"
	"slices"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"casebook/internal/inventory"
	"casebook/internal/snapshot"
)

// traffic reads, per namespace of the allow-list, what the traffic and
// autoscaling gap checks look at: Services, their EndpointSlices (counted,
// never their addresses), Ingresses and HorizontalPodAutoscalers.
func (ir *inventoryRead) traffic() {
	for _, ns := range ir.namespacesToRead() {
		ir.services(ns)
		ir.endpointSlices(ns)
		ir.ingresses(ns)
		ir.autoscalers(ns)
	}
}

func (ir *inventoryRead) services(ns string) {
	items := listAll(ir, "services", inNamespace("list services", ns), perm("list", "", "services", ns),
		func(ctx context.Context, o metav1.ListOptions) (page[corev1.Service], error) {
			l, err := ir.r.client.CoreV1().Services(ns).List(ctx, o)
			if err != nil {
				return page[corev1.Service]{}, err
			}
			return page[corev1.Service]{l.Items, l.Continue}, nil
		})
	for _, s := range items {
		ir.inv.Services = append(ir.inv.Services, inventory.Service{Namespace: s.Namespace, Name: s.Name,
			Type: string(s.Spec.Type), Selector: orEmpty(s.Spec.Selector)})
	}
}

func (ir *inventoryRead) endpointSlices(ns string) {
	items := listAll(ir, "endpointSlices", inNamespace("list endpointslices", ns), perm("list", "discovery.k8s.io", "endpointslices", ns),
		func(ctx context.Context, o metav1.ListOptions) (page[discoveryv1.EndpointSlice], error) {
			l, err := ir.r.client.DiscoveryV1().EndpointSlices(ns).List(ctx, o)
			if err != nil {
				return page[discoveryv1.EndpointSlice]{}, err
			}
			return page[discoveryv1.EndpointSlice]{l.Items, l.Continue}, nil
		})
	for _, s := range items {
		es := inventory.EndpointSlice{Namespace: s.Namespace, Name: s.Name, Service: s.Labels[discoveryv1.LabelServiceName],
			Endpoints: int32(len(s.Endpoints))}
		for _, e := range s.Endpoints {
			// A nil ready means unknown, which consumers treat as ready.
			if e.Conditions.Ready == nil || *e.Conditions.Ready {
				es.Ready++
			}
		}
		ir.inv.EndpointSlices = append(ir.inv.EndpointSlices, es)
	}
}

func (ir *inventoryRead) ingresses(ns string) {
	items := listAll(ir, "ingresses", inNamespace("list ingresses", ns), perm("list", "networking.k8s.io", "ingresses", ns),
		func(ctx context.Context, o metav1.ListOptions) (page[networkingv1.Ingress], error) {
			l, err := ir.r.client.NetworkingV1().Ingresses(ns).List(ctx, o)
			if err != nil {
				return page[networkingv1.Ingress]{}, err
			}
			return page[networkingv1.Ingress]{l.Items, l.Continue}, nil
		})
	for _, in := range items {
		out := inventory.Ingress{Namespace: in.Namespace, Name: in.Name, Backends: []string{}, TLSSecrets: []string{}}
		if in.Spec.IngressClassName != nil {
			out.ClassName = *in.Spec.IngressClassName
		}
		add := func(b *networkingv1.IngressBackend) {
			if b != nil && b.Service != nil && !slices.Contains(out.Backends, b.Service.Name) {
				out.Backends = append(out.Backends, b.Service.Name)
			}
		}
		add(in.Spec.DefaultBackend)
		for _, r := range in.Spec.Rules {
			if r.HTTP == nil {
				continue
			}
			for _, p := range r.HTTP.Paths {
				add(&p.Backend)
			}
		}
		for _, t := range in.Spec.TLS {
			if t.SecretName != "" {
				out.TLSSecrets = append(out.TLSSecrets, t.SecretName)
			}
		}
		ir.inv.Ingresses = append(ir.inv.Ingresses, out)
	}
}

func (ir *inventoryRead) autoscalers(ns string) {
	items := listAll(ir, "horizontalPodAutoscalers", inNamespace("list horizontalpodautoscalers", ns),
		perm("list", "autoscaling", "horizontalpodautoscalers", ns),
		func(ctx context.Context, o metav1.ListOptions) (page[autoscalingv2.HorizontalPodAutoscaler], error) {
			l, err := ir.r.client.AutoscalingV2().HorizontalPodAutoscalers(ns).List(ctx, o)
			if err != nil {
				return page[autoscalingv2.HorizontalPodAutoscaler]{}, err
			}
			return page[autoscalingv2.HorizontalPodAutoscaler]{l.Items, l.Continue}, nil
		})
	for _, h := range items {
		out := inventory.HorizontalPodAutoscaler{Namespace: h.Namespace, Name: h.Name,
			Target:      h.Spec.ScaleTargetRef.Kind + "/" + h.Spec.ScaleTargetRef.Name,
			MaxReplicas: h.Spec.MaxReplicas, CurrentReplicas: h.Status.CurrentReplicas, DesiredReplicas: h.Status.DesiredReplicas,
			MinReplicas: 1,
			Conditions: conditions(h.Status.Conditions, func(c autoscalingv2.HorizontalPodAutoscalerCondition) snapshot.Condition {
				return snapshot.Condition{Type: string(c.Type), Status: string(c.Status), Reason: c.Reason, Message: c.Message,
					LastTransitionTime: timePtr(c.LastTransitionTime)}
			})}
		if h.Spec.MinReplicas != nil {
			out.MinReplicas = *h.Spec.MinReplicas
		}
		if out.Conditions == nil {
			out.Conditions = []snapshot.Condition{}
		}
		ir.inv.HorizontalPodAutoscalers = append(ir.inv.HorizontalPodAutoscalers, out)
	}
}
