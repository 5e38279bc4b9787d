package probe

import (
	"fmt"
	"strings"

	"casebook/internal/i18n"
	"casebook/internal/snapshot"
	"casebook/internal/triage"
)

// Waiting reasons that are an error (as opposed to ContainerCreating and
// PodInitializing, which are progress).
var imagePullReasons = map[string]bool{
	"ErrImagePull": true, "ImagePullBackOff": true, "InvalidImageName": true,
	"ErrImageNeverPull": true, "ImageInspectError": true,
}

// configReasons are the waiting reasons of a container the kubelet or the
// runtime could not create from its spec.
var configReasons = map[string]bool{"CreateContainerConfigError": true, "CreateContainerError": true}

var startReasons = map[string]bool{
	"CrashLoopBackOff": true, "CreateContainerConfigError": true, "CreateContainerError": true,
	"RunContainerError": true, "PreStartHookError": true, "PostStartHookError": true, "PreCreateHookError": true,
}

// restartEvidence reports why the pod belongs under "restarts", if it does.
func restartEvidence(s *snapshot.Snapshot) ([]Evidence, bool) {
	r := containerState(s, nil)
	return r.Evidence, r.Known
}

// containerState names the failing container's state: evicted pods first
// (their containers say nothing useful), then OOMKilled, image pulls and
// crash loops.
func containerState(s *snapshot.Snapshot, _ *triage.Catalog) Result {
	p := s.Pod
	if p == nil {
		return unknown(s, i18n.M("probe.pod_not_read"), "get pod")
	}
	if p.Reason == "Evicted" {
		ev := []Evidence{{Object: podRef(s), Field: "status.reason", Value: "Evicted", Message: p.Message}}
		if n, ok := s.Node(p.NodeName); ok {
			for _, c := range n.Conditions {
				if (c.Type == "MemoryPressure" || c.Type == "DiskPressure" || c.Type == "PIDPressure") && c.Status == "True" {
					ev = append(ev, Evidence{Object: nodeRef(n.Name), Field: "status.conditions[" + c.Type + "]", Value: "True", Message: c.Message})
				}
			}
			for _, t := range n.Taints {
				if strings.HasSuffix(t.Key, "-pressure") {
					ev = append(ev, Evidence{Object: nodeRef(n.Name), Field: "spec.taints", Value: t.String()})
				}
			}
		}
		return known("evicted", i18n.M("probe.evicted"), ev...)
	}
	for _, c := range p.AllContainers() {
		ref := podRef(s) + " container " + c.Name
		for _, st := range []struct {
			field string
			state snapshot.ContainerState
		}{{"state", c.State}, {"lastState", c.LastState}} {
			if st.state.Kind == "terminated" && st.state.Reason == "OOMKilled" {
				ev := []Evidence{{Object: ref, Field: st.field + ".terminated", Value: fmt.Sprintf("reason OOMKilled, exitCode %d", st.state.ExitCode)}}
				if lim, ok := c.Limits["memory"]; ok {
					ev = append(ev, Evidence{Object: ref, Field: "resources.limits.memory", Value: lim.String()})
				} else {
					ev = append(ev, Evidence{Object: ref, Field: "resources.limits.memory"}.valued(i18n.M("probe.ev.none")).explained(i18n.M("probe.ev.no_memory_limit")))
				}
				if req, ok := c.Requests["memory"]; ok {
					ev = append(ev, Evidence{Object: ref, Field: "resources.requests.memory", Value: req.String()})
				}
				ev = append(ev, Evidence{Object: ref, Field: "restartCount", Value: fmt.Sprint(c.RestartCount)})
				return known("oomkilled", i18n.M("probe.oomkilled"), ev...)
			}
		}
	}
	for _, c := range p.AllContainers() {
		ref := podRef(s) + " container " + c.Name
		if w := c.State; w.Kind == "waiting" && imagePullReasons[w.Reason] {
			return known("image-pull", i18n.M("probe.image_pull"),
				Evidence{Object: ref, Field: "state.waiting", Value: w.Reason, Message: w.Message},
				Evidence{Object: ref, Field: "image", Value: c.Image})
		}
	}
	// The kubelet could not build the container (a Secret, ConfigMap or key
	// it references is missing): it never ran, so it is no crash loop. The
	// waiting message names the missing object; Casebook never reads it.
	for _, c := range p.AllContainers() {
		if w := c.State; w.Kind == "waiting" && configReasons[w.Reason] {
			return known("config-error", i18n.M("probe.config_error"),
				Evidence{Object: podRef(s) + " container " + c.Name, Field: "state.waiting", Value: w.Reason, Message: w.Message})
		}
	}
	if ev := mountEvidence(s); len(ev) > 0 {
		// The kubelet waits for the volume before it creates the
		// container, so the container can only say ContainerCreating.
		return known("volume-mount", i18n.M("probe.volume_mount"), ev...)
	}
	for _, c := range p.AllContainers() {
		ref := podRef(s) + " container " + c.Name
		w, last := c.State, c.LastState
		crashing := (w.Kind == "waiting" && startReasons[w.Reason]) || c.RestartCount > 0 ||
			(w.Kind == "terminated" && w.ExitCode != 0)
		if !crashing {
			continue
		}
		ev := []Evidence{}
		if w.Kind != "" && w.Kind != "running" {
			ev = append(ev, Evidence{Object: ref, Field: "state." + w.Kind, Value: w.Reason, Message: w.Message})
		}
		if last.Kind == "terminated" {
			ev = append(ev, Evidence{Object: ref, Field: "lastState.terminated", Value: fmt.Sprintf("reason %s, exitCode %d", last.Reason, last.ExitCode), Message: last.Message})
		}
		ev = append(ev, Evidence{Object: ref, Field: "restartCount", Value: fmt.Sprint(c.RestartCount)})
		return known("crashloop", i18n.M("probe.crashloop"), ev...)
	}
	return noted(i18n.M("probe.no_failing_container"))
}

// previousLog classifies the previous container's log with the signals
// catalogue. Logs are only read with the ReadLogs option.
func previousLog(s *snapshot.Snapshot, cat *triage.Catalog) Result {
	if _, liveness, startup := probeEvents(s); len(liveness)+len(startup) > 0 {
		return known("probe", i18n.M("probe.killed_on_probe"), first(append(startup, liveness...), 2)...)
	}
	if cat == nil {
		return noted(i18n.M("probe.no_signals"))
	}
	for _, l := range s.Logs {
		if !l.Previous || strings.TrimSpace(l.Tail) == "" {
			continue
		}
		res := cat.Classify(l.Tail)
		if a, ok := res.Answers[questionOf("previous-log")]; ok && a.Known {
			ev := []Evidence{}
			for _, e := range a.Evidence {
				ev = append(ev, Evidence{Object: podRef(s) + " container " + l.Container, Field: fmt.Sprintf("previous log line %d", e.LineNo), Message: e.Text})
			}
			return known(a.Value, i18n.M("probe.from_previous_log"), ev...)
		}
		return noted(i18n.M("probe.previous_log_unknown"))
	}
	return unknown(s, i18n.M("probe.logs_off"), "get pods/log")
}
