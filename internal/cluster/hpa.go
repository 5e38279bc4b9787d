package cluster

import (
	"context"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"casebook/internal/snapshot"
)

// forHPA reads a HorizontalPodAutoscaler (autoscaling/v2): its replica
// bounds, its conditions and its events.
func (c *collection) forHPA(ns, name string) (*snapshot.Snapshot, error) {
	var h *autoscalingv2.HorizontalPodAutoscaler
	if !c.read("get horizontalpodautoscaler "+ns+"/"+name, perm("get", "autoscaling", "horizontalpodautoscalers", ns), func(ctx context.Context) error {
		var err error
		h, err = c.r.client.AutoscalingV2().HorizontalPodAutoscalers(ns).Get(ctx, name, metav1.GetOptions{})
		return err
	}) {
		return nil, targetError(c.errs[len(c.errs)-1])
	}
	s := c.newSnapshot(ns, "HorizontalPodAutoscaler", name)
	s.HPA = convertHPA(h)
	s.Events = c.events(ns, "HorizontalPodAutoscaler", name)
	sortEvents(s.Events)
	s.ReadErrors = c.errs
	return s, nil
}

func convertHPA(h *autoscalingv2.HorizontalPodAutoscaler) *snapshot.HPA {
	out := &snapshot.HPA{Name: h.Name, Target: lowerKind(h.Spec.ScaleTargetRef.Kind) + "/" + h.Spec.ScaleTargetRef.Name,
		MaxReplicas: h.Spec.MaxReplicas, CurrentReplicas: h.Status.CurrentReplicas, DesiredReplicas: h.Status.DesiredReplicas}
	if h.Spec.MinReplicas != nil {
		out.MinReplicas = *h.Spec.MinReplicas
	}
	out.Conditions = conditions(h.Status.Conditions, func(c autoscalingv2.HorizontalPodAutoscalerCondition) snapshot.Condition {
		return snapshot.Condition{Type: string(c.Type), Status: string(c.Status), Reason: c.Reason, Message: c.Message, LastTransitionTime: timePtr(c.LastTransitionTime)}
	})
	return out
}
