package kubectl

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"casebook/internal/snapshot"
)

// podRow is one line of kubectl get pods, from a full pod or from a GPU
// DaemonSet's pod brief.
type podRow struct {
	ns, name, ready, status, restarts, age, node, ip string
	labels                                           map[string]string
}

// podStatus is kubectl's printPod logic for the STATUS, READY and
// RESTARTS columns.
func podStatus(p *snapshot.Pod, now time.Time) (status, ready, restarts string) {
	reason := p.Phase
	if p.Reason != "" {
		reason = p.Reason
	}
	if c, ok := snapshot.FindCondition(p.Conditions, "PodScheduled"); ok && c.Reason == "SchedulingGated" {
		reason = "SchedulingGated"
	}
	total, readyN, restartN := len(p.Containers), 0, 0
	sidecarRestarts := 0
	var lastRestart, lastSidecarRestart time.Time
	for _, c := range p.InitContainers {
		if c.Restartable {
			total++
		}
	}
	initializing := false
	// Like kubectl, walk the init containers that have a status (a pod
	// not yet on a node has none) and stop at the first one not done.
	for i, c := range p.InitContainers {
		if c.State.Kind == "" {
			continue
		}
		restartN += int(c.RestartCount)
		if t := c.LastState.FinishedAt; c.LastState.Kind == "terminated" && t != nil && t.After(lastRestart) {
			lastRestart = *t
		}
		if c.Restartable {
			sidecarRestarts += int(c.RestartCount)
			if t := c.LastState.FinishedAt; c.LastState.Kind == "terminated" && t != nil && t.After(lastSidecarRestart) {
				lastSidecarRestart = *t
			}
		}
		switch {
		case c.State.Kind == "terminated" && c.State.ExitCode == 0:
			continue
		case c.Restartable && c.Started != nil && *c.Started:
			if c.Ready {
				readyN++
			}
			continue
		case c.State.Kind == "terminated":
			if c.State.Reason == "" {
				if c.State.Signal != 0 {
					reason = fmt.Sprintf("Init:Signal:%d", c.State.Signal)
				} else {
					reason = fmt.Sprintf("Init:ExitCode:%d", c.State.ExitCode)
				}
			} else {
				reason = "Init:" + c.State.Reason
			}
		case c.State.Kind == "waiting" && c.State.Reason != "" && c.State.Reason != "PodInitializing":
			reason = "Init:" + c.State.Reason
		default:
			reason = fmt.Sprintf("Init:%d/%d", i, len(p.InitContainers))
		}
		initializing = true
		break
	}
	if initCond, ok := snapshot.FindCondition(p.Conditions, "Initialized"); !initializing || (ok && initCond.Status == "True") {
		restartN, lastRestart = sidecarRestarts, lastSidecarRestart
		hasRunning := false
		for i := len(p.Containers) - 1; i >= 0; i-- {
			c := p.Containers[i]
			restartN += int(c.RestartCount)
			if t := c.LastState.FinishedAt; c.LastState.Kind == "terminated" && t != nil && t.After(lastRestart) {
				lastRestart = *t
			}
			switch {
			case c.State.Kind == "waiting" && c.State.Reason != "":
				reason = c.State.Reason
			case c.State.Kind == "terminated" && c.State.Reason != "":
				reason = c.State.Reason
			case c.State.Kind == "terminated":
				if c.State.Signal != 0 {
					reason = fmt.Sprintf("Signal:%d", c.State.Signal)
				} else {
					reason = fmt.Sprintf("ExitCode:%d", c.State.ExitCode)
				}
			case c.Ready && c.State.Kind == "running":
				hasRunning = true
				readyN++
			}
		}
		if reason == "Completed" && hasRunning {
			if c, ok := snapshot.FindCondition(p.Conditions, "Ready"); ok && c.Status == "True" {
				reason = "Running"
			} else {
				reason = "NotReady"
			}
		}
	}
	restarts = fmt.Sprint(restartN)
	if restartN > 0 && !lastRestart.IsZero() {
		restarts = fmt.Sprintf("%d (%s ago)", restartN, humanDuration(now.Sub(lastRestart)))
	}
	return reason, fmt.Sprintf("%d/%d", readyN, total), restarts
}

// pods lists what get pods shows in a namespace: the recorded pod, and the
// pods of the GPU stack's DaemonSets.
func pods(s *snapshot.Snapshot, ns string, all bool) []podRow {
	var out []podRow
	now := s.CollectedAt
	if p := s.Pod; p != nil && (all || p.Namespace == ns) {
		status, ready, restarts := podStatus(p, now)
		out = append(out, podRow{ns: p.Namespace, name: p.Name, ready: ready, status: status, restarts: restarts,
			age: age(p.CreatedAt, now), node: orNone(p.NodeName), ip: orNone(p.IP), labels: p.Labels})
	}
	for _, ds := range s.DaemonSets {
		if !all && ds.Namespace != ns {
			continue
		}
		for _, b := range ds.Pods {
			status := b.Phase
			if b.Reason != "" {
				status = b.Reason
			}
			total := max(b.Containers, 1)
			ready := b.ReadyContainers
			if b.Containers == 0 && b.Ready {
				ready = 1
			}
			restarts := fmt.Sprint(b.RestartCount)
			if b.RestartCount > 0 && !b.LastRestartAt.IsZero() {
				restarts = fmt.Sprintf("%d (%s ago)", b.RestartCount, humanDuration(now.Sub(b.LastRestartAt)))
			}
			out = append(out, podRow{ns: ds.Namespace, name: b.Name, ready: fmt.Sprintf("%d/%d", ready, total), status: status,
				restarts: restarts, age: age(b.CreatedAt, now), node: orNone(b.NodeName), ip: orNone(b.IP)})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].ns != out[j].ns {
			return out[i].ns < out[j].ns
		}
		return out[i].name < out[j].name
	})
	return out
}

func getPods(s *snapshot.Snapshot, c Command) string {
	rows := pods(s, c.Namespace, c.AllNamespaces)
	if c.Name != "" {
		var keep []podRow
		for _, r := range rows {
			if r.name == c.Name {
				keep = append(keep, r)
			}
		}
		if len(keep) == 0 {
			return fmt.Sprintf("Error from server (NotFound): pods %q not found\n", c.Name)
		}
		rows = keep
	}
	if len(rows) == 0 {
		return noResources(c)
	}
	header := []string{"NAME", "READY", "STATUS", "RESTARTS", "AGE"}
	if c.AllNamespaces {
		header = append([]string{"NAMESPACE"}, header...)
	}
	if c.Wide {
		header = append(header, "IP", "NODE", "NOMINATED NODE", "READINESS GATES")
	}
	header = append(header, labelHeaders(c)...)
	t := newTable(header...)
	for _, r := range rows {
		cells := []string{r.name, r.ready, r.status, r.restarts, r.age}
		if c.AllNamespaces {
			cells = append([]string{r.ns}, cells...)
		}
		if c.Wide {
			cells = append(cells, r.ip, r.node, "<none>", "<none>")
		}
		cells = append(cells, labelCells(c, r.labels)...)
		t.row(cells...)
	}
	return t.String()
}

// labelHeaders and labelCells add -L columns and --show-labels.
func labelHeaders(c Command) []string {
	var h []string
	for _, k := range c.LabelColumns {
		parts := strings.Split(k, "/")
		h = append(h, strings.ToUpper(parts[len(parts)-1]))
	}
	if c.ShowLabels {
		h = append(h, "LABELS")
	}
	return h
}

func labelCells(c Command, labels map[string]string) []string {
	var cells []string
	for _, k := range c.LabelColumns {
		cells = append(cells, labels[k])
	}
	if c.ShowLabels {
		if len(labels) == 0 {
			cells = append(cells, "<none>")
		} else {
			var kv []string
			for _, k := range sortedKeys(labels) {
				kv = append(kv, k+"="+labels[k])
			}
			cells = append(cells, strings.Join(kv, ","))
		}
	}
	return cells
}

func noResources(c Command) string {
	if c.AllNamespaces || !namespaced(c.Resource) {
		return "No resources found\n"
	}
	return fmt.Sprintf("No resources found in %s namespace.\n", c.Namespace)
}

func describePod(s *snapshot.Snapshot, c Command) string {
	p := s.Pod
	if p == nil || p.Name != c.Name || p.Namespace != c.Namespace {
		for _, ds := range s.DaemonSets {
			for _, b := range ds.Pods {
				if b.Name == c.Name && ds.Namespace == c.Namespace {
					return describePodBrief(s, ds, b)
				}
			}
		}
		return fmt.Sprintf("Error from server (NotFound): pods %q not found\n", c.Name)
	}
	now := s.CollectedAt
	d := newDescriber()
	d.w(0, "Name:\t%s\n", p.Name)
	d.w(0, "Namespace:\t%s\n", p.Namespace)
	if p.Priority != nil {
		d.w(0, "Priority:\t%d\n", *p.Priority)
	} else {
		d.w(0, "Priority:\t0\n")
	}
	if p.PriorityClassName != "" {
		d.w(0, "Priority Class Name:\t%s\n", p.PriorityClassName)
	}
	if p.NodeName != "" {
		d.w(0, "Node:\t%s/%s\n", p.NodeName, p.HostIP)
	} else {
		d.w(0, "Node:\t<none>\n")
	}
	if p.StartTime != nil {
		d.w(0, "Start Time:\t%s\n", describeTime(*p.StartTime))
	}
	d.labels(0, "Labels", p.Labels)
	d.w(0, "Status:\t%s\n", p.Phase)
	if p.Reason != "" {
		d.w(0, "Reason:\t%s\n", p.Reason)
	}
	if p.Message != "" {
		d.w(0, "Message:\t%s\n", strings.TrimSpace(p.Message))
	}
	d.w(0, "IP:\t%s\n", p.IP)
	if p.IP == "" {
		d.w(0, "IPs:\t<none>\n")
	} else {
		d.w(0, "IPs:\n")
		d.w(1, "IP:\t%s\n", p.IP)
	}
	if p.Owner != nil {
		d.w(0, "Controlled By:\t%s/%s\n", p.Owner.Kind, p.Owner.Name)
	}
	if len(p.InitContainers) > 0 {
		d.w(0, "Init Containers:\n")
		describeContainers(d, p.InitContainers)
	}
	d.w(0, "Containers:\n")
	describeContainers(d, p.Containers)
	if len(p.Conditions) > 0 {
		d.w(0, "Conditions:\n")
		d.w(1, "Type\tStatus\n")
		for _, cnd := range p.Conditions {
			d.w(1, "%v \t%v \n", cnd.Type, cnd.Status)
		}
	}
	describeVolumes(d, p)
	if p.QOSClass != "" {
		d.w(0, "QoS Class:\t%s\n", p.QOSClass)
	}
	d.labels(0, "Node-Selectors", p.NodeSelector)
	// describe sorts tolerations by key.
	sorted := slices.Clone(p.Tolerations)
	slices.SortStableFunc(sorted, func(a, b snapshot.Toleration) int { return strings.Compare(a.Key, b.Key) })
	var tols []string
	for _, t := range sorted {
		tols = append(tols, tolerationString(t))
	}
	d.list(0, "Tolerations", tols)
	describeEvents(d, s, "Pod", p.Namespace, p.Name, now)
	return d.String()
}

// tolerationString is how describe prints a toleration (without the
// tolerationSeconds the recording does not keep).
func tolerationString(t snapshot.Toleration) string {
	s := t.Key
	if t.Value != "" {
		s += "=" + t.Value
	}
	if t.Effect != "" {
		s += ":" + t.Effect
	}
	if t.Operator == "Exists" && t.Value == "" {
		if t.Key != "" {
			s += " op=Exists"
		} else {
			s = "op=Exists"
		}
	}
	if t.Seconds != nil {
		s += fmt.Sprintf(" for %ds", *t.Seconds)
	}
	return s
}

func describeContainers(d *describer, cs []snapshot.Container) {
	for _, c := range cs {
		d.w(1, "%s:\n", c.Name)
		if c.Image != "" {
			d.w(2, "Image:\t%s\n", c.Image)
		}
		// A container the kubelet has not reported on (the pod is not on
		// a node yet) has no status lines.
		if c.State.Kind != "" {
			describeState(d, "State", c.State)
			if c.LastState.Kind != "" {
				describeState(d, "Last State", c.LastState)
			}
			d.w(2, "Ready:\t%s\n", titleBool(c.Ready))
			d.w(2, "Restart Count:\t%d\n", c.RestartCount)
		}
		describeResources(d, "Limits", c.Limits)
		describeResources(d, "Requests", c.Requests)
	}
}

func describeState(d *describer, name string, st snapshot.ContainerState) {
	switch st.Kind {
	case "running":
		d.w(2, "%s:\tRunning\n", name)
		if st.StartedAt != nil {
			d.w(3, "Started:\t%s\n", describeTime(*st.StartedAt))
		}
	case "waiting":
		d.w(2, "%s:\tWaiting\n", name)
		if st.Reason != "" {
			d.w(3, "Reason:\t%s\n", st.Reason)
		}
	case "terminated":
		d.w(2, "%s:\tTerminated\n", name)
		if st.Reason != "" {
			d.w(3, "Reason:\t%s\n", st.Reason)
		}
		if st.Message != "" {
			d.w(3, "Message:\t%s\n", strings.TrimSpace(st.Message))
		}
		d.w(3, "Exit Code:\t%d\n", st.ExitCode)
		if st.Signal > 0 {
			d.w(3, "Signal:\t%d\n", st.Signal)
		}
		if st.StartedAt != nil {
			d.w(3, "Started:\t%s\n", describeTime(*st.StartedAt))
		}
		if st.FinishedAt != nil {
			d.w(3, "Finished:\t%s\n", describeTime(*st.FinishedAt))
		}
	default:
		d.w(2, "%s:\tWaiting\n", name)
	}
}

func describeResources(d *describer, field string, rl snapshot.ResourceList) {
	if len(rl) == 0 {
		return
	}
	d.w(2, "%s:\n", field)
	for _, name := range rl.Names() {
		d.w(3, "%s:\t%s\n", name, rl[name].String())
	}
}

func describeVolumes(d *describer, p *snapshot.Pod) {
	if len(p.Volumes) == 0 {
		d.w(0, "Volumes:\t<none>\n")
		return
	}
	d.w(0, "Volumes:\n")
	for _, v := range p.Volumes {
		d.w(1, "%s:\n", v.Name)
		switch v.Kind {
		case "persistentVolumeClaim":
			d.w(2, "Type:\tPersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)\n")
			d.w(2, "ClaimName:\t%s\n", v.ClaimName)
		case "ephemeral":
			d.w(2, "Type:\tEphemeralVolume (an inline specification for a volume that gets created and deleted with the pod)\n")
		case "emptyDir":
			d.w(2, "Type:\tEmptyDir (a temporary directory that shares a pod's lifetime)\n")
		case "hostPath":
			d.w(2, "Type:\tHostPath (bare host directory volume)\n")
		case "secret":
			d.w(2, "Type:\tSecret (a volume populated by a Secret)\n")
		case "configMap":
			d.w(2, "Type:\tConfigMap (a volume populated by a ConfigMap)\n")
		case "projected":
			d.w(2, "Type:\tProjected (a volume that contains injected data from multiple sources)\n")
		case "csi":
			d.w(2, "Type:\tCSI (a Container Storage Interface (CSI) volume source)\n")
		}
	}
}

// describePodBrief describes a GPU stack pod from what the recording keeps
// of it: where it runs and why it is not Ready.
func describePodBrief(s *snapshot.Snapshot, ds snapshot.DaemonSet, b snapshot.PodBrief) string {
	d := newDescriber()
	d.w(0, "Name:\t%s\n", b.Name)
	d.w(0, "Namespace:\t%s\n", ds.Namespace)
	d.w(0, "Node:\t%s\n", orNone(b.NodeName))
	d.w(0, "Status:\t%s\n", b.Phase)
	d.w(0, "Controlled By:\tDaemonSet/%s\n", ds.Name)
	describeEvents(d, s, "Pod", ds.Namespace, b.Name, s.CollectedAt)
	return d.String()
}

func titleBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}
