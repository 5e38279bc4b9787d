package cluster

import (
	"context"

	corev1 "k8s.io/api/core/v1"

	"casebook/internal/snapshot"
)

// Log tails are small: the last lines name the cause, and a snapshot may
// be downloaded and shared.
const (
	logTailLines = 100
	logMaxBytes  = 32 << 10
)

// logs reads, only with ReadLogs, the previous log of each restarted
// container of the pod and the current log of each running one (a model
// server that is slow but alive says why only there), and the log of
// device plugin pods on GPU nodes that advertise no GPU.
func (c *collection) logs(s *snapshot.Snapshot, pod *corev1.Pod) {
	if !c.r.opts.ReadLogs {
		return
	}
	for _, st := range pod.Status.ContainerStatuses {
		if st.RestartCount > 0 {
			if tail, ok := c.readLog(pod.Namespace, pod.Name, st.Name, true); ok {
				s.Logs = append(s.Logs, snapshot.ContainerLog{Pod: pod.Name, Container: st.Name, Previous: true, Tail: tail})
			}
		}
		if st.State.Running != nil {
			if tail, ok := c.readLog(pod.Namespace, pod.Name, st.Name, false); ok {
				s.Logs = append(s.Logs, snapshot.ContainerLog{Pod: pod.Name, Container: st.Name, Tail: tail})
			}
		}
	}
	for _, ds := range s.DaemonSets {
		if ds.Component != snapshot.ComponentDevicePlugin {
			continue
		}
		for _, p := range ds.Pods {
			n, ok := s.Node(p.NodeName)
			if !ok || len(n.GPUResources()) > 0 {
				continue
			}
			if tail, ok := c.readLog(ds.Namespace, p.Name, "", false); ok {
				s.Logs = append(s.Logs, snapshot.ContainerLog{Pod: p.Name, Tail: tail})
			}
		}
	}
}

func (c *collection) readLog(ns, pod, container string, previous bool) (string, bool) {
	var out string
	lines, limit := int64(logTailLines), int64(logMaxBytes)
	ok := c.read("get pods/log "+ns+"/"+pod, perm("get", "", "pods/log", ns), func(ctx context.Context) error {
		b, err := c.r.client.CoreV1().Pods(ns).GetLogs(pod, &corev1.PodLogOptions{
			Container: container, Previous: previous, TailLines: &lines, LimitBytes: &limit,
		}).DoRaw(ctx)
		out = string(b)
		return err
	})
	return out, ok
}
