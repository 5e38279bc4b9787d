package kubectl

import (
	"fmt"
	"sort"
	"strings"

	"casebook/internal/snapshot"
)

func getQuotas(s *snapshot.Snapshot, c Command) string {
	if c.Namespace != s.Target.Namespace && !c.AllNamespaces {
		return noResources(c)
	}
	var list []snapshot.Quota
	for _, q := range s.Quotas {
		if c.Name == "" || q.Name == c.Name {
			list = append(list, q)
		}
	}
	if len(list) == 0 {
		if c.Name != "" {
			return fmt.Sprintf("Error from server (NotFound): resourcequotas %q not found\n", c.Name)
		}
		if e, ok := s.ReadFailed("list resourcequotas"); ok {
			return fmt.Sprintf("Error from server (Forbidden): %s\n", e.Message)
		}
		return noResources(c)
	}
	header := []string{"NAME", "REQUEST", "LIMIT", "AGE"}
	if c.AllNamespaces {
		header = append([]string{"NAMESPACE"}, header...)
	}
	t := newTable(header...)
	for _, q := range list {
		var req, lim []string
		for _, r := range q.Hard.Names() {
			cell := fmt.Sprintf("%s: %s/%s", r, quotaText(q.Used[r]), q.Hard[r].String())
			if strings.HasPrefix(r, "limits.") {
				lim = append(lim, cell)
			} else {
				req = append(req, cell)
			}
		}
		cells := []string{q.Name, strings.Join(req, ", "), strings.Join(lim, ", "), age(q.CreatedAt, s.CollectedAt)}
		if c.AllNamespaces {
			cells = append([]string{s.Target.Namespace}, cells...)
		}
		t.row(cells...)
	}
	return t.String()
}

func quotaText(q snapshot.Quantity) string {
	if q.Value() == 0 {
		return "0"
	}
	return q.String()
}

func describeQuotas(s *snapshot.Snapshot, c Command) string {
	if c.Namespace != s.Target.Namespace {
		return noResources(c)
	}
	var out []string
	for _, q := range s.Quotas {
		if c.Name != "" && q.Name != c.Name {
			continue
		}
		d := newDescriber()
		d.w(0, "Name:\t%s\n", q.Name)
		d.w(0, "Namespace:\t%s\n", s.Target.Namespace)
		d.w(0, "Resource\tUsed\tHard\n")
		d.w(0, "--------\t----\t----\n")
		for _, r := range q.Hard.Names() {
			d.w(0, "%s\t%s\t%s\n", r, quotaText(q.Used[r]), q.Hard[r].String())
		}
		out = append(out, d.String())
	}
	if len(out) == 0 {
		if c.Name != "" {
			return fmt.Sprintf("Error from server (NotFound): resourcequotas %q not found\n", c.Name)
		}
		return noResources(c)
	}
	return strings.Join(out, "\n\n")
}

var accessModeShort = map[string]string{"ReadWriteOnce": "RWO", "ReadOnlyMany": "ROX", "ReadWriteMany": "RWX", "ReadWriteOncePod": "RWOP"}

func pvcModes(p snapshot.PVC) string {
	if p.Phase != "Bound" {
		return ""
	}
	var m []string
	for _, a := range p.AccessModes {
		m = append(m, accessModeShort[a])
	}
	return strings.Join(m, ",")
}

func storageClassOf(p snapshot.PVC) string {
	if p.StorageClassName == nil {
		return "<unset>"
	}
	return *p.StorageClassName
}

func getPVCs(s *snapshot.Snapshot, c Command) string {
	var list []snapshot.PVC
	if c.AllNamespaces || c.Namespace == s.Target.Namespace {
		for _, p := range s.PVCs {
			if !p.Missing && (c.Name == "" || p.Name == c.Name) {
				list = append(list, p)
			}
		}
	}
	if len(list) == 0 {
		if c.Name != "" {
			return fmt.Sprintf("Error from server (NotFound): persistentvolumeclaims %q not found\n", c.Name)
		}
		return noResources(c)
	}
	header := []string{"NAME", "STATUS", "VOLUME", "CAPACITY", "ACCESS MODES", "STORAGECLASS", "VOLUMEATTRIBUTESCLASS", "AGE"}
	if c.AllNamespaces {
		header = append([]string{"NAMESPACE"}, header...)
	}
	t := newTable(header...)
	for _, p := range list {
		cells := []string{p.Name, p.Phase, p.VolumeName, p.Capacity, pvcModes(p), storageClassOf(p), "<unset>", age(p.CreatedAt, s.CollectedAt)}
		if c.AllNamespaces {
			cells = append([]string{s.Target.Namespace}, cells...)
		}
		t.row(cells...)
	}
	return t.String()
}

func describePVC(s *snapshot.Snapshot, c Command) string {
	for _, p := range s.PVCs {
		if p.Name != c.Name || p.Missing || c.Namespace != s.Target.Namespace {
			continue
		}
		d := newDescriber()
		d.w(0, "Name:\t%s\n", p.Name)
		d.w(0, "Namespace:\t%s\n", s.Target.Namespace)
		sc := ""
		if p.StorageClassName != nil {
			sc = *p.StorageClassName
		}
		d.w(0, "StorageClass:\t%s\n", sc)
		d.w(0, "Status:\t%s\n", p.Phase)
		d.w(0, "Volume:\t%s\n", p.VolumeName)
		d.w(0, "Capacity:\t%s\n", p.Capacity)
		d.w(0, "Access Modes:\t%s\n", pvcModes(p))
		describeEvents(d, s, "PersistentVolumeClaim", s.Target.Namespace, p.Name, s.CollectedAt)
		return d.String()
	}
	return fmt.Sprintf("Error from server (NotFound): persistentvolumeclaims %q not found\n", c.Name)
}

func describeStorageClass(s *snapshot.Snapshot, c Command) string {
	for _, sc := range s.StorageClasses {
		if sc.Name != c.Name || sc.Missing {
			continue
		}
		d := newDescriber()
		d.w(0, "Name:\t%s\n", sc.Name)
		def := "No"
		if sc.Default {
			def = "Yes"
		}
		d.w(0, "IsDefaultClass:\t%s\n", def)
		d.w(0, "Provisioner:\t%s\n", sc.Provisioner)
		d.w(0, "VolumeBindingMode:\t%s\n", sc.VolumeBindingMode)
		return d.String()
	}
	return fmt.Sprintf("Error from server (NotFound): storageclasses.storage.k8s.io %q not found\n", c.Name)
}

func getResourceClaims(s *snapshot.Snapshot, c Command) string {
	var list []snapshot.ResourceClaim
	if c.AllNamespaces || c.Namespace == s.Target.Namespace {
		for _, rc := range s.ResourceClaims {
			if !rc.Missing && (c.Name == "" || rc.Name == c.Name) {
				list = append(list, rc)
			}
		}
	}
	if len(list) == 0 {
		if c.Name != "" {
			return fmt.Sprintf("Error from server (NotFound): resourceclaims.resource.k8s.io %q not found\n", c.Name)
		}
		return noResources(c)
	}
	t := newTable("NAME", "STATE", "AGE")
	for _, rc := range list {
		state := "pending"
		if rc.Allocated {
			state = "allocated"
			if len(rc.ReservedFor) > 0 {
				state += ",reserved"
			}
		}
		t.row(rc.Name, state, "<unknown>")
	}
	return t.String()
}

func getDeviceClasses(s *snapshot.Snapshot, c Command) string {
	var names []string
	for _, dc := range s.DeviceClasses {
		if !dc.Missing && (c.Name == "" || dc.Name == c.Name) {
			names = append(names, dc.Name)
		}
	}
	if len(names) == 0 {
		if c.Name != "" {
			return fmt.Sprintf("Error from server (NotFound): deviceclasses.resource.k8s.io %q not found\n", c.Name)
		}
		return noResources(c)
	}
	sort.Strings(names)
	t := newTable("NAME", "AGE")
	for _, n := range names {
		t.row(n, "<unknown>")
	}
	return t.String()
}

func describePriorityClass(s *snapshot.Snapshot, c Command) string {
	pc := s.PriorityClass
	if pc == nil || pc.Name != c.Name {
		return fmt.Sprintf("Error from server (NotFound): priorityclasses.scheduling.k8s.io %q not found\n", c.Name)
	}
	d := newDescriber()
	d.w(0, "Name:\t%s\n", pc.Name)
	d.w(0, "Value:\t%d\n", pc.Value)
	d.w(0, "GlobalDefault:\t%v\n", pc.GlobalDefault)
	if pc.PreemptionPolicy != "" {
		d.w(0, "PreemptionPolicy:\t%s\n", pc.PreemptionPolicy)
	}
	return d.String()
}

func getClusterPolicies(s *snapshot.Snapshot, c Command) string {
	cp := s.ClusterPolicy
	if cp == nil || (c.Name != "" && cp.Name != c.Name) {
		if s.APIs != nil && !s.APIs["nvidia.com/v1"] {
			return "error: the server doesn't have a resource type \"clusterpolicies\"\n"
		}
		return "No resources found\n"
	}
	t := newTable("NAME", "STATUS", "AGE")
	t.row(cp.Name, cp.State, "<unknown>")
	return t.String()
}

// logs prints a recorded log tail. A container that never restarted has
// no previous log, as kubectl says; a log the recording did not read is
// refused, not made up.
func logs(s *snapshot.Snapshot, c Command) (string, error) {
	var containers []string
	var restarts = map[string]int32{}
	found := false
	if p := s.Pod; p != nil && p.Name == c.Name && p.Namespace == c.Namespace {
		found = true
		for _, ct := range p.Containers {
			containers = append(containers, ct.Name)
			restarts[ct.Name] = ct.RestartCount
		}
	}
	for _, ds := range s.DaemonSets {
		for _, b := range ds.Pods {
			if b.Name == c.Name && ds.Namespace == c.Namespace {
				found = true
			}
		}
	}
	if !found {
		return fmt.Sprintf("Error from server (NotFound): pods %q not found\n", c.Name), nil
	}
	container := c.Container
	if container == "" && len(containers) > 1 {
		return fmt.Sprintf("error: a container name must be specified for pod %s, choose one of: [%s]\n", c.Name, strings.Join(containers, " ")), nil
	}
	if container == "" && len(containers) == 1 {
		container = containers[0]
	}
	if len(containers) > 0 {
		if _, ok := restarts[container]; !ok {
			return fmt.Sprintf("error: container %s is not valid for pod %s\n", container, c.Name), nil
		}
		if c.Previous && restarts[container] == 0 {
			return fmt.Sprintf("Error from server (BadRequest): previous terminated container %q in pod %q not found\n", container, c.Name), nil
		}
	}
	for _, l := range s.Logs {
		if l.Pod == c.Name && l.Previous == c.Previous && (l.Container == container || l.Container == "" || container == "") {
			return l.Tail, nil
		}
	}
	what := "log"
	if c.Previous {
		what = "previous log"
	}
	return "", unsupported("the recording holds no %s of pod %s; only what the recorder read is here", what, c.Name)
}
