package probe

import (
	"casebook/internal/snapshot"
	"fmt"
	"sort"
	"strings"
)

// maxNodeEvidence bounds how many nodes one answer lists; a pool of
// identical nodes says nothing more after a few.
const maxNodeEvidence = 5

// taintEvidence names, per node the pod is meant for, the taints none of
// its tolerations covers. Newer schedulers no longer print the taint key
// ("had untolerated taint(s)"), so this is where the key comes from.
func taintEvidence(s *snapshot.Snapshot) []Evidence {
	var ev []Evidence
	tols := tolerationText(s.Pod.Tolerations)
	for _, n := range targetNodes(s) {
		bad := snapshot.UntoleratedTaints(n.Taints, s.Pod.Tolerations)
		if len(bad) == 0 || len(ev) == maxNodeEvidence {
			continue
		}
		names := make([]string, len(bad))
		for i, t := range bad {
			names[i] = t.String()
		}
		ev = append(ev, Evidence{Object: nodeRef(n.Name), Field: "spec.taints", Value: strings.Join(names, ", "),
			Message: "not tolerated by the pod (tolerations: " + tols + ")"})
	}
	if len(ev) == 0 && len(s.Nodes) == 0 {
		if e, ok := s.ReadFailed("list nodes"); ok {
			ev = append(ev, Evidence{Object: "nodes", Message: "could not read the nodes' taints: needs " + e.Permission.String()})
		}
	}
	return ev
}

func tolerationText(tols []snapshot.Toleration) string {
	if len(tols) == 0 {
		return "none"
	}
	parts := make([]string, 0, len(tols))
	for _, t := range tols {
		s := t.Key
		if t.Operator == "Exists" {
			s += " Exists"
		} else if t.Value != "" {
			s += "=" + t.Value
		}
		if t.Effect != "" {
			s += ":" + t.Effect
		}
		if s == "" || s == " Exists" {
			s = "everything"
		}
		parts = append(parts, strings.TrimSpace(s))
	}
	return strings.Join(parts, ", ")
}

// selectorEvidence shows each selector value no node carries next to the
// nearest value that nodes do carry.
func selectorEvidence(s *snapshot.Snapshot) []Evidence {
	var ev []Evidence
	for _, m := range SelectorNearMisses(s.Pod, s.Nodes) {
		e := Evidence{Object: podRef(s), Field: "spec.nodeSelector", Value: m.Key + "=" + m.Wanted}
		if m.Nearest != "" {
			nodes := m.Nodes
			if len(nodes) > maxNodeEvidence {
				nodes = append(nodes[:maxNodeEvidence:maxNodeEvidence], "…")
			}
			e.Message = fmt.Sprintf("no node has it; nearest: %s=%s on %s", m.NearKey, m.Nearest, strings.Join(prefixAll("node/", nodes), ", "))
		} else {
			e.Message = "no node carries this label"
		}
		ev = append(ev, e)
	}
	return ev
}

func prefixAll(p string, xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		if x == "…" {
			out[i] = x
		} else {
			out[i] = p + x
		}
	}
	return out
}

// capacityEvidence compares what the pod asks for with what each node the
// pod is meant for has free, and says when the cluster as a whole has
// enough but no single node does (the tensor-parallel trap).
func capacityEvidence(s *snapshot.Snapshot, resources []string) []Evidence {
	reqs := s.Pod.Requests()
	var ev []Evidence
	for _, r := range resources {
		want := reqs[r].Value()
		var total float64
		fits, known := 0, 0
		var lines []Evidence
		for _, n := range targetNodes(s) {
			if _, ok := n.Allocatable[r]; !ok && snapshot.IsExtended(r) {
				continue
			}
			free, ok := n.Free(r)
			if !ok {
				lines = append(lines, Evidence{Object: nodeRef(n.Name), Field: "status.allocatable[" + r + "]", Value: n.Allocatable[r].Human(r),
					Message: "requests of its pods not read"})
				continue
			}
			known++
			total += max(free.Value(), 0)
			if free.Value() >= want {
				fits++
			}
			lines = append(lines, Evidence{Object: nodeRef(n.Name), Field: r,
				Value: fmt.Sprintf("allocatable %s, requested %s, free %s", n.Allocatable[r].Human(r), n.Requested[r].Human(r), free.Human(r))})
		}
		if len(lines) > maxNodeEvidence {
			lines = lines[:maxNodeEvidence]
		}
		ev = append(ev, Evidence{Object: podRef(s), Field: "requests[" + r + "]", Value: snapshot.NewQuantity(want).Human(r)})
		ev = append(ev, lines...)
		if known > 0 && fits == 0 && total >= want && want > 0 {
			ev = append(ev, Evidence{Object: "cluster", Field: r,
				Value:   fmt.Sprintf("%s free in total across %d nodes, but no single node has %s free", snapshot.NewQuantity(total).Human(r), known, snapshot.NewQuantity(want).Human(r)),
				Message: "a pod's requests must fit on one node"})
		}
	}
	return ev
}

// cordonEvidence lists the cordoned or NotReady nodes the pod is meant for.
func cordonEvidence(s *snapshot.Snapshot) []Evidence {
	var ev []Evidence
	for _, n := range targetNodes(s) {
		if len(ev) == maxNodeEvidence {
			break
		}
		if n.Unschedulable {
			ev = append(ev, Evidence{Object: nodeRef(n.Name), Field: "spec.unschedulable", Value: "true", Message: "cordoned"})
		} else if ready, ok := n.Ready(); ok && !ready {
			c, _ := snapshot.FindCondition(n.Conditions, "Ready")
			ev = append(ev, Evidence{Object: nodeRef(n.Name), Field: "status.conditions[Ready]", Value: c.Status, Message: c.Message})
		}
	}
	return ev
}

// volumeEvidence lists the pod's claims that are not Bound, their class,
// and what the claims' own events say.
func volumeEvidence(s *snapshot.Snapshot) []Evidence {
	var ev []Evidence
	for _, c := range s.PVCs {
		ref := snapshot.ObjectRef{Kind: "PersistentVolumeClaim", Namespace: s.Pod.Namespace, Name: c.Name}.String()
		if c.Missing {
			ev = append(ev, Evidence{Object: ref, Message: "the pod names this claim but it does not exist"})
			continue
		}
		if c.Phase == "Bound" {
			continue
		}
		class := "<unset: the default class>"
		if c.StorageClassName != nil {
			class = *c.StorageClassName
			if class == "" {
				class = `"" (no class: only a pre-created PV can bind it)`
			}
		}
		ev = append(ev, Evidence{Object: ref, Field: "status.phase", Value: c.Phase, Message: "storageClassName " + class})
		for _, sc := range s.StorageClasses {
			if sc.Missing && c.StorageClassName != nil && sc.Name == *c.StorageClassName {
				ev = append(ev, Evidence{Object: "storageclass/" + sc.Name, Message: "does not exist"})
			}
		}
		for _, e := range s.Events {
			if e.Object.Kind == "PersistentVolumeClaim" && e.Object.Name == c.Name {
				ev = append(ev, Evidence{Object: ref, Field: "event " + e.Reason, Message: e.Message})
			}
		}
	}
	return ev
}

// claimEvidence lists unallocated DRA claims and missing DeviceClasses.
func claimEvidence(s *snapshot.Snapshot) []Evidence {
	var ev []Evidence
	for _, c := range s.ResourceClaims {
		ref := snapshot.ObjectRef{Kind: "ResourceClaim", Namespace: s.Pod.Namespace, Name: c.Name}.String()
		if c.Missing {
			ev = append(ev, Evidence{Object: ref, Message: "does not exist"})
		} else if !c.Allocated {
			ev = append(ev, Evidence{Object: ref, Field: "status.allocation", Value: "none"})
		}
	}
	for _, d := range s.DeviceClasses {
		if d.Missing {
			ev = append(ev, Evidence{Object: "deviceclass/" + d.Name, Message: "does not exist"})
			continue
		}
		if len(d.Drivers) > 0 {
			ev = append(ev, Evidence{Object: "deviceclass/" + d.Name, Field: "driver", Value: strings.Join(d.Drivers, ", ")})
		}
	}
	for _, ds := range s.DriverSlices {
		obj := "resourceslices of driver " + ds.Driver
		switch {
		case ds.Slices == 0:
			ev = append(ev, Evidence{Object: obj, Value: "none",
				Message: "the driver publishes no devices: its kubelet plugin runs on no node, so no claim for its devices can be allocated"})
		case ds.Devices == 0:
			ev = append(ev, Evidence{Object: obj, Value: fmt.Sprintf("%d slices, 0 devices", ds.Slices), Message: "the driver's slices list no device"})
		default:
			ev = append(ev, Evidence{Object: obj, Value: fmt.Sprintf("%d devices in %d slices on %d nodes", ds.Devices, ds.Slices, len(ds.Nodes)),
				Message: "devices exist; the claim's selectors or constraints, or devices already allocated, rule them out"})
		}
	}
	if len(s.DriverSlices) == 0 && len(s.DeviceClasses) > 0 {
		if e, ok := s.ReadFailed("list resourceslices"); ok {
			ev = append(ev, Evidence{Object: "resourceslices", Message: "could not read the drivers' ResourceSlices: needs " + e.Permission.String()})
		}
	}
	return ev
}

// quotaEvidence shows used/hard for every quota resource that is at or over
// its limit, most relevant first: those the refusal message names.
func quotaEvidence(s *snapshot.Snapshot, msg string) []Evidence {
	var ev []Evidence
	for _, q := range s.Quotas {
		names := q.Hard.Names()
		sort.SliceStable(names, func(i, j int) bool {
			return strings.Contains(msg, names[i]+"=") && !strings.Contains(msg, names[j]+"=")
		})
		for _, r := range names {
			hard, used := q.Hard[r], q.Used[r]
			if used.Value() < hard.Value() && !strings.Contains(msg, r+"=") {
				continue
			}
			ev = append(ev, Evidence{Object: snapshot.ObjectRef{Kind: "ResourceQuota", Namespace: s.Target.Namespace, Name: q.Name}.String(),
				Field: r, Value: fmt.Sprintf("used %s / hard %s", used.Human(r), hard.Human(r))})
		}
	}
	if len(ev) == 0 {
		if e, ok := s.ReadFailed("list resourcequotas"); ok {
			ev = append(ev, Evidence{Object: "resourcequotas", Message: "could not read quotas: needs " + e.Permission.String()})
		}
	}
	return ev
}
