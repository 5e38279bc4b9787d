package probe

import (
	"fmt"
	"strings"

	"casebook/internal/i18n"
	"casebook/internal/snapshot"
	"casebook/internal/triage"
)

// preemptionExpected: a pod with priority above zero that may preempt, and
// an event saying preemption found no victims.
func preemptionExpected(s *snapshot.Snapshot, _ *triage.Catalog) Result {
	p := s.Pod
	if p == nil {
		return unknown(s, i18n.M("probe.pod_not_read"), "get pod")
	}
	prio, policy := int32(0), p.PreemptionPolicy
	if p.Priority != nil {
		prio = *p.Priority
	} else if s.PriorityClass != nil {
		prio = s.PriorityClass.Value
	}
	if policy == "" && s.PriorityClass != nil {
		policy = s.PriorityClass.PreemptionPolicy
	}
	ev := Evidence{Object: podRef(s), Field: "spec.priority", Value: fmt.Sprint(prio)}
	if p.PriorityClassName != "" {
		ev.Message = "priorityClassName " + p.PriorityClassName
	}
	if prio <= 0 || policy == "Never" {
		return known("no", i18n.M("probe.no_priority"), ev)
	}
	msg, mev, ok := schedulingMessage(s)
	if !ok {
		return unknown(s, i18n.M("probe.no_preemption_message"), "list events")
	}
	if strings.Contains(msg, "No preemption victims found") {
		return known("yes", i18n.M("probe.no_victims"), ev, mev)
	}
	return known("no", i18n.M("probe.preemption_not_failed"), ev, mev)
}
