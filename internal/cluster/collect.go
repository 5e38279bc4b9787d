package cluster

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"casebook/internal/snapshot"
)

// collection is the state of one triage's reads: the snapshot being
// filled, its read errors, and caches shared by a scan's snapshots.
type collection struct {
	r    *Reader
	ctx  context.Context
	errs []snapshot.ReadError
	// cache holds cluster-wide reads (nodes, GPU DaemonSets, APIs) so a
	// namespace scan reads them once.
	cache *shared
}

type shared struct {
	nodes     []corev1.Node
	nodesRead bool
	nodesErr  []snapshot.ReadError
	nodePods  map[string][]corev1.Pod
	gpu       []snapshot.DaemonSet
	gpuErr    []snapshot.ReadError
	gpuRead   bool
	gpuEvents []snapshot.Event
	apis      map[string]bool
	policy    *snapshot.ClusterPolicy
	version   string
}

func (r *Reader) newCollection(ctx context.Context) *collection {
	return &collection{r: r, ctx: ctx, cache: &shared{nodePods: map[string][]corev1.Pod{}}}
}

// Collect reads everything triage needs about one target in a namespace:
// "POD", or "KIND/NAME" for a Deployment, ReplicaSet, StatefulSet, Job or
// CronJob (for a workload with no pods, the snapshot explains why none
// exist), a Service, an Ingress, a HorizontalPodAutoscaler or a
// PersistentVolumeClaim.
func (r *Reader) Collect(ctx context.Context, namespace, target string) (*snapshot.Snapshot, error) {
	if err := r.allowed(namespace); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, r.opts.CollectTimeout)
	defer cancel()
	c := r.newCollection(ctx)
	kind, name := "Pod", target
	if k, n, ok := strings.Cut(target, "/"); ok {
		kind, name = targetKind(k), n
		if kind == "" {
			return nil, fmt.Errorf("cluster: cannot triage a %q; name a pod, deployment, replicaset, statefulset, job, cronjob, service, ingress, hpa or pvc", k)
		}
	}
	switch kind {
	case "Pod":
		var pod *corev1.Pod
		ok := c.read("get pod "+namespace+"/"+name, perm("get", "", "pods", namespace), func(ctx context.Context) error {
			var err error
			pod, err = r.client.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{})
			return err
		})
		if !ok {
			return nil, targetError(c.errs[len(c.errs)-1])
		}
		return c.forPod(pod), nil
	case "Service":
		return c.forService(namespace, name)
	case "Ingress":
		return c.forIngress(namespace, name)
	case "HorizontalPodAutoscaler":
		return c.forHPA(namespace, name)
	case "CronJob":
		return c.forCronJob(namespace, name)
	case "PersistentVolumeClaim":
		return c.forPVC(namespace, name)
	}
	return c.forWorkload(namespace, kind, name)
}

// forPod fills a snapshot around one pod.
func (c *collection) forPod(pod *corev1.Pod) *snapshot.Snapshot {
	s := c.newSnapshot(pod.Namespace, "Pod", pod.Name)
	s.Pod = convertPod(pod)
	s.Events = append(s.Events, c.events(pod.Namespace, "Pod", pod.Name)...)
	s.Owners = c.owners(pod.Namespace, metav1.GetControllerOf(pod))
	c.nodesFor(s)
	c.quotas(s)
	c.priorityClass(s)
	c.volumes(s)
	c.attachments(s)
	c.claims(s)
	c.gpuStack(s)
	c.logs(s, pod)
	sortEvents(s.Events)
	s.ReadErrors = c.errs
	return s
}

func (c *collection) newSnapshot(ns, kind, name string) *snapshot.Snapshot {
	return &snapshot.Snapshot{
		Version:       snapshot.Version,
		CollectedAt:   time.Now().UTC(),
		ServerVersion: c.serverVersion(),
		Target:        snapshot.Target{Namespace: ns, Kind: kind, Name: name},
		APIs:          map[string]bool{},
	}
}

func (c *collection) serverVersion() string {
	if c.cache.version == "" {
		c.read("get version", perm("get", "", "/version", ""), func(ctx context.Context) error {
			v, err := c.r.client.Discovery().ServerVersion()
			if err == nil {
				c.cache.version = v.GitVersion
			}
			return err
		})
	}
	return c.cache.version
}

// events lists the events of one object, selected by the server.
func (c *collection) events(ns, kind, name string) []snapshot.Event {
	var out []snapshot.Event
	sel := fields.Set{"involvedObject.kind": kind, "involvedObject.name": name}.AsSelector().String()
	c.read("list events in namespace "+ns, perm("list", "", "events", ns), func(ctx context.Context) error {
		list, err := c.r.client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: sel, Limit: 200})
		if err != nil {
			return err
		}
		for i := range list.Items {
			out = append(out, convertEvent(&list.Items[i]))
		}
		return nil
	})
	return out
}

func (c *collection) quotas(s *snapshot.Snapshot) {
	ns := s.Target.Namespace
	c.read("list resourcequotas in namespace "+ns, perm("list", "", "resourcequotas", ns), func(ctx context.Context) error {
		list, err := c.r.client.CoreV1().ResourceQuotas(ns).List(ctx, metav1.ListOptions{Limit: 100})
		if err != nil {
			return err
		}
		for _, q := range list.Items {
			s.Quotas = append(s.Quotas, snapshot.Quota{Name: q.Name, Hard: resources(q.Status.Hard), Used: resources(q.Status.Used),
				CreatedAt: q.CreationTimestamp.UTC()})
		}
		return nil
	})
}

func (c *collection) priorityClass(s *snapshot.Snapshot) {
	name := s.Pod.PriorityClassName
	if name == "" {
		return
	}
	c.read("get priorityclass "+name, perm("get", "scheduling.k8s.io", "priorityclasses", ""), func(ctx context.Context) error {
		pc, err := c.r.client.SchedulingV1().PriorityClasses().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		s.PriorityClass = &snapshot.PriorityClass{Name: pc.Name, Value: pc.Value, GlobalDefault: pc.GlobalDefault}
		if pc.PreemptionPolicy != nil {
			s.PriorityClass.PreemptionPolicy = string(*pc.PreemptionPolicy)
		}
		return nil
	})
}
