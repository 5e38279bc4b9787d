package probe

import (
	"fmt"
	"strings"

	"casebook/internal/i18n"
	"casebook/internal/snapshot"
	"casebook/internal/triage"
)

// workloadFailure reports a controller that gave up on its pods: a Job
// with condition Failed, or a Deployment whose Progressing condition is
// False (ProgressDeadlineExceeded). Its value is the workload-state
// probe's: "job-failed" or "rollout-stuck".
func workloadFailure(s *snapshot.Snapshot) (string, []Evidence, bool) {
	for _, o := range s.Owners {
		ref := snapshot.ObjectRef{Kind: o.Kind, Namespace: o.Namespace, Name: o.Name}.String()
		switch o.Kind {
		case "Job":
			if c, ok := snapshot.FindCondition(o.Conditions, "Failed"); ok && c.Status == "True" {
				return "job-failed", append([]Evidence{{Object: ref, Field: "status.conditions[Failed]", Value: c.Reason, Message: c.Message}}, exitEvidence(s)...), true
			}
		case "Deployment":
			if c, ok := snapshot.FindCondition(o.Conditions, "Progressing"); ok && c.Status == "False" {
				ev := []Evidence{{Object: ref, Field: "status.conditions[Progressing]", Value: c.Reason, Message: c.Message}}
				if o.Replicas != nil {
					ev = append(ev, Evidence{Object: ref, Field: "status.readyReplicas", Value: fmt.Sprintf("%d of %d", o.ReadyReplicas, *o.Replicas)})
				}
				return "rollout-stuck", ev, true
			}
		}
	}
	return "", nil, false
}

// exitEvidence is the failed pod's own exit behind a Job's condition.
func exitEvidence(s *snapshot.Snapshot) []Evidence {
	if s.Pod == nil {
		return nil
	}
	for _, c := range s.Pod.AllContainers() {
		for _, st := range []struct {
			field string
			state snapshot.ContainerState
		}{{"state", c.State}, {"lastState", c.LastState}} {
			if st.state.Kind == "terminated" && st.state.ExitCode != 0 {
				return []Evidence{{Object: podRef(s) + " container " + c.Name, Field: st.field + ".terminated",
					Value: fmt.Sprintf("reason %s, exitCode %d", st.state.Reason, st.state.ExitCode), Message: st.state.Message}}
			}
		}
	}
	return nil
}

// workloadState answers the workload-kind question.
func workloadState(s *snapshot.Snapshot, _ *triage.Catalog) Result {
	v, ev, ok := workloadFailure(s)
	switch {
	case ok && v == "job-failed":
		return known(v, i18n.M("probe.workload_job_failed"), ev...)
	case ok:
		return known(v, i18n.M("probe.workload_rollout_stuck"), ev...)
	}
	if e, byWebhook, ok := refusal(s); ok && !byWebhook && !strings.Contains(e.Message, "exceeded quota") {
		return known("rollout-stuck", i18n.M("probe.rollout_refused"), e)
	}
	return noted(i18n.M("probe.no_workload_failure"))
}
