package probe

import (
	"fmt"
	"strings"

	"casebook/internal/snapshot"
	"casebook/internal/triage"
)

// preemptionExpected: a pod with priority above zero that may preempt, and
// an event saying preemption found no victims.
func preemptionExpected(s *snapshot.Snapshot, _ *triage.Catalog) Result {
	p := s.Pod
	if p == nil {
		return unknown(s, "the pod was not read", "get pod")
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
		return known("no", "the pod has no priority to preempt with", ev)
	}
	msg, mev, ok := schedulingMessage(s)
	if !ok {
		return unknown(s, "no scheduler message to tell whether preemption was tried", "list events")
	}
	if strings.Contains(msg, "No preemption victims found") {
		return known("yes", "the pod may preempt and the scheduler found no victims", ev, mev)
	}
	return known("no", "the scheduler's message does not report failed preemption", ev, mev)
}
