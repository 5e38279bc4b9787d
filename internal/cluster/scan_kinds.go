package cluster

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"casebook/internal/snapshot"
)

// candidate is an object a scan triages: its kind and name.
type candidate struct{ kind, name string }

// troubledObjects lists, beside the pods, the objects of a namespace that
// show trouble on their own (as k8sgpt's analyzers do): a Service with a
// selector and no ready endpoint, every Ingress (whose backends only a
// full read judges), an HPA with ScalingActive or AbleToScale False, a
// failed Job, a Deployment whose Progressing is False, an unbound claim,
// and a webhook configuration whose fail-closed webhook is served from
// this namespace by a Service without endpoints. covered names the owners the pods' snapshots already show.
func (c *collection) troubledObjects(ns string, covered map[candidate]bool) []candidate {
	var out []candidate
	add := func(kind, name string) {
		if k := (candidate{kind, name}); !covered[k] {
			covered[k] = true
			out = append(out, k)
		}
	}
	ready := map[string]int{}
	c.read("list endpointslices in namespace "+ns, perm("list", "discovery.k8s.io", "endpointslices", ns), func(ctx context.Context) error {
		list, err := c.r.client.DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{Limit: 1000})
		if err != nil {
			return err
		}
		for _, sl := range list.Items {
			for _, ep := range sl.Endpoints {
				if ep.Conditions.Ready == nil || *ep.Conditions.Ready {
					ready[sl.Labels[discoveryv1.LabelServiceName]]++
				}
			}
		}
		return nil
	})
	c.read("list services in namespace "+ns, perm("list", "", "services", ns), func(ctx context.Context) error {
		list, err := c.r.client.CoreV1().Services(ns).List(ctx, metav1.ListOptions{Limit: 1000})
		if err != nil {
			return err
		}
		for _, s := range list.Items {
			if len(s.Spec.Selector) > 0 && ready[s.Name] == 0 {
				add("Service", s.Name)
			}
		}
		return nil
	})
	c.read("list ingresses in namespace "+ns, perm("list", "networking.k8s.io", "ingresses", ns), func(ctx context.Context) error {
		list, err := c.r.client.NetworkingV1().Ingresses(ns).List(ctx, metav1.ListOptions{Limit: 200})
		if err != nil {
			return err
		}
		for _, i := range list.Items {
			add("Ingress", i.Name)
		}
		return nil
	})
	c.read("list horizontalpodautoscalers in namespace "+ns, perm("list", "autoscaling", "horizontalpodautoscalers", ns), func(ctx context.Context) error {
		list, err := c.r.client.AutoscalingV2().HorizontalPodAutoscalers(ns).List(ctx, metav1.ListOptions{Limit: 1000})
		if err != nil {
			return err
		}
		for i := range list.Items {
			if _, stuck := convertHPA(&list.Items[i]).Stuck(); stuck {
				add("HorizontalPodAutoscaler", list.Items[i].Name)
			}
		}
		return nil
	})
	c.read("list jobs in namespace "+ns, perm("list", "batch", "jobs", ns), func(ctx context.Context) error {
		list, err := c.r.client.BatchV1().Jobs(ns).List(ctx, metav1.ListOptions{Limit: 1000})
		if err != nil {
			return err
		}
		for _, j := range list.Items {
			for _, cnd := range j.Status.Conditions {
				if cnd.Type == batchv1.JobFailed && cnd.Status == corev1.ConditionTrue {
					add("Job", j.Name)
				}
			}
		}
		return nil
	})
	c.read("list deployments in namespace "+ns, perm("list", "apps", "deployments", ns), func(ctx context.Context) error {
		list, err := c.r.client.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{Limit: 1000})
		if err != nil {
			return err
		}
		for _, d := range list.Items {
			for _, cnd := range d.Status.Conditions {
				if cnd.Type == appsv1.DeploymentProgressing && cnd.Status == corev1.ConditionFalse {
					add("Deployment", d.Name)
				}
			}
		}
		return nil
	})
	c.read("list persistentvolumeclaims in namespace "+ns, perm("list", "", "persistentvolumeclaims", ns), func(ctx context.Context) error {
		list, err := c.r.client.CoreV1().PersistentVolumeClaims(ns).List(ctx, metav1.ListOptions{Limit: 1000})
		if err != nil {
			return err
		}
		for _, p := range list.Items {
			if p.Status.Phase == corev1.ClaimPending {
				add("PersistentVolumeClaim", p.Name)
			}
		}
		return nil
	})
	for _, k := range c.failClosedWebhooks(ns) {
		add(k.kind, k.name)
	}
	return out
}

// objectSnapshot triages one object a scan found; nil when a closer read
// shows nothing wrong (an Ingress whose backends all serve).
func (c *collection) objectSnapshot(ns string, k candidate) *snapshot.Snapshot {
	var s *snapshot.Snapshot
	var err error
	switch k.kind {
	case "Service":
		s, err = c.forService(ns, k.name)
	case "Ingress":
		s, err = c.forIngress(ns, k.name)
		if err == nil && !s.Ingress.Broken() {
			return nil
		}
	case "HorizontalPodAutoscaler":
		s, err = c.forHPA(ns, k.name)
	case "PersistentVolumeClaim":
		s, err = c.forPVC(ns, k.name)
	case "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration":
		return c.forWebhookConfig(ns, k)
	default:
		s, err = c.forWorkload(ns, k.kind, k.name)
	}
	if err != nil {
		return nil
	}
	return s
}
