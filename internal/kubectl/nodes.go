package kubectl

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"casebook/internal/snapshot"
)

// nodeStatus is kubectl's STATUS column: Ready or NotReady (Unknown when
// the condition is missing), then SchedulingDisabled for a cordoned node.
func nodeStatus(n *snapshot.Node) string {
	var st []string
	if c, ok := snapshot.FindCondition(n.Conditions, "Ready"); ok {
		if c.Status == "True" {
			st = append(st, "Ready")
		} else {
			st = append(st, "NotReady")
		}
	}
	if len(st) == 0 {
		st = append(st, "Unknown")
	}
	if n.Unschedulable {
		st = append(st, "SchedulingDisabled")
	}
	return strings.Join(st, ",")
}

// nodeRoles reads node-role.kubernetes.io/<role> and kubernetes.io/role.
func nodeRoles(n *snapshot.Node) string {
	var roles []string
	for k, v := range n.Labels {
		switch {
		case strings.HasPrefix(k, "node-role.kubernetes.io/"):
			if r := strings.TrimPrefix(k, "node-role.kubernetes.io/"); r != "" {
				roles = append(roles, r)
			}
		case k == "kubernetes.io/role" && v != "":
			roles = append(roles, v)
		}
	}
	if len(roles) == 0 {
		return "<none>"
	}
	sort.Strings(roles)
	return strings.Join(roles, ",")
}

func unknownIfEmpty(s string) string {
	if s == "" {
		return "<unknown>"
	}
	return s
}

func getNodes(s *snapshot.Snapshot, c Command) string {
	nodes := s.Nodes
	if c.Name != "" {
		n, ok := s.Node(c.Name)
		if !ok {
			return fmt.Sprintf("Error from server (NotFound): nodes %q not found\n", c.Name)
		}
		nodes = []snapshot.Node{*n}
	}
	if len(nodes) == 0 {
		if e, ok := s.ReadFailed("list nodes"); ok {
			return fmt.Sprintf("Error from server (Forbidden): %s\n", e.Message)
		}
		return "No resources found\n"
	}
	header := []string{"NAME", "STATUS", "ROLES", "AGE", "VERSION"}
	if c.Wide {
		header = append(header, "INTERNAL-IP", "EXTERNAL-IP", "OS-IMAGE", "KERNEL-VERSION", "CONTAINER-RUNTIME")
	}
	header = append(header, labelHeaders(c)...)
	t := newTable(header...)
	sorted := append([]snapshot.Node(nil), nodes...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	for i := range sorted {
		n := &sorted[i]
		cells := []string{n.Name, nodeStatus(n), nodeRoles(n), age(n.CreatedAt, s.CollectedAt), n.KubeletVersion}
		if c.Wide {
			kernel := unknownIfEmpty(n.KernelVersion)
			if n.Architecture != "" && n.KernelVersion != "" {
				kernel += " (" + n.Architecture + ")"
			}
			cells = append(cells, orNone(n.InternalIP), orNone(n.ExternalIP), unknownIfEmpty(n.OSImage), kernel, unknownIfEmpty(n.ContainerRuntime))
		}
		cells = append(cells, labelCells(c, n.Labels)...)
		t.row(cells...)
	}
	return t.String()
}

func describeNode(s *snapshot.Snapshot, c Command) string {
	n, ok := s.Node(c.Name)
	if !ok {
		return fmt.Sprintf("Error from server (NotFound): nodes %q not found\n", c.Name)
	}
	d := newDescriber()
	d.w(0, "Name:\t%s\n", n.Name)
	d.w(0, "Roles:\t%s\n", nodeRoles(n))
	d.labels(0, "Labels", n.Labels)
	if !n.CreatedAt.IsZero() {
		d.w(0, "CreationTimestamp:\t%s\n", describeTime(n.CreatedAt))
	}
	var taints []string
	for _, t := range n.Taints {
		taints = append(taints, t.String())
	}
	d.list(0, "Taints", taints)
	d.w(0, "Unschedulable:\t%v\n", n.Unschedulable)
	if len(n.Conditions) > 0 {
		d.w(0, "Conditions:\n")
		d.w(1, "Type\tStatus\tLastHeartbeatTime\tLastTransitionTime\tReason\tMessage\n")
		d.w(1, "----\t------\t-----------------\t------------------\t------\t-------\n")
		for _, cnd := range n.Conditions {
			d.w(1, "%v \t%v \t%s \t%s \t%v \t%v\n", cnd.Type, cnd.Status, timeOrZero(cnd.LastHeartbeatTime),
				timeOrZero(cnd.LastTransitionTime), cnd.Reason, cnd.Message)
		}
	}
	if n.InternalIP != "" || n.ExternalIP != "" {
		d.w(0, "Addresses:\n")
		if n.InternalIP != "" {
			d.w(1, "InternalIP:\t%s\n", n.InternalIP)
		}
		if n.ExternalIP != "" {
			d.w(1, "ExternalIP:\t%s\n", n.ExternalIP)
		}
	}
	describeResourceList(d, "Capacity", n.Capacity)
	describeResourceList(d, "Allocatable", n.Allocatable)
	if n.KernelVersion != "" || n.OSImage != "" || n.KubeletVersion != "" {
		d.w(0, "System Info:\n")
		d.w(1, "Kernel Version:\t%s\n", n.KernelVersion)
		d.w(1, "OS Image:\t%s\n", n.OSImage)
		if n.Architecture != "" {
			d.w(1, "Architecture:\t%s\n", n.Architecture)
		}
		if n.ContainerRuntime != "" {
			d.w(1, "Container Runtime Version:\t%s\n", n.ContainerRuntime)
		}
		d.w(1, "Kubelet Version:\t%s\n", n.KubeletVersion)
	}
	if n.RequestedKnown {
		d.w(0, "Non-terminated Pods:\t(%d in total)\n", n.PodCount)
		d.w(0, "Allocated resources:\n")
		d.w(1, "(Total limits may be over 100 percent, i.e., overcommitted.)\n")
		d.w(1, "Resource\tRequests\n")
		d.w(1, "--------\t--------\n")
		for _, r := range []string{"cpu", "memory", "ephemeral-storage"} {
			req := n.Requested[r]
			d.w(1, "%s\t%s (%d%%)\n", r, requestText(req, r), percent(req.Value(), n.Allocatable[r].Value()))
		}
		for _, r := range n.Allocatable.Names() {
			if snapshot.IsExtended(r) && !strings.HasPrefix(r, "hugepages-") {
				d.w(1, "%s\t%s\n", r, requestText(n.Requested[r], r))
			}
		}
	}
	describeEvents(d, s, "Node", "", n.Name, s.CollectedAt)
	return d.String()
}

// requestText renders a summed request as kubectl prints a quantity: "0"
// for nothing, millicores for fractional CPU, binary units for memory.
func requestText(q snapshot.Quantity, resource string) string {
	if q.Value() == 0 {
		return "0"
	}
	return q.Human(resource)
}

func percent(req, alloc float64) int64 {
	if alloc == 0 {
		return 0
	}
	return int64(math.Floor(req / alloc * 100))
}

func timeOrZero(t *time.Time) string {
	if t == nil {
		return time.Time{}.Format(time.RFC1123Z)
	}
	return describeTime(*t)
}

func describeResourceList(d *describer, field string, rl snapshot.ResourceList) {
	if len(rl) == 0 {
		return
	}
	d.w(0, "%s:\n", field)
	for _, name := range rl.Names() {
		d.w(1, "%s:\t%s\n", name, rl[name].String())
	}
}
