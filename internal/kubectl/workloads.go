package kubectl

import (
	"fmt"
	"sort"
	"strings"

	"casebook/internal/snapshot"
)

var workloadKinds = map[string]string{"deployments": "Deployment", "replicasets": "ReplicaSet", "statefulsets": "StatefulSet", "jobs": "Job"}

func owners(s *snapshot.Snapshot, kind, ns string, all bool) []snapshot.Owner {
	var out []snapshot.Owner
	for _, o := range s.Owners {
		if o.Kind == kind && (all || o.Namespace == ns) {
			out = append(out, o)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func replicas(o snapshot.Owner) int32 {
	if o.Replicas == nil {
		return 1
	}
	return *o.Replicas
}

func getWorkloads(s *snapshot.Snapshot, c Command) (string, error) {
	kind := workloadKinds[c.Resource]
	if kind == "Job" {
		return "", unsupported("the recording keeps a Job's conditions, not its completions: kubectl describe job NAME shows them")
	}
	list := owners(s, kind, c.Namespace, c.AllNamespaces)
	if c.Name != "" {
		var keep []snapshot.Owner
		for _, o := range list {
			if o.Name == c.Name {
				keep = append(keep, o)
			}
		}
		if len(keep) == 0 {
			return fmt.Sprintf("Error from server (NotFound): %s.apps %q not found\n", c.Resource, c.Name), nil
		}
		list = keep
	}
	if len(list) == 0 {
		return noResources(c), nil
	}
	var header []string
	switch kind {
	case "Deployment":
		header = []string{"NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"}
	case "ReplicaSet":
		header = []string{"NAME", "DESIRED", "CURRENT", "READY", "AGE"}
	case "StatefulSet":
		header = []string{"NAME", "READY", "AGE"}
	}
	if c.AllNamespaces {
		header = append([]string{"NAMESPACE"}, header...)
	}
	t := newTable(header...)
	for _, o := range list {
		var cells []string
		a := age(o.CreatedAt, s.CollectedAt)
		switch kind {
		case "Deployment":
			cells = []string{o.Name, fmt.Sprintf("%d/%d", o.ReadyReplicas, replicas(o)), fmt.Sprint(o.UpdatedReplicas), fmt.Sprint(o.AvailableReplicas), a}
		case "ReplicaSet":
			cells = []string{o.Name, fmt.Sprint(replicas(o)), fmt.Sprint(o.CurrentReplicas), fmt.Sprint(o.ReadyReplicas), a}
		case "StatefulSet":
			cells = []string{o.Name, fmt.Sprintf("%d/%d", o.ReadyReplicas, replicas(o)), a}
		}
		if c.AllNamespaces {
			cells = append([]string{o.Namespace}, cells...)
		}
		t.row(cells...)
	}
	return t.String(), nil
}

func describeWorkload(s *snapshot.Snapshot, c Command) string {
	kind := workloadKinds[c.Resource]
	var o *snapshot.Owner
	var parent *snapshot.Owner
	for i := range s.Owners {
		if s.Owners[i].Kind == kind && s.Owners[i].Name == c.Name && s.Owners[i].Namespace == c.Namespace {
			o = &s.Owners[i]
			if i+1 < len(s.Owners) {
				parent = &s.Owners[i+1]
			}
		}
	}
	if o == nil {
		group := ".apps"
		if kind == "Job" {
			group = ".batch"
		}
		return fmt.Sprintf("Error from server (NotFound): %s%s %q not found\n", c.Resource, group, c.Name)
	}
	d := newDescriber()
	d.w(0, "Name:\t%s\n", o.Name)
	d.w(0, "Namespace:\t%s\n", o.Namespace)
	if !o.CreatedAt.IsZero() && kind == "Deployment" {
		d.w(0, "CreationTimestamp:\t%s\n", describeTime(o.CreatedAt))
	}
	if parent != nil && kind != "Deployment" {
		d.w(0, "Controlled By:\t%s/%s\n", parent.Kind, parent.Name)
	}
	switch kind {
	case "ReplicaSet":
		d.w(0, "Replicas:\t%d current / %d desired\n", o.CurrentReplicas, replicas(*o))
	case "StatefulSet":
		d.w(0, "Replicas:\t%d desired | %d total\n", replicas(*o), o.CurrentReplicas)
	case "Job":
		if o.Replicas != nil {
			d.w(0, "Parallelism:\t%d\n", *o.Replicas)
		}
	}
	if len(o.Conditions) > 0 {
		d.w(0, "Conditions:\n")
		d.w(1, "Type\tStatus\tReason\n")
		d.w(1, "----\t------\t------\n")
		for _, cnd := range o.Conditions {
			d.w(1, "%v \t%v\t%v\n", cnd.Type, cnd.Status, cnd.Reason)
		}
	}
	describeEvents(d, s, kind, o.Namespace, o.Name, s.CollectedAt)
	return d.String()
}

func getDaemonSets(s *snapshot.Snapshot, c Command) (string, error) {
	if c.Wide {
		return "", unsupported("-o wide: the recording keeps no container images of the DaemonSets")
	}
	var list []snapshot.DaemonSet
	for _, ds := range s.DaemonSets {
		if (c.AllNamespaces || ds.Namespace == c.Namespace) && (c.Name == "" || ds.Name == c.Name) {
			list = append(list, ds)
		}
	}
	if len(list) == 0 {
		if c.Name != "" {
			return fmt.Sprintf("Error from server (NotFound): daemonsets.apps %q not found\n", c.Name), nil
		}
		return noResources(c), nil
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].Namespace != list[j].Namespace {
			return list[i].Namespace < list[j].Namespace
		}
		return list[i].Name < list[j].Name
	})
	header := []string{"NAME", "DESIRED", "CURRENT", "READY", "UP-TO-DATE", "AVAILABLE", "NODE SELECTOR", "AGE"}
	if c.AllNamespaces {
		header = append([]string{"NAMESPACE"}, header...)
	}
	t := newTable(header...)
	for _, ds := range list {
		sel := "<none>"
		if len(ds.NodeSelector) > 0 {
			var kv []string
			for _, k := range sortedKeys(ds.NodeSelector) {
				kv = append(kv, k+"="+ds.NodeSelector[k])
			}
			sel = strings.Join(kv, ",")
		}
		cells := []string{ds.Name, fmt.Sprint(ds.DesiredNumberScheduled), fmt.Sprint(ds.CurrentNumberScheduled), fmt.Sprint(ds.NumberReady),
			fmt.Sprint(ds.UpdatedNumberScheduled), fmt.Sprint(ds.NumberAvailable), sel, age(ds.CreatedAt, s.CollectedAt)}
		if c.AllNamespaces {
			cells = append([]string{ds.Namespace}, cells...)
		}
		t.row(cells...)
	}
	return t.String(), nil
}
