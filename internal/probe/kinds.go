package probe

import (
	"fmt"
	"sort"
	"strings"

	"casebook/internal/i18n"
	"casebook/internal/snapshot"
	"casebook/internal/triage"
)

// The probes of the targets other than pods: a Service, an Ingress, an
// HPA, the webhooks and the volumes behind a refusal or a stuck pod.

func targetRef(s *snapshot.Snapshot) string {
	return snapshot.ObjectRef{Kind: s.Target.Kind, Namespace: s.Target.Namespace, Name: s.Target.Name}.String()
}

func labelString(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + m[k]
	}
	return strings.Join(parts, ",")
}

// serviceEvidence shows a Service's selector beside the pods it matches,
// its EndpointSlices and the labels the namespace's pods carry.
func serviceEvidence(s *snapshot.Snapshot) []Evidence {
	sv, ref := s.Service, targetRef(s)
	ev := []Evidence{
		Evidence{Object: ref, Field: "spec.selector", Value: labelString(sv.Selector)}.explained(i18n.M("probe.ev.selector_matches", "count", sv.MatchingPods)),
		Evidence{Object: ref, Field: "endpointslices"}.valued(endpointsMsg(sv.Slices, sv.Ready, sv.NotReady)),
	}
	if sv.MatchingPods == 0 {
		for _, p := range sv.PodLabels {
			e := Evidence{Object: snapshot.ObjectRef{Kind: "Pod", Namespace: s.Target.Namespace, Name: p.Name}.String(),
				Field: "metadata.labels", Value: labelString(p.Labels)}
			if len(p.Labels) == 0 {
				e = e.valued(i18n.M("probe.ev.none"))
			}
			ev = append(ev, e)
		}
	}
	return ev
}

func endpointsMsg(slices []string, ready, notReady int) i18n.Msg {
	if len(slices) == 0 {
		return i18n.M("probe.ev.no_endpointslices")
	}
	return i18n.M("probe.ev.endpoints", "ready", ready, "notready", notReady, "slices", strings.Join(slices, ", "))
}

// ingressEvidence names each backend that cannot serve, a missing class,
// and the TLS Secrets the Ingress names (named only, never read).
func ingressEvidence(s *snapshot.Snapshot) []Evidence {
	in, ref := s.Ingress, targetRef(s)
	var ev []Evidence
	for _, b := range in.Backends {
		field := "spec.rules[" + b.Host + b.Path + "].backend.service"
		if b.Host == "" && b.Path == "" {
			field = "spec.defaultBackend.service"
		}
		val := b.Service
		if b.Port != "" {
			val += ":" + b.Port
		}
		switch {
		case b.Missing:
			ev = append(ev, Evidence{Object: ref, Field: field, Value: val}.explained(i18n.M("probe.ev.backend_missing", "service", b.Service)))
		case b.Ready == 0:
			ev = append(ev, Evidence{Object: ref, Field: field, Value: val}.explained(i18n.M("probe.ev.backend_no_endpoints", "service", b.Service)))
		}
	}
	if in.ClassMissing {
		ev = append(ev, Evidence{Object: ref, Field: "spec.ingressClassName", Value: in.Class}.explained(i18n.M("probe.ev.class_missing", "class", in.Class)))
	}
	for _, sec := range in.TLSSecrets {
		ev = append(ev, Evidence{Object: ref, Field: "spec.tls[].secretName", Value: sec}.explained(i18n.M("probe.ev.tls_referenced")))
	}
	return append(ev, warnings(s, 2)...)
}

// warnings are the newest Warning events of the target itself.
func warnings(s *snapshot.Snapshot, n int) []Evidence {
	var ev []Evidence
	for i := len(s.Events) - 1; i >= 0 && len(ev) < n; i-- {
		e := s.Events[i]
		if e.Type == "Warning" {
			ev = append(ev, Evidence{Object: e.Object.String(), Field: "event " + e.Reason, Message: e.Message})
		}
	}
	return ev
}

// trafficPath answers where traffic stops, for a Service or Ingress target.
func trafficPath(s *snapshot.Snapshot, _ *triage.Catalog) Result {
	switch {
	case s.Service.NoEndpoints():
		return known("no-endpoints", i18n.M("probe.service_no_endpoints"), serviceEvidence(s)...)
	case s.Service != nil:
		return noted(i18n.M("probe.service_has_endpoints", "count", s.Service.Ready), serviceEvidence(s)...)
	case s.Ingress.Broken():
		return known("ingress", i18n.M("probe.ingress_broken"), ingressEvidence(s)...)
	case s.Ingress != nil:
		return noted(i18n.M("probe.ingress_ok"), ingressEvidence(s)...)
	}
	return noted(i18n.M("probe.no_traffic_target"))
}

// refusal is the FailedCreate (or ReplicaFailure) by which the API server
// refused a controller's pods, and whether an admission webhook did.
func refusal(s *snapshot.Snapshot) (Evidence, bool, bool) {
	o, c, ok := ownerFailure(s)
	if !ok {
		return Evidence{}, false, false
	}
	ev := Evidence{Object: o, Field: "status.conditions[ReplicaFailure]", Message: c.Message}
	for _, e := range s.Events {
		if e.Reason == "FailedCreate" && e.Object.Kind != "Pod" && strings.Contains(e.Message, "webhook") {
			ev = Evidence{Object: e.Object.String(), Field: "event FailedCreate", Message: e.Message}
		}
	}
	return ev, strings.Contains(ev.Message, "webhook"), true
}

// webhookEvidence is each webhook the refusal names with its failure
// policy and the state of its Service.
func webhookEvidence(s *snapshot.Snapshot) []Evidence {
	var ev []Evidence
	for _, w := range s.Webhooks {
		ref := lowerKind(w.ConfigKind) + "/" + w.Config + " webhook " + w.Name
		e := Evidence{Object: ref, Field: "clientConfig.service", Value: w.Service}
		switch {
		case w.Service == "":
			e = Evidence{Object: ref, Field: "failurePolicy", Value: w.FailurePolicy}
		case w.ServiceMissing:
			e = e.explained(i18n.M("probe.ev.webhook_no_service", "policy", w.FailurePolicy))
		case w.Ready == 0:
			e = e.explained(i18n.M("probe.ev.webhook_no_endpoints", "policy", w.FailurePolicy))
		default:
			e = e.explained(i18n.M("probe.ev.webhook_ready", "policy", w.FailurePolicy, "count", w.Ready))
		}
		ev = append(ev, e)
	}
	return ev
}

func lowerKind(k string) string {
	return strings.ToLower(k)
}

// apiRefusal answers why the API server refused: a webhook named in the
// controller's FailedCreate.
func apiRefusal(s *snapshot.Snapshot, _ *triage.Catalog) Result {
	if ev, byWebhook, ok := refusal(s); ok && byWebhook {
		return known("webhook", i18n.M("probe.webhook_refused"), append([]Evidence{ev}, webhookEvidence(s)...)...)
	}
	if failClosedWithoutBackend(s) {
		return known("webhook", i18n.M("probe.webhook_no_backend"), webhookEvidence(s)...)
	}
	return noted(i18n.M("probe.no_refusal"))
}

// failClosedWithoutBackend reports a webhook of the snapshot that refuses
// everything it intercepts: failurePolicy Fail and a Service that is
// missing or has no ready endpoint.
func failClosedWithoutBackend(s *snapshot.Snapshot) bool {
	for _, w := range s.Webhooks {
		if w.FailurePolicy == "Fail" && w.Service != "" && (w.ServiceMissing || w.Ready == 0) {
			return true
		}
	}
	return false
}

// autoscalingState answers for an HPA target.
func autoscalingState(s *snapshot.Snapshot, _ *triage.Catalog) Result {
	h := s.HPA
	if h == nil {
		return noted(i18n.M("probe.no_hpa"))
	}
	c, stuck := h.Stuck()
	if !stuck {
		return noted(i18n.M("probe.hpa_ok"))
	}
	ev := []Evidence{
		{Object: targetRef(s), Field: "status.conditions[" + c.Type + "]", Value: "False " + c.Reason, Message: c.Message},
		{Object: targetRef(s), Field: "spec.scaleTargetRef", Value: h.Target},
		{Object: targetRef(s), Field: "status.currentReplicas", Value: fmt.Sprintf("%d (min %d, max %d)", h.CurrentReplicas, h.MinReplicas, h.MaxReplicas)},
	}
	return known("hpa", i18n.M("probe.hpa_stuck"), append(ev, warnings(s, 2)...)...)
}

// mountReasons are the kubelet's and attach controller's events of a
// volume that does not attach or mount.
var mountReasons = map[string]bool{"FailedAttachVolume": true, "FailedMount": true, "FailedMapVolume": true}

// mountEvidence is the pod's attach and mount failures and the
// VolumeAttachments of its volumes that report an error or are detached.
func mountEvidence(s *snapshot.Snapshot) []Evidence {
	var ev []Evidence
	for i := len(s.Events) - 1; i >= 0 && len(ev) < 2; i-- {
		if e := s.Events[i]; mountReasons[e.Reason] {
			ev = append(ev, Evidence{Object: e.Object.String(), Field: "event " + e.Reason, Message: e.Message})
		}
	}
	if len(ev) == 0 {
		return nil
	}
	for _, va := range s.VolumeAttachments {
		if !va.Attached || va.AttachError != "" {
			ev = append(ev, Evidence{Object: "volumeattachment/" + va.Name, Field: "status.attached", Value: fmt.Sprintf("%t (pv %s, node %s)", va.Attached, va.PV, va.Node), Message: va.AttachError})
		}
	}
	return ev
}

// storageState answers attach/mount against disk pressure.
func storageState(s *snapshot.Snapshot, _ *triage.Catalog) Result {
	if ev := mountEvidence(s); len(ev) > 0 {
		return known("attach-mount", i18n.M("probe.attach_mount"), ev...)
	}
	if s.Pod != nil {
		if n, ok := s.Node(s.Pod.NodeName); ok {
			if c, ok := snapshot.FindCondition(n.Conditions, "DiskPressure"); ok && c.Status == "True" {
				return known("disk-pressure", i18n.M("probe.disk_pressure"), Evidence{Object: nodeRef(n.Name), Field: "status.conditions[DiskPressure]", Value: "True", Message: c.Message})
			}
		}
	}
	return noted(i18n.M("probe.no_storage_failure"))
}

// pvcPending is a claim target no pod uses that is not bound, with its
// provisioning events.
func pvcPending(s *snapshot.Snapshot) ([]Evidence, bool) {
	if s.Target.Kind != "PersistentVolumeClaim" || s.Pod != nil {
		return nil, false
	}
	for _, p := range s.PVCs {
		if p.Name == s.Target.Name && p.Phase != "Bound" {
			return append([]Evidence{{Object: targetRef(s), Field: "status.phase", Value: p.Phase}}, warnings(s, 2)...), true
		}
	}
	return nil, false
}

// targetSymptom is the symptom of a target without a pod: a Service or
// Ingress that sends traffic nowhere, an HPA that cannot scale, a claim
// not bound, pods refused by a webhook, or refused for another reason than
// quota (a missing ServiceAccount, PodSecurity), which stalls the rollout.
func targetSymptom(s *snapshot.Snapshot) (Result, bool) {
	switch {
	case s.Service.NoEndpoints():
		return known("traffic", i18n.M("probe.service_no_endpoints"), serviceEvidence(s)...), true
	case s.Ingress.Broken():
		return known("traffic", i18n.M("probe.ingress_broken"), ingressEvidence(s)...), true
	case s.HPA != nil:
		if _, stuck := s.HPA.Stuck(); stuck {
			r := autoscalingState(s, nil)
			return known("autoscaling", i18n.M("probe.hpa_stuck"), r.Evidence...), true
		}
	}
	if ev, ok := pvcPending(s); ok {
		return known("pending", i18n.M("probe.pvc_pending"), ev...), true
	}
	if strings.HasSuffix(s.Target.Kind, "WebhookConfiguration") && failClosedWithoutBackend(s) {
		return known("api-refused", i18n.M("probe.webhook_no_backend"), webhookEvidence(s)...), true
	}
	if ev, byWebhook, ok := refusal(s); ok {
		switch {
		case byWebhook:
			return known("api-refused", i18n.M("probe.webhook_refused"), ev), true
		case !strings.Contains(ev.Message, "exceeded quota"):
			return known("workload", i18n.M("probe.rollout_refused"), ev), true
		}
		return Result{}, false // the quota, under pending
	}
	if _, ev, ok := workloadFailure(s); ok {
		// A failed Job whose pods are gone, a stalled rollout with none.
		return known("workload", i18n.M("probe.workload"), ev...), true
	}
	switch {
	case s.Service != nil:
		return noted(i18n.M("probe.target_healthy", "target", targetRef(s)), serviceEvidence(s)...), true
	case s.Ingress != nil:
		return noted(i18n.M("probe.target_healthy", "target", targetRef(s)), ingressEvidence(s)...), true
	case s.HPA != nil:
		return noted(i18n.M("probe.target_healthy", "target", targetRef(s))), true
	}
	return Result{}, false
}
