package kubectl

import (
	"strings"

	"casebook/internal/snapshot"
)

// Run renders the output of c over what s recorded. Output kubectl itself
// would print for a missing object ("No resources found", "NotFound") is
// output, not an error; an error means the command cannot run on a
// recording at all (see Error).
func Run(s *snapshot.Snapshot, c Command) (string, error) {
	if err := notRecorded(s, c); err != nil {
		return "", err
	}
	switch c.Verb {
	case "logs":
		return logs(s, c)
	case "get":
		switch c.Resource {
		case "pods":
			return getPods(s, c), nil
		case "nodes":
			return getNodes(s, c), nil
		case "events":
			return getEvents(s, c), nil
		case "resourcequotas":
			return getQuotas(s, c), nil
		case "persistentvolumeclaims":
			return getPVCs(s, c), nil
		case "resourceclaims":
			return getResourceClaims(s, c), nil
		case "deviceclasses":
			return getDeviceClasses(s, c), nil
		case "deployments", "replicasets", "statefulsets", "jobs":
			return getWorkloads(s, c)
		case "daemonsets":
			return getDaemonSets(s, c)
		case "clusterpolicies":
			return getClusterPolicies(s, c), nil
		case "storageclasses", "priorityclasses":
			return "", unsupported("the recording keeps the %s the pod names, not the whole list: kubectl describe %s NAME shows it", c.Resource, singular(c.Resource))
		}
	case "describe":
		switch c.Resource {
		case "pods":
			return describePod(s, c), nil
		case "nodes":
			return describeNode(s, c), nil
		case "resourcequotas":
			return describeQuotas(s, c), nil
		case "persistentvolumeclaims":
			return describePVC(s, c), nil
		case "storageclasses":
			return describeStorageClass(s, c), nil
		case "priorityclasses":
			return describePriorityClass(s, c), nil
		case "deployments", "replicasets", "statefulsets", "jobs":
			return describeWorkload(s, c), nil
		}
	}
	return "", unsupported("kubectl %s %s is not part of what a recording can show", c.Verb, c.Resource)
}

// Exec parses and runs one typed command line.
func Exec(s *snapshot.Snapshot, line string) (Command, string, error) {
	c, err := Parse(line, s.Target.Namespace)
	if err != nil {
		return Command{}, "", err
	}
	out, err := Run(s, c)
	return c, out, err
}

// notRecorded refuses what a workload's recording does not hold: a
// workload recorded because its controller could not create pods keeps
// the controllers, their events and the quotas, not the pods it has nor
// the nodes, and "No resources found" would be a lie.
func notRecorded(s *snapshot.Snapshot, c Command) error {
	if s.Pod != nil || s.Target.Kind == "" || s.Target.Kind == "Pod" {
		return nil
	}
	switch {
	case c.Resource == "pods" && c.Verb != "logs" && len(s.DaemonSets) == 0:
		return unsupported("this recording holds %s/%s's controllers, their events and the quotas, not its pods (those that exist are healthy): kubectl describe %s %s shows why pods are missing",
			strings.ToLower(s.Target.Kind), s.Target.Name, strings.ToLower(s.Target.Kind), s.Target.Name)
	case c.Resource == "nodes" && len(s.Nodes) == 0:
		return unsupported("this recording holds %s/%s's controllers, not the nodes: none of its pods waits for one", strings.ToLower(s.Target.Kind), s.Target.Name)
	}
	return nil
}
