package cluster

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"casebook/internal/snapshot"
)

// maxNodes bounds the node list; triage of a larger cluster still works
// from the first page, and says so through the evidence it shows.
const maxNodes = 2000

// nodesFor reads the nodes (once per collection) and, for the nodes that
// matter to this pod, what their pods request: the pod's own node, or the
// nodes its selector admits, GPU nodes first when it asks for GPUs.
func (c *collection) nodesFor(s *snapshot.Snapshot) {
	if !c.cache.nodesRead {
		c.cache.nodesRead = true
		before := len(c.errs)
		c.read("list nodes", perm("list", "", "nodes", ""), func(ctx context.Context) error {
			list, err := c.r.client.CoreV1().Nodes().List(ctx, metav1.ListOptions{Limit: maxNodes})
			if err == nil {
				c.cache.nodes = list.Items
			}
			return err
		})
		c.cache.nodesErr = append([]snapshot.ReadError(nil), c.errs[before:]...)
	} else {
		c.errs = append(c.errs, c.cache.nodesErr...)
	}
	for i := range c.cache.nodes {
		s.Nodes = append(s.Nodes, convertNode(&c.cache.nodes[i]))
	}
	budget := c.r.opts.MaxNodes
	for _, n := range candidateNodes(s) {
		if budget == 0 {
			break
		}
		budget--
		pods, ok := c.podsOnNode(n.Name)
		if !ok {
			continue
		}
		req := snapshot.ResourceList{}
		for i := range pods {
			req.Add(convertPod(&pods[i]).Requests())
		}
		n.Requested, n.RequestedKnown, n.PodCount = req, true, len(pods)
	}
}

// candidateNodes orders the nodes whose free capacity matters: the pod's
// own node, then nodes its selector admits, GPU nodes before others when
// the pod requests GPUs.
func candidateNodes(s *snapshot.Snapshot) []*snapshot.Node {
	var first, gpu, rest []*snapshot.Node
	wantsGPU := false
	if s.Pod != nil {
		for name := range s.Pod.Requests() {
			wantsGPU = wantsGPU || (snapshot.IsExtended(name) && snapshot.IsGPUResource(name))
		}
	}
	for i := range s.Nodes {
		n := &s.Nodes[i]
		switch {
		case s.Pod != nil && n.Name == s.Pod.NodeName:
			first = append(first, n)
		case s.Pod != nil && !s.Pod.MatchesNode(n):
		case n.IsGPUNode():
			gpu = append(gpu, n)
		case !wantsGPU:
			rest = append(rest, n)
		}
	}
	return append(append(first, gpu...), rest...)
}

// podsOnNode lists the non-terminated pods bound to one node, with a field
// selector, so the server returns that node's pods and nothing else.
func (c *collection) podsOnNode(node string) ([]corev1.Pod, bool) {
	if pods, ok := c.cache.nodePods[node]; ok {
		return pods, true
	}
	sel := fields.AndSelectors(
		fields.OneTermEqualSelector("spec.nodeName", node),
		fields.OneTermNotEqualSelector("status.phase", string(corev1.PodSucceeded)),
		fields.OneTermNotEqualSelector("status.phase", string(corev1.PodFailed)),
	).String()
	var pods []corev1.Pod
	ok := c.read("list pods on node "+node, perm("list", "", "pods", ""), func(ctx context.Context) error {
		list, err := c.r.client.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: sel, Limit: 500})
		if err == nil {
			pods = list.Items
		}
		return err
	})
	if ok {
		c.cache.nodePods[node] = pods
	}
	return pods, ok
}
