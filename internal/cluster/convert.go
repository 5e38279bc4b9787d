package cluster

import (
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"casebook/internal/snapshot"
)

func resources(rl corev1.ResourceList) snapshot.ResourceList {
	if len(rl) == 0 {
		return nil
	}
	out := snapshot.ResourceList{}
	for name, q := range rl {
		out[string(name)] = quantity(q)
	}
	return out
}

// quantity keeps the canonical text kubectl shows and the value, taken
// from apimachinery itself rather than parsed again.
func quantity(q resource.Quantity) snapshot.Quantity {
	return snapshot.QuantityOf(q.String(), q.AsApproximateFloat64())
}

func timePtr(t metav1.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	v := t.Time.UTC()
	return &v
}

func conditions[T any](cs []T, f func(T) snapshot.Condition) []snapshot.Condition {
	out := make([]snapshot.Condition, 0, len(cs))
	for _, c := range cs {
		out = append(out, f(c))
	}
	return out
}

func convertPod(p *corev1.Pod) *snapshot.Pod {
	sp := &snapshot.Pod{
		Namespace:         p.Namespace,
		Name:              p.Name,
		UID:               string(p.UID),
		Labels:            p.Labels,
		CreatedAt:         p.CreationTimestamp.UTC(),
		NodeName:          p.Spec.NodeName,
		SchedulerName:     p.Spec.SchedulerName,
		PriorityClassName: p.Spec.PriorityClassName,
		Priority:          p.Spec.Priority,
		NodeSelector:      p.Spec.NodeSelector,
		Phase:             string(p.Status.Phase),
		Reason:            p.Status.Reason,
		Message:           p.Status.Message,
		QOSClass:          string(p.Status.QOSClass),
		StartTime:         timePtr(ptrTime(p.Status.StartTime)),
		IP:                p.Status.PodIP,
		HostIP:            p.Status.HostIP,
	}
	if p.Spec.PreemptionPolicy != nil {
		sp.PreemptionPolicy = string(*p.Spec.PreemptionPolicy)
	}
	if ref := metav1.GetControllerOf(p); ref != nil {
		sp.Owner = &snapshot.OwnerRef{Kind: ref.Kind, Name: ref.Name}
	}
	if a := p.Spec.Affinity; a != nil {
		if na := a.NodeAffinity; na != nil && na.RequiredDuringSchedulingIgnoredDuringExecution != nil {
			for _, t := range na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
				sp.RequiredNodeAffinity = append(sp.RequiredNodeAffinity, snapshot.NodeSelectorTerm{
					MatchExpressions: requirements(t.MatchExpressions),
					MatchFields:      requirements(t.MatchFields),
				})
			}
		}
		sp.AffinitySummary = affinitySummary(a)
	}
	for _, tsc := range p.Spec.TopologySpreadConstraints {
		if tsc.WhenUnsatisfiable == corev1.DoNotSchedule {
			sp.AffinitySummary = append(sp.AffinitySummary, fmt.Sprintf("topology spread over %s, maxSkew %d (DoNotSchedule)", tsc.TopologyKey, tsc.MaxSkew))
		}
	}
	for _, t := range p.Spec.Tolerations {
		sp.Tolerations = append(sp.Tolerations, snapshot.Toleration{Key: t.Key, Operator: string(t.Operator), Value: t.Value, Effect: string(t.Effect),
			Seconds: t.TolerationSeconds})
	}
	statuses := map[string]corev1.ContainerStatus{}
	for _, s := range append(append([]corev1.ContainerStatus{}, p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...) {
		statuses[s.Name] = s
	}
	for _, c := range p.Spec.InitContainers {
		sc := container(c, statuses[c.Name])
		sc.Restartable = c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
		sp.InitContainers = append(sp.InitContainers, sc)
	}
	for _, c := range p.Spec.Containers {
		sp.Containers = append(sp.Containers, container(c, statuses[c.Name]))
	}
	for _, v := range p.Spec.Volumes {
		sp.Volumes = append(sp.Volumes, volume(p.Name, v))
	}
	claimNames := map[string]string{}
	for _, s := range p.Status.ResourceClaimStatuses {
		if s.ResourceClaimName != nil {
			claimNames[s.Name] = *s.ResourceClaimName
		}
	}
	for _, rc := range p.Spec.ResourceClaims {
		pc := snapshot.PodClaim{Name: rc.Name, ResourceClaimName: claimNames[rc.Name]}
		if rc.ResourceClaimName != nil {
			pc.ResourceClaimName = *rc.ResourceClaimName
		}
		if rc.ResourceClaimTemplateName != nil {
			pc.TemplateName = *rc.ResourceClaimTemplateName
		}
		sp.ResourceClaims = append(sp.ResourceClaims, pc)
	}
	sp.Conditions = conditions(p.Status.Conditions, func(c corev1.PodCondition) snapshot.Condition {
		return snapshot.Condition{Type: string(c.Type), Status: string(c.Status), Reason: c.Reason, Message: c.Message, LastTransitionTime: timePtr(c.LastTransitionTime)}
	})
	return sp
}

func ptrTime(t *metav1.Time) metav1.Time {
	if t == nil {
		return metav1.Time{}
	}
	return *t
}

func requirements(rs []corev1.NodeSelectorRequirement) []snapshot.Requirement {
	var out []snapshot.Requirement
	for _, r := range rs {
		out = append(out, snapshot.Requirement{Key: r.Key, Operator: string(r.Operator), Values: r.Values})
	}
	return out
}

// affinitySummary names the inter-pod rules, which triage shows but does
// not evaluate (that would need every pod of the cluster).
func affinitySummary(a *corev1.Affinity) []string {
	var out []string
	if a.PodAffinity != nil {
		for _, t := range a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
			out = append(out, "required pod affinity on "+t.TopologyKey+" for "+metav1.FormatLabelSelector(t.LabelSelector))
		}
	}
	if a.PodAntiAffinity != nil {
		for _, t := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
			out = append(out, "required pod anti-affinity on "+t.TopologyKey+" for "+metav1.FormatLabelSelector(t.LabelSelector))
		}
	}
	return out
}

func container(c corev1.Container, s corev1.ContainerStatus) snapshot.Container {
	return snapshot.Container{
		Name:         c.Name,
		Image:        c.Image,
		Requests:     resources(c.Resources.Requests),
		Limits:       resources(c.Resources.Limits),
		Ready:        s.Ready,
		Started:      s.Started,
		RestartCount: s.RestartCount,
		State:        state(s.State),
		LastState:    state(s.LastTerminationState),
	}
}

func state(s corev1.ContainerState) snapshot.ContainerState {
	switch {
	case s.Waiting != nil:
		return snapshot.ContainerState{Kind: "waiting", Reason: s.Waiting.Reason, Message: s.Waiting.Message}
	case s.Running != nil:
		return snapshot.ContainerState{Kind: "running", StartedAt: timePtr(s.Running.StartedAt)}
	case s.Terminated != nil:
		t := s.Terminated
		return snapshot.ContainerState{Kind: "terminated", Reason: t.Reason, Message: t.Message, ExitCode: t.ExitCode,
			Signal: t.Signal, StartedAt: timePtr(t.StartedAt), FinishedAt: timePtr(t.FinishedAt)}
	}
	return snapshot.ContainerState{}
}

// volume records a volume's kind; only claims are followed up, and the
// names of Secrets and ConfigMaps are not even recorded.
func volume(pod string, v corev1.Volume) snapshot.Volume {
	out := snapshot.Volume{Name: v.Name, Kind: "other"}
	switch {
	case v.PersistentVolumeClaim != nil:
		out.Kind, out.ClaimName = "persistentVolumeClaim", v.PersistentVolumeClaim.ClaimName
	case v.Ephemeral != nil:
		// The claim of a generic ephemeral volume is named <pod>-<volume>.
		out.Kind, out.ClaimName = "ephemeral", pod+"-"+v.Name
	case v.EmptyDir != nil:
		out.Kind = "emptyDir"
	case v.HostPath != nil:
		out.Kind = "hostPath"
	case v.Secret != nil:
		out.Kind = "secret"
	case v.ConfigMap != nil:
		out.Kind = "configMap"
	case v.Projected != nil:
		out.Kind = "projected"
	case v.CSI != nil:
		out.Kind = "csi"
	}
	return out
}

func convertNode(n *corev1.Node) snapshot.Node {
	sn := snapshot.Node{
		Name:           n.Name,
		Labels:         n.Labels,
		Unschedulable:  n.Spec.Unschedulable,
		Capacity:       resources(n.Status.Capacity),
		Allocatable:    resources(n.Status.Allocatable),
		KubeletVersion: n.Status.NodeInfo.KubeletVersion,
		OSImage:        n.Status.NodeInfo.OSImage,
		KernelVersion:  n.Status.NodeInfo.KernelVersion,
		CreatedAt:      n.CreationTimestamp.UTC(),

		Architecture:     n.Status.NodeInfo.Architecture,
		ContainerRuntime: n.Status.NodeInfo.ContainerRuntimeVersion,
	}
	for _, a := range n.Status.Addresses {
		switch {
		case a.Type == corev1.NodeInternalIP && sn.InternalIP == "":
			sn.InternalIP = a.Address
		case a.Type == corev1.NodeExternalIP && sn.ExternalIP == "":
			sn.ExternalIP = a.Address
		}
	}
	for _, t := range n.Spec.Taints {
		sn.Taints = append(sn.Taints, snapshot.Taint{Key: t.Key, Value: t.Value, Effect: string(t.Effect)})
	}
	sn.Conditions = conditions(n.Status.Conditions, func(c corev1.NodeCondition) snapshot.Condition {
		return snapshot.Condition{Type: string(c.Type), Status: string(c.Status), Reason: c.Reason, Message: c.Message,
			LastTransitionTime: timePtr(c.LastTransitionTime), LastHeartbeatTime: timePtr(c.LastHeartbeatTime)}
	})
	return sn
}

func convertEvent(e *corev1.Event) snapshot.Event {
	last := e.LastTimestamp.Time
	if e.Series != nil && !e.Series.LastObservedTime.IsZero() {
		last = e.Series.LastObservedTime.Time
	}
	if last.IsZero() {
		last = e.EventTime.Time
	}
	if last.IsZero() {
		last = e.CreationTimestamp.Time
	}
	// Events written through events.k8s.io (the scheduler's) have no
	// firstTimestamp; their eventTime is the first occurrence.
	first := e.FirstTimestamp.Time
	if first.IsZero() {
		first = e.EventTime.Time
	}
	src := e.Source.Component
	if src == "" {
		src = e.ReportingController
	}
	return snapshot.Event{
		Type: e.Type, Reason: e.Reason, Message: e.Message, Source: src, Count: e.Count,
		Object:    snapshot.ObjectRef{Kind: e.InvolvedObject.Kind, Namespace: e.InvolvedObject.Namespace, Name: e.InvolvedObject.Name},
		FirstTime: first.UTC(), LastTime: last.UTC(),
	}
}

func sortEvents(es []snapshot.Event) {
	sort.SliceStable(es, func(i, j int) bool { return es[i].LastTime.Before(es[j].LastTime) })
}
