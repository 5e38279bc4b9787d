package cluster

import (
	"context"
	"io"
	"sort"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"casebook/internal/snapshot"
)

// Scan finds the troubled pods of a namespace (Pending, crash looping,
// OOMKilled, Evicted, not Ready), the ReplicaSets that cannot create pods
// and the other troubled objects (see troubledObjects), and collects a
// snapshot for each, pods worst first, at most MaxScan.
func (r *Reader) Scan(ctx context.Context, namespace string) (*snapshot.Scan, error) {
	if err := r.allowed(namespace); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, r.opts.CollectTimeout)
	defer cancel()
	c := r.newCollection(ctx)
	out := &snapshot.Scan{Version: snapshot.Version, CollectedAt: time.Now().UTC(), Namespace: namespace, Snapshots: []snapshot.Snapshot{}}

	var pods []corev1.Pod
	ok := c.read("list pods in namespace "+namespace, perm("list", "", "pods", namespace), func(ctx context.Context) error {
		list, err := r.client.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{Limit: 1000})
		if err == nil {
			pods = list.Items
		}
		return err
	})
	if !ok {
		// Without the pods there is nothing to scan; an empty result
		// would read as "no troubled pods".
		return nil, targetError(c.errs[len(c.errs)-1])
	}
	var troubled []*corev1.Pod
	for i := range pods {
		if troubleRank(&pods[i]) > 0 {
			troubled = append(troubled, &pods[i])
		}
	}
	sort.SliceStable(troubled, func(i, j int) bool { return troubleRank(troubled[i]) > troubleRank(troubled[j]) })

	var failing []string
	c.read("list replicasets in namespace "+namespace, perm("list", "apps", "replicasets", namespace), func(ctx context.Context) error {
		list, err := r.client.AppsV1().ReplicaSets(namespace).List(ctx, metav1.ListOptions{Limit: 1000})
		if err != nil {
			return err
		}
		for _, rs := range list.Items {
			for _, cnd := range rs.Status.Conditions {
				if cnd.Type == appsv1.ReplicaSetReplicaFailure && cnd.Status == corev1.ConditionTrue {
					failing = append(failing, rs.Name)
				}
			}
		}
		return nil
	})
	out.ReadErrors = c.errs

	shared := c.cache
	for _, p := range troubled {
		if len(out.Snapshots) == r.opts.MaxScan {
			out.Truncated = true
			break
		}
		pc := &collection{r: r, ctx: ctx, cache: shared}
		out.Snapshots = append(out.Snapshots, *pc.forPod(p))
	}
	for _, name := range failing {
		if len(out.Snapshots) == r.opts.MaxScan {
			out.Truncated = true
			break
		}
		pc := &collection{r: r, ctx: ctx, cache: shared}
		s, err := pc.forWorkload(namespace, "ReplicaSet", name)
		if err == nil && s.Pod == nil {
			out.Snapshots = append(out.Snapshots, *s)
		}
	}
	// The owners and claims the snapshots so far show are not read again.
	covered := map[candidate]bool{}
	for _, s := range out.Snapshots {
		covered[candidate{s.Target.Kind, s.Target.Name}] = true
		for _, o := range s.Owners {
			covered[candidate{o.Kind, o.Name}] = true
		}
		for _, p := range s.PVCs {
			covered[candidate{"PersistentVolumeClaim", p.Name}] = true
		}
	}
	for _, k := range c.troubledObjects(namespace, covered) {
		if len(out.Snapshots) == r.opts.MaxScan {
			out.Truncated = true
			break
		}
		pc := &collection{r: r, ctx: ctx, cache: shared}
		if s := pc.objectSnapshot(namespace, k); s != nil {
			out.Snapshots = append(out.Snapshots, *s)
		}
	}
	out.ReadErrors = c.errs
	return out, nil
}

// troubleRank orders pods for a scan: 0 is healthy; higher is worse.
func troubleRank(p *corev1.Pod) int {
	if p.Status.Reason == "Evicted" {
		return 4
	}
	rank := 0
	for _, s := range append(append([]corev1.ContainerStatus{}, p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...) {
		if t := s.LastTerminationState.Terminated; t != nil && t.Reason == "OOMKilled" {
			rank = max(rank, 5)
		}
		if w := s.State.Waiting; w != nil && w.Reason != "" && w.Reason != "ContainerCreating" && w.Reason != "PodInitializing" {
			rank = max(rank, 5)
		}
		if s.RestartCount > 0 {
			rank = max(rank, 3)
		}
	}
	switch {
	case rank > 0:
		return rank
	case p.Status.Phase == corev1.PodPending:
		return 6
	case p.Status.Phase == corev1.PodFailed:
		return 2
	case p.Status.Phase == corev1.PodSucceeded:
		return 0
	}
	for _, cnd := range p.Status.Conditions {
		if cnd.Type == corev1.PodReady && cnd.Status != corev1.ConditionTrue {
			return 1
		}
	}
	return 0
}

// LoadSnapshot reads a snapshot file (one snapshot or a scan) so a team
// without access to the cluster can triage from a download; see
// snapshot.Decode for what it rejects.
func LoadSnapshot(r io.Reader) ([]snapshot.Snapshot, error) {
	return snapshot.Decode(r)
}
