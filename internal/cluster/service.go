package cluster

import (
	"context"
	"sort"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"casebook/internal/snapshot"
)

// maxPodLabels bounds the pods whose labels a Service snapshot shows.
const maxPodLabels = 5

// forService reads a Service, the pods its selector matches and its
// EndpointSlices. The target must exist: a missing Service is an error.
func (c *collection) forService(ns, name string) (*snapshot.Snapshot, error) {
	svc, _ := c.service(ns, name)
	if svc == nil {
		return nil, targetError(c.errs[len(c.errs)-1])
	}
	s := c.newSnapshot(ns, "Service", name)
	st := &snapshot.Service{Name: name, Type: string(svc.Spec.Type), Selector: svc.Spec.Selector}
	st.Slices, st.Ready, st.NotReady = c.endpoints(ns, name)
	if len(svc.Spec.Selector) > 0 {
		sel := labels.SelectorFromSet(svc.Spec.Selector)
		c.read("list pods in namespace "+ns, perm("list", "", "pods", ns), func(ctx context.Context) error {
			list, err := c.r.client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{Limit: 500})
			if err != nil {
				return err
			}
			for i := range list.Items {
				p := &list.Items[i]
				if sel.Matches(labels.Set(p.Labels)) {
					st.MatchingPods++
				}
			}
			st.PodLabels = nearestPods(list.Items, svc.Spec.Selector)
			return nil
		})
	}
	s.Service = st
	s.Events = c.events(ns, "Service", name)
	sortEvents(s.Events)
	s.ReadErrors = c.errs
	return s, nil
}

// nearestPods are the pods that share the most selector labels, so the
// evidence shows the label that differs.
func nearestPods(pods []corev1.Pod, sel map[string]string) []snapshot.PodLabels {
	score := func(p *corev1.Pod) int {
		n := 0
		for k, v := range sel {
			if p.Labels[k] == v {
				n += 2
			} else if _, ok := p.Labels[k]; ok {
				n++
			}
		}
		return n
	}
	idx := make([]int, len(pods))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return score(&pods[idx[a]]) > score(&pods[idx[b]]) })
	var out []snapshot.PodLabels
	for _, i := range idx {
		if len(out) == maxPodLabels {
			break
		}
		out = append(out, snapshot.PodLabels{Name: pods[i].Name, Labels: pods[i].Labels})
	}
	return out
}

// service gets a Service; missing reports that it does not exist (the read
// error is recorded either way).
func (c *collection) service(ns, name string) (svc *corev1.Service, missing bool) {
	c.read("get service "+ns+"/"+name, perm("get", "", "services", ns), func(ctx context.Context) error {
		got, err := c.r.client.CoreV1().Services(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			missing = apierrors.IsNotFound(err)
			return err
		}
		svc = got
		return nil
	})
	return svc, missing
}

// endpoints counts the ready and not-ready endpoints of a Service's
// EndpointSlices. An endpoint whose ready condition is unset counts as
// ready, as the API asks consumers to read it.
func (c *collection) endpoints(ns, svc string) (slices []string, ready, notReady int) {
	c.read("list endpointslices in namespace "+ns, perm("list", "discovery.k8s.io", "endpointslices", ns), func(ctx context.Context) error {
		list, err := c.r.client.DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=" + svc, Limit: 100})
		if err != nil {
			return err
		}
		for _, sl := range list.Items {
			slices = append(slices, sl.Name)
			for _, ep := range sl.Endpoints {
				if ep.Conditions.Ready == nil || *ep.Conditions.Ready {
					ready++
				} else {
					notReady++
				}
			}
		}
		return nil
	})
	return slices, ready, notReady
}
