package cluster

import (
	"context"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"casebook/internal/snapshot"
)

// gpuStack reads the NVIDIA DaemonSets (GPU Operator operands or the
// standalone device plugin) and their pods, once per collection.
func (c *collection) gpuStack(s *snapshot.Snapshot) {
	if !c.cache.gpuRead {
		c.cache.gpuRead = true
		before := len(c.errs)
		c.cache.gpu = c.readGPUDaemonSets()
		c.cache.gpuEvents = c.gpuPodEvents(c.cache.gpu)
		c.cache.policy = c.clusterPolicy(s)
		c.cache.gpuErr = append([]snapshot.ReadError(nil), c.errs[before:]...)
	} else {
		c.errs = append(c.errs, c.cache.gpuErr...)
	}
	s.DaemonSets = append(s.DaemonSets, c.cache.gpu...)
	s.Events = append(s.Events, c.cache.gpuEvents...)
	s.ClusterPolicy = c.cache.policy
}

// readGPUDaemonSets lists DaemonSets in all namespaces (a short list even
// in large clusters; the stack lives in gpu-operator, kube-system or a
// namespace of the team's choosing) and keeps NVIDIA's.
func (c *collection) readGPUDaemonSets() []snapshot.DaemonSet {
	var dss []appsv1.DaemonSet
	c.read("list daemonsets", perm("list", "apps", "daemonsets", ""), func(ctx context.Context) error {
		list, err := c.r.client.AppsV1().DaemonSets("").List(ctx, metav1.ListOptions{Limit: 500})
		if err == nil {
			dss = list.Items
		}
		return err
	})
	var out []snapshot.DaemonSet
	for i := range dss {
		ds := &dss[i]
		comp := gpuComponent(ds)
		if comp == "" {
			continue
		}
		sd := snapshot.DaemonSet{
			Namespace: ds.Namespace, Name: ds.Name, Component: comp, Labels: ds.Labels,
			NodeSelector:           ds.Spec.Template.Spec.NodeSelector,
			DesiredNumberScheduled: ds.Status.DesiredNumberScheduled,
			NumberReady:            ds.Status.NumberReady,
			NumberUnavailable:      ds.Status.NumberUnavailable,
			CurrentNumberScheduled: ds.Status.CurrentNumberScheduled,
			UpdatedNumberScheduled: ds.Status.UpdatedNumberScheduled,
			NumberAvailable:        ds.Status.NumberAvailable,
			CreatedAt:              ds.CreationTimestamp.UTC(),
		}
		sel, err := metav1.LabelSelectorAsSelector(ds.Spec.Selector)
		if err == nil && !sel.Empty() {
			sd.PodsKnown = c.read("list pods in namespace "+ds.Namespace, perm("list", "", "pods", ds.Namespace), func(ctx context.Context) error {
				list, err := c.r.client.CoreV1().Pods(ds.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String(), Limit: 1000})
				if err != nil {
					return err
				}
				for j := range list.Items {
					sd.Pods = append(sd.Pods, brief(&list.Items[j]))
				}
				return nil
			})
		}
		out = append(out, sd)
	}
	return out
}

// maxGPUPodEvents bounds how many failing GPU stack pods have their
// events read: the first few say why the layer is down.
const maxGPUPodEvents = 4

// gpuPodEvents reads the events of GPU stack pods that are not Ready (an
// image that cannot be pulled, a sandbox that cannot be created): they
// say why a layer is down, as kubectl describe pod shows it.
func (c *collection) gpuPodEvents(dss []snapshot.DaemonSet) []snapshot.Event {
	var out []snapshot.Event
	n := 0
	for _, ds := range dss {
		for _, p := range ds.Pods {
			if p.Ready || n == maxGPUPodEvents {
				continue
			}
			n++
			out = append(out, c.events(ds.Namespace, "Pod", p.Name)...)
		}
	}
	return out
}

// gpuComponent recognises the GPU Operator's operands and the device
// plugin's Helm chart by name, app label or image; "" for anything else.
func gpuComponent(ds *appsv1.DaemonSet) string {
	text := strings.ToLower(ds.Name + " " + ds.Labels["app"] + " " + ds.Labels["app.kubernetes.io/name"])
	for _, ctr := range ds.Spec.Template.Spec.Containers {
		text += " " + strings.ToLower(ctr.Image)
	}
	if !strings.Contains(text, "nvidia") {
		return ""
	}
	switch {
	case strings.Contains(text, "device-plugin"):
		return snapshot.ComponentDevicePlugin
	case strings.Contains(text, "container-toolkit"):
		return snapshot.ComponentToolkit
	case strings.Contains(text, "driver"):
		return snapshot.ComponentDriver
	case strings.Contains(text, "nvidia"):
		return snapshot.ComponentOther
	}
	return ""
}

// brief summarises a pod for the GPU stack: Ready, or the reason it is not.
func brief(p *corev1.Pod) snapshot.PodBrief {
	b := snapshot.PodBrief{Name: p.Name, NodeName: p.Spec.NodeName, Phase: string(p.Status.Phase), IP: p.Status.PodIP,
		Containers: len(p.Spec.Containers), CreatedAt: p.CreationTimestamp.UTC()}
	for _, s := range p.Status.ContainerStatuses {
		if s.Ready {
			b.ReadyContainers++
		}
	}
	for _, cnd := range p.Status.Conditions {
		if cnd.Type == corev1.PodReady {
			b.Ready = cnd.Status == corev1.ConditionTrue
		}
	}
	b.Reason, b.Message = initReason(p)
	for _, s := range append(append([]corev1.ContainerStatus{}, p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...) {
		b.RestartCount += s.RestartCount
		if t := s.LastTerminationState.Terminated; t != nil && t.FinishedAt.After(b.LastRestartAt) {
			b.LastRestartAt = t.FinishedAt.UTC()
		}
		if b.Reason == "" && s.State.Waiting != nil && s.State.Waiting.Reason != "" {
			b.Reason, b.Message = s.State.Waiting.Reason, s.State.Waiting.Message
		}
		if b.Reason == "" && s.State.Terminated != nil && s.State.Terminated.ExitCode != 0 {
			b.Reason, b.Message = s.State.Terminated.Reason, s.State.Terminated.Message
		}
	}
	return b
}

// initReason is how kubectl get pods shows a pod still in its init
// containers (Init:0/1, Init:CrashLoopBackOff), "" once they are done: a
// plugin waiting on an init container reads differently from one that
// crashes.
func initReason(p *corev1.Pod) (reason, message string) {
	n := len(p.Spec.InitContainers)
	for i, s := range p.Status.InitContainerStatuses {
		switch {
		case s.State.Terminated != nil && s.State.Terminated.ExitCode == 0:
			continue
		case s.State.Terminated != nil && s.State.Terminated.Reason != "":
			return "Init:" + s.State.Terminated.Reason, s.State.Terminated.Message
		case s.State.Terminated != nil:
			return fmt.Sprintf("Init:ExitCode:%d", s.State.Terminated.ExitCode), s.State.Terminated.Message
		case s.State.Waiting != nil && s.State.Waiting.Reason != "" && s.State.Waiting.Reason != "PodInitializing":
			return "Init:" + s.State.Waiting.Reason, s.State.Waiting.Message
		default:
			return fmt.Sprintf("Init:%d/%d", i, n), ""
		}
	}
	return "", ""
}

var clusterPolicyGVR = schema.GroupVersionResource{Group: "nvidia.com", Version: "v1", Resource: "clusterpolicies"}

// clusterPolicy reads the GPU Operator's ClusterPolicy state when the CRD
// is served.
func (c *collection) clusterPolicy(s *snapshot.Snapshot) *snapshot.ClusterPolicy {
	if !c.hasAPI(clusterPolicyGVR.GroupVersion().String(), s) {
		return nil
	}
	var out *snapshot.ClusterPolicy
	c.read("list clusterpolicies.nvidia.com", perm("list", "nvidia.com", "clusterpolicies", ""), func(ctx context.Context) error {
		list, err := c.r.dynamic.Resource(clusterPolicyGVR).List(ctx, metav1.ListOptions{Limit: 10})
		if err != nil {
			return err
		}
		for _, item := range list.Items {
			state, _, _ := unstructuredString(item.Object, "status", "state")
			out = &snapshot.ClusterPolicy{Name: item.GetName(), State: state}
			break
		}
		return nil
	})
	return out
}

func unstructuredString(obj map[string]any, path ...string) (string, bool, error) {
	var cur any = obj
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return "", false, nil
		}
		cur = m[p]
	}
	s, ok := cur.(string)
	if !ok && cur != nil {
		return "", false, fmt.Errorf("%v is not a string", path)
	}
	return s, ok, nil
}
