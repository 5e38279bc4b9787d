package cluster

import (
	"context"
	"sort"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"casebook/internal/i18n"
	"casebook/internal/snapshot"
)

// owners follows the controller chain (ReplicaSet, Deployment, ...) at most
// three steps, reading each with get.
func (c *collection) owners(ns string, ref *metav1.OwnerReference) []snapshot.Owner {
	var out []snapshot.Owner
	for range 3 {
		if ref == nil {
			break
		}
		o, next, ok := c.owner(ns, ref.Kind, ref.Name)
		if !ok {
			out = append(out, snapshot.Owner{Kind: ref.Kind, Namespace: ns, Name: ref.Name})
			break
		}
		out = append(out, o)
		ref = next
	}
	return out
}

// owner reads one workload object and returns it with its own controller.
func (c *collection) owner(ns, kind, name string) (snapshot.Owner, *metav1.OwnerReference, bool) {
	o := snapshot.Owner{Kind: kind, Namespace: ns, Name: name}
	var next *metav1.OwnerReference
	apps := c.r.client.AppsV1()
	what := "get " + lowerKind(kind) + " " + ns + "/" + name
	switch kind {
	case "ReplicaSet":
		return o, next, c.read(what, perm("get", "apps", "replicasets", ns), func(ctx context.Context) error {
			rs, err := apps.ReplicaSets(ns).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			o.Replicas, o.ReadyReplicas = rs.Spec.Replicas, rs.Status.ReadyReplicas
			o.CreatedAt, o.CurrentReplicas, o.AvailableReplicas = rs.CreationTimestamp.UTC(), rs.Status.Replicas, rs.Status.AvailableReplicas
			o.Conditions = conditions(rs.Status.Conditions, func(c appsv1.ReplicaSetCondition) snapshot.Condition {
				return snapshot.Condition{Type: string(c.Type), Status: string(c.Status), Reason: c.Reason, Message: c.Message, LastTransitionTime: timePtr(c.LastTransitionTime)}
			})
			next = metav1.GetControllerOf(rs)
			return nil
		})
	case "Deployment":
		return o, next, c.read(what, perm("get", "apps", "deployments", ns), func(ctx context.Context) error {
			d, err := apps.Deployments(ns).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			o.Replicas, o.ReadyReplicas = d.Spec.Replicas, d.Status.ReadyReplicas
			o.CreatedAt, o.CurrentReplicas = d.CreationTimestamp.UTC(), d.Status.Replicas
			o.UpdatedReplicas, o.AvailableReplicas = d.Status.UpdatedReplicas, d.Status.AvailableReplicas
			o.Conditions = conditions(d.Status.Conditions, func(c appsv1.DeploymentCondition) snapshot.Condition {
				return snapshot.Condition{Type: string(c.Type), Status: string(c.Status), Reason: c.Reason, Message: c.Message, LastTransitionTime: timePtr(c.LastTransitionTime)}
			})
			return nil
		})
	case "StatefulSet":
		return o, next, c.read(what, perm("get", "apps", "statefulsets", ns), func(ctx context.Context) error {
			st, err := apps.StatefulSets(ns).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			o.Replicas, o.ReadyReplicas = st.Spec.Replicas, st.Status.ReadyReplicas
			o.CreatedAt, o.CurrentReplicas = st.CreationTimestamp.UTC(), st.Status.Replicas
			o.UpdatedReplicas, o.AvailableReplicas = st.Status.UpdatedReplicas, st.Status.AvailableReplicas
			return nil
		})
	case "Job":
		return o, next, c.read(what, perm("get", "batch", "jobs", ns), func(ctx context.Context) error {
			j, err := c.r.client.BatchV1().Jobs(ns).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			o.CreatedAt, o.Replicas, o.CurrentReplicas = j.CreationTimestamp.UTC(), j.Spec.Parallelism, j.Status.Active
			o.Conditions = conditions(j.Status.Conditions, func(c batchv1.JobCondition) snapshot.Condition {
				return snapshot.Condition{Type: string(c.Type), Status: string(c.Status), Reason: c.Reason, Message: c.Message, LastTransitionTime: timePtr(c.LastTransitionTime)}
			})
			next = metav1.GetControllerOf(j)
			return nil
		})
	}
	// DaemonSets, CronJobs and custom controllers are named, not read.
	return o, nil, false
}

func lowerKind(k string) string {
	switch k {
	case "ReplicaSet":
		return "replicaset"
	case "Deployment":
		return "deployment"
	case "StatefulSet":
		return "statefulset"
	case "Job":
		return "job"
	}
	return k
}

// forWorkload triages a workload: its most troubled pod if it has any,
// otherwise the workload itself, whose controller conditions and events
// say why no pod exists (an exceeded quota, typically).
func (c *collection) forWorkload(ns, kind, name string) (*snapshot.Snapshot, error) {
	sel, rsName, ok := c.workloadSelector(ns, kind, name)
	if !ok {
		if len(c.errs) == 0 {
			return nil, i18n.Errorf(snapshot.ErrUnavailable, "live.workload_unreadable", "kind", lowerKind(kind), "namespace", ns, "name", name)
		}
		return nil, targetError(c.errs[len(c.errs)-1])
	}
	var pods []corev1.Pod
	c.read("list pods in namespace "+ns, perm("list", "", "pods", ns), func(ctx context.Context) error {
		list, err := c.r.client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: sel, Limit: 200})
		if err == nil {
			pods = list.Items
		}
		return err
	})
	if len(pods) > 0 {
		sort.SliceStable(pods, func(i, j int) bool { return troubleRank(&pods[i]) > troubleRank(&pods[j]) })
		if troubleRank(&pods[0]) > 0 {
			return c.forPod(&pods[0]), nil
		}
	}
	// Every pod that exists is healthy. The workload may still be short of
	// pods its controller could not create (a quota, an admission webhook):
	// its ReplicaSet's or Job's FailedCreate decides, not the healthy pods.
	ws := c.workloadSnapshot(ns, kind, name, rsName)
	if len(pods) > 0 && (!refusesPods(ws) || !shortOfPods(ws, ownedBy(pods, rsName))) {
		return c.forPod(&pods[0]), nil
	}
	return ws, nil
}

// ownedBy counts the pods of the newest ReplicaSet ("" for a workload
// without one: all of them). In a rolling update the old ReplicaSet's
// healthy pods are not the new one's, which quota may refuse.
func ownedBy(pods []corev1.Pod, rsName string) int {
	if rsName == "" {
		return len(pods)
	}
	n := 0
	for i := range pods {
		for _, o := range pods[i].OwnerReferences {
			if o.Kind == "ReplicaSet" && o.Name == rsName {
				n++
			}
		}
	}
	return n
}

// shortOfPods reports whether the nearest controller wants more pods than
// exist; a Job (no replica count) is taken to want more when it refuses.
func shortOfPods(s *snapshot.Snapshot, have int) bool {
	for _, o := range s.Owners {
		if o.Kind == "ReplicaSet" && o.Replicas != nil {
			return int(*o.Replicas) > have
		}
	}
	return true
}

// refusesPods reports whether a workload's controller says it could not
// create pods: a ReplicaFailure condition or a FailedCreate event.
func refusesPods(s *snapshot.Snapshot) bool {
	for _, o := range s.Owners {
		for _, cnd := range o.Conditions {
			if cnd.Type == "ReplicaFailure" && cnd.Status == "True" {
				return true
			}
		}
	}
	for _, e := range s.Events {
		if e.Reason == "FailedCreate" {
			return true
		}
	}
	return false
}

// workloadSnapshot is the snapshot of a workload itself: its controller
// chain from the newest ReplicaSet (for a Deployment), their events, and
// the namespace's quotas.
func (c *collection) workloadSnapshot(ns, kind, name, rsName string) *snapshot.Snapshot {
	s := c.newSnapshot(ns, kind, name)
	ref := &metav1.OwnerReference{Kind: kind, Name: name}
	if rsName != "" {
		ref = &metav1.OwnerReference{Kind: "ReplicaSet", Name: rsName}
	}
	s.Owners = c.owners(ns, ref)
	for _, o := range s.Owners {
		s.Events = append(s.Events, c.events(ns, o.Kind, o.Name)...)
	}
	c.quotas(s)
	c.refusingWebhooks(s)
	sortEvents(s.Events)
	s.ReadErrors = c.errs
	return s
}

// workloadSelector reads a workload's pod selector; for a Deployment it
// also finds the newest ReplicaSet, which carries ReplicaFailure.
func (c *collection) workloadSelector(ns, kind, name string) (string, string, bool) {
	apps := c.r.client.AppsV1()
	var sel *metav1.LabelSelector
	rsName := ""
	what := "get " + lowerKind(kind) + " " + ns + "/" + name
	ok := false
	switch kind {
	case "Deployment":
		ok = c.read(what, perm("get", "apps", "deployments", ns), func(ctx context.Context) error {
			d, err := apps.Deployments(ns).Get(ctx, name, metav1.GetOptions{})
			if err == nil {
				sel = d.Spec.Selector
			}
			return err
		})
		if ok {
			rsName = c.newestReplicaSet(ns, name, sel)
		}
	case "ReplicaSet":
		ok = c.read(what, perm("get", "apps", "replicasets", ns), func(ctx context.Context) error {
			rs, err := apps.ReplicaSets(ns).Get(ctx, name, metav1.GetOptions{})
			if err == nil {
				sel, rsName = rs.Spec.Selector, rs.Name
			}
			return err
		})
	case "StatefulSet":
		ok = c.read(what, perm("get", "apps", "statefulsets", ns), func(ctx context.Context) error {
			st, err := apps.StatefulSets(ns).Get(ctx, name, metav1.GetOptions{})
			if err == nil {
				sel = st.Spec.Selector
			}
			return err
		})
	case "Job":
		ok = c.read(what, perm("get", "batch", "jobs", ns), func(ctx context.Context) error {
			j, err := c.r.client.BatchV1().Jobs(ns).Get(ctx, name, metav1.GetOptions{})
			if err == nil {
				sel = j.Spec.Selector
			}
			return err
		})
	}
	if !ok {
		return "", "", false
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil || s.Empty() {
		// An empty selector would list every pod of the namespace.
		return "nothing-matches=true", rsName, true
	}
	return s.String(), rsName, true
}

func (c *collection) newestReplicaSet(ns, deploy string, sel *metav1.LabelSelector) string {
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil || s.Empty() {
		return ""
	}
	name := ""
	c.read("list replicasets in namespace "+ns, perm("list", "apps", "replicasets", ns), func(ctx context.Context) error {
		list, err := c.r.client.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{LabelSelector: s.String(), Limit: 100})
		if err != nil {
			return err
		}
		var newest *appsv1.ReplicaSet
		for i := range list.Items {
			rs := &list.Items[i]
			if ref := metav1.GetControllerOf(rs); ref == nil || ref.Name != deploy {
				continue
			}
			if newest == nil || rs.CreationTimestamp.After(newest.CreationTimestamp.Time) {
				newest = rs
			}
		}
		if newest != nil {
			name = newest.Name
		}
		return nil
	})
	return name
}
