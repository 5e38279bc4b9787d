package probe

import (
	"casebook/internal/i18n"
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
		ev = append(ev, Evidence{Object: nodeRef(n.Name), Field: "spec.taints", Value: strings.Join(names, ", ")}.
			explained(i18n.M("probe.ev.not_tolerated", "tolerations", tols)))
	}
	if len(ev) == 0 && len(s.Nodes) == 0 {
		if e, ok := s.ReadFailed("list nodes"); ok {
			ev = append(ev, Evidence{Object: "nodes"}.explained(i18n.M("probe.ev.taints_unread", "permission", e.Permission.String())))
		}
	}
	return ev
}

func tolerationText(tols []snapshot.Toleration) any {
	if len(tols) == 0 {
		return i18n.M("probe.ev.none")
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
			s = "Exists" // tolerates every taint
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
			e = e.explained(i18n.M("probe.ev.nearest_label", "label", m.NearKey+"="+m.Nearest, "nodes", strings.Join(prefixAll("node/", nodes), ", ")))
		} else {
			e = e.explained(i18n.M("probe.ev.no_label"))
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
				lines = append(lines, Evidence{Object: nodeRef(n.Name), Field: "status.allocatable[" + r + "]", Value: n.Allocatable[r].Human(r)}.
					explained(i18n.M("probe.ev.requests_unread")))
				continue
			}
			known++
			total += max(free.Value(), 0)
			if free.Value() >= want {
				fits++
			}
			lines = append(lines, Evidence{Object: nodeRef(n.Name), Field: r}.
				valued(i18n.M("probe.ev.free", "allocatable", n.Allocatable[r].Human(r), "requested", n.Requested[r].Human(r), "free", free.Human(r))))
		}
		if len(lines) > maxNodeEvidence {
			lines = lines[:maxNodeEvidence]
		}
		ev = append(ev, Evidence{Object: podRef(s), Field: "requests[" + r + "]", Value: snapshot.NewQuantity(want).Human(r)})
		ev = append(ev, lines...)
		if known > 0 && fits == 0 && total >= want && want > 0 {
			ev = append(ev, Evidence{Object: "cluster", Field: r}.
				valued(i18n.M("probe.ev.fragmented", "total", snapshot.NewQuantity(total).Human(r), "count", known, "want", snapshot.NewQuantity(want).Human(r))).
				explained(i18n.M("probe.ev.fit_one_node")))
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
			ev = append(ev, Evidence{Object: nodeRef(n.Name), Field: "spec.unschedulable", Value: "true"}.explained(i18n.M("probe.ev.cordoned")))
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
			ev = append(ev, Evidence{Object: ref}.explained(i18n.M("probe.ev.claim_missing")))
			continue
		}
		if c.Phase == "Bound" {
			continue
		}
		class := i18n.M("probe.ev.class_unset")
		if c.StorageClassName != nil {
			class = i18n.M("probe.ev.class", "class", *c.StorageClassName)
			if *c.StorageClassName == "" {
				class = i18n.M("probe.ev.class_empty")
			}
		}
		ev = append(ev, Evidence{Object: ref, Field: "status.phase", Value: c.Phase}.explained(class))
		for _, sc := range s.StorageClasses {
			if sc.Missing && c.StorageClassName != nil && sc.Name == *c.StorageClassName {
				ev = append(ev, Evidence{Object: "storageclass/" + sc.Name}.explained(i18n.M("probe.ev.missing")))
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
			ev = append(ev, Evidence{Object: ref}.explained(i18n.M("probe.ev.missing")))
		} else if !c.Allocated {
			ev = append(ev, Evidence{Object: ref, Field: "status.allocation"}.valued(i18n.M("probe.ev.none")))
		}
	}
	for _, d := range s.DeviceClasses {
		if d.Missing {
			ev = append(ev, Evidence{Object: "deviceclass/" + d.Name}.explained(i18n.M("probe.ev.missing")))
			continue
		}
		if len(d.Drivers) > 0 {
			ev = append(ev, Evidence{Object: "deviceclass/" + d.Name, Field: "driver", Value: strings.Join(d.Drivers, ", ")})
		}
	}
	for _, ds := range s.DriverSlices {
		obj := "resourceslices spec.driver=" + ds.Driver
		switch {
		case ds.Slices == 0:
			ev = append(ev, Evidence{Object: obj}.valued(i18n.M("probe.ev.none")).explained(i18n.M("probe.ev.no_slices")))
		case ds.Devices == 0:
			ev = append(ev, Evidence{Object: obj}.valued(i18n.M("probe.ev.slices_empty", "slices", ds.Slices)).explained(i18n.M("probe.ev.no_devices")))
		default:
			ev = append(ev, Evidence{Object: obj}.valued(i18n.M("probe.ev.devices", "devices", ds.Devices, "slices", ds.Slices, "nodes", len(ds.Nodes))).
				explained(i18n.M("probe.ev.devices_ruled_out")))
		}
	}
	if len(s.DriverSlices) == 0 && len(s.DeviceClasses) > 0 {
		if e, ok := s.ReadFailed("list resourceslices"); ok {
			ev = append(ev, Evidence{Object: "resourceslices"}.explained(i18n.M("probe.ev.slices_unread", "permission", e.Permission.String())))
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
			ev = append(ev, Evidence{Object: "resourcequotas"}.explained(i18n.M("probe.ev.quotas_unread", "permission", e.Permission.String())))
		}
	}
	return ev
}
