package kubectl

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Command is one read-only kubectl command, parsed. Its Key is the
// canonical text ("get pods -n team-a -o wide"), short enough to keep a
// whole investigation in a URL.
type Command struct {
	Verb          string // get, describe, logs
	Resource      string // canonical plural: pods, nodes, events, ...
	Name          string
	Namespace     string // for namespaced resources; filled with the default when not given
	AllNamespaces bool
	Wide          bool
	ShowLabels    bool
	LabelColumns  []string
	Container     string
	Previous      bool
}

// Key is the command's canonical text without "kubectl".
func (c Command) Key() string {
	parts := []string{c.Verb}
	switch {
	case c.Verb == "logs":
	case c.Name != "":
		// kubectl describe pod NAME, as people type it.
		parts = append(parts, singular(c.Resource))
	default:
		parts = append(parts, c.Resource)
	}
	if c.Name != "" {
		parts = append(parts, c.Name)
	}
	switch {
	case c.AllNamespaces:
		parts = append(parts, "-A")
	case c.Namespace != "" && namespaced(c.Resource):
		parts = append(parts, "-n", c.Namespace)
	}
	if c.Container != "" {
		parts = append(parts, "-c", c.Container)
	}
	if c.Previous {
		parts = append(parts, "--previous")
	}
	if c.Wide {
		parts = append(parts, "-o", "wide")
	}
	if c.ShowLabels {
		parts = append(parts, "--show-labels")
	}
	if len(c.LabelColumns) > 0 {
		parts = append(parts, "-L", strings.Join(c.LabelColumns, ","))
	}
	return strings.Join(parts, " ")
}

// String is the command as a person types it.
func (c Command) String() string { return "kubectl " + c.Key() }

// ErrorKind says why a command was refused, so each door can word it.
type ErrorKind int

// Kinds of Error.
const (
	// Usage is kubectl's own complaint (unknown resource, missing name);
	// Msg is what kubectl prints.
	Usage ErrorKind = iota + 1
	// ReadOnly is a command that would change the cluster or needs a
	// running container (delete, apply, exec, cordon, ...).
	ReadOnly
	// Unsupported is a read the recording cannot answer (-o yaml, top,
	// a resource Casebook does not record).
	Unsupported
)

// Error is a command that cannot run on a recording.
type Error struct {
	Kind ErrorKind
	Verb string
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

func usage(format string, args ...any) error {
	return &Error{Kind: Usage, Msg: fmt.Sprintf(format, args...)}
}

func unsupported(format string, args ...any) error {
	return &Error{Kind: Unsupported, Msg: fmt.Sprintf(format, args...)}
}

// writeVerbs change the cluster or need a live container; a drill refuses
// them and asks the person to write the change into the recovery
// direction instead.
var writeVerbs = []string{"apply", "create", "delete", "edit", "patch", "replace", "scale", "autoscale", "label",
	"annotate", "taint", "cordon", "uncordon", "drain", "rollout", "set", "expose", "run", "exec", "attach", "cp",
	"port-forward", "proxy", "debug", "certificate"}

// resourceNames maps every spelling kubectl accepts (short names, singular,
// plural, group-qualified) to the canonical plural.
var resourceNames = map[string]string{}

func init() {
	for canon, aliases := range map[string][]string{
		"pods":                   {"po", "pod"},
		"nodes":                  {"no", "node"},
		"events":                 {"ev", "event", "events.events.k8s.io"},
		"resourcequotas":         {"quota", "resourcequota"},
		"persistentvolumeclaims": {"pvc", "persistentvolumeclaim"},
		"storageclasses":         {"sc", "storageclass", "storageclasses.storage.k8s.io"},
		"resourceclaims":         {"resourceclaim", "resourceclaims.resource.k8s.io"},
		"deviceclasses":          {"deviceclass", "deviceclasses.resource.k8s.io"},
		"deployments":            {"deploy", "deployment", "deployments.apps"},
		"replicasets":            {"rs", "replicaset", "replicasets.apps"},
		"statefulsets":           {"sts", "statefulset", "statefulsets.apps"},
		"jobs":                   {"job", "jobs.batch"},
		"daemonsets":             {"ds", "daemonset", "daemonsets.apps"},
		"priorityclasses":        {"pc", "priorityclass", "priorityclasses.scheduling.k8s.io"},
		"clusterpolicies":        {"clusterpolicy", "clusterpolicies.nvidia.com"},
	} {
		resourceNames[canon] = canon
		for _, a := range aliases {
			resourceNames[a] = canon
		}
	}
}

func namespaced(resource string) bool {
	switch resource {
	case "nodes", "storageclasses", "deviceclasses", "priorityclasses", "clusterpolicies":
		return false
	}
	return true
}

// Parse reads a command as a person types it, with or without "kubectl",
// flags in any order. ns is the namespace of the current context (the
// drill's), used when the command names none.
func Parse(line, ns string) (Command, error) {
	args, err := split(line)
	if err != nil {
		return Command{}, usage("error: %v", err)
	}
	if len(args) > 0 && (args[0] == "kubectl" || args[0] == "k") {
		args = args[1:]
	}
	// Global flags may come before the verb (kubectl -n team-a get pods):
	// move them after it.
	var lead []string
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		f := args[0]
		lead = append(lead, f)
		args = args[1:]
		if (f == "-n" || f == "--namespace" || f == "--context" || f == "--kubeconfig") && len(args) > 0 {
			lead = append(lead, args[0])
			args = args[1:]
		}
	}
	if len(args) == 0 {
		return Command{}, usage("error: type a kubectl command, for example: kubectl get pods")
	}
	args = append(args[:1:1], append(lead, args[1:]...)...)
	verb := args[0]
	switch {
	case slices.Contains(writeVerbs, verb):
		return Command{}, &Error{Kind: ReadOnly, Verb: verb, Msg: fmt.Sprintf("kubectl %s would change the cluster or needs a running container; this drill is read-only", verb)}
	case verb == "top":
		return Command{}, &Error{Kind: Unsupported, Verb: verb, Msg: "error: Metrics API not available"}
	case verb == "events":
		// kubectl events is get events with its own sort order.
		args = append([]string{"get", "events"}, args[1:]...)
		verb = "get"
	case verb != "get" && verb != "describe" && verb != "logs":
		return Command{}, usage("error: unknown command %q for \"kubectl\"", verb)
	}
	c := Command{Verb: verb}
	var pos []string
	for i := 1; i < len(args); i++ {
		a := args[i]
		val := func() (string, error) {
			if k, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(k, "-") {
				return v, nil
			}
			if i+1 >= len(args) {
				return "", usage("error: flag needs an argument: %s", a)
			}
			i++
			return args[i], nil
		}
		flag, _, _ := strings.Cut(a, "=")
		switch {
		case flag == "-n" || flag == "--namespace":
			v, err := val()
			if err != nil {
				return Command{}, err
			}
			c.Namespace = v
		case strings.HasPrefix(a, "-n") && len(a) > 2 && !strings.HasPrefix(a, "--"):
			c.Namespace = a[2:]
		case flag == "-A" || flag == "--all-namespaces":
			c.AllNamespaces = true
		case flag == "-o" || flag == "--output":
			v, err := val()
			if err != nil {
				return Command{}, err
			}
			if v != "wide" {
				return Command{}, unsupported("-o %s: a drill renders tables and describe output; the recording keeps the fields triage reads, not whole objects", v)
			}
			c.Wide = true
		case flag == "-owide":
			c.Wide = true
		case flag == "--show-labels":
			c.ShowLabels = true
		case flag == "-L" || flag == "--label-columns":
			v, err := val()
			if err != nil {
				return Command{}, err
			}
			for _, k := range strings.Split(v, ",") {
				if k = strings.TrimSpace(k); k != "" {
					c.LabelColumns = append(c.LabelColumns, k)
				}
			}
		case flag == "-c" || flag == "--container":
			v, err := val()
			if err != nil {
				return Command{}, err
			}
			c.Container = v
		case flag == "-p" || flag == "--previous":
			c.Previous = a == flag || strings.HasSuffix(a, "=true")
		case flag == "--tail" || flag == "--since" || flag == "--sort-by" || flag == "--field-selector" || flag == "--for" || flag == "--types":
			// Accepted for habit's sake: the recording is small and
			// already sorted by time.
			if !strings.Contains(a, "=") {
				if _, err := val(); err != nil {
					return Command{}, err
				}
			}
		case flag == "--context" || flag == "--kubeconfig":
			// The drill has one cluster.
			if !strings.Contains(a, "=") {
				if _, err := val(); err != nil {
					return Command{}, err
				}
			}
		case flag == "-w" || flag == "--watch" || flag == "-f" || flag == "--follow" || flag == "--timestamps" || flag == "--no-headers" || flag == "--show-events" || flag == "--all-containers":
			// Harmless on a recording: there is nothing more to wait for.
		case strings.HasPrefix(a, "-"):
			return Command{}, usage("error: unknown flag: %s", flag)
		default:
			pos = append(pos, a)
		}
	}
	if c.Verb == "logs" {
		return parseLogs(c, pos, ns)
	}
	if len(pos) == 0 {
		return Command{}, usage("error: you must specify the type of resource to %s. Use \"kubectl api-resources\" for a complete list of supported resources.", c.Verb)
	}
	res := pos[0]
	if kind, name, ok := strings.Cut(res, "/"); ok {
		res = kind
		pos = append([]string{kind, name}, pos[1:]...)
	}
	canon, ok := resourceNames[strings.ToLower(res)]
	if !ok {
		if strings.Contains(res, ",") {
			return Command{}, unsupported("several resource types at once (%s): ask for one type at a time", res)
		}
		return Command{}, usage("error: the server doesn't have a resource type %q", res)
	}
	c.Resource = canon
	if len(pos) > 2 {
		return Command{}, unsupported("one name at a time: %s", strings.Join(pos[1:], " "))
	}
	if len(pos) == 2 {
		c.Name = pos[1]
	}
	if c.Verb == "describe" && c.Name == "" && c.Resource != "resourcequotas" && c.Resource != "nodes" {
		return Command{}, unsupported("name the %s to describe (kubectl describe %s NAME)", singular(c.Resource), singular(c.Resource))
	}
	if c.Verb == "describe" && c.Name == "" && c.Resource == "nodes" {
		return Command{}, unsupported("name the node to describe (kubectl describe node NAME); kubectl get nodes lists them")
	}
	if !namespaced(c.Resource) {
		c.Namespace, c.AllNamespaces = "", false
	} else if c.Namespace == "" && !c.AllNamespaces {
		c.Namespace = ns
	}
	if c.AllNamespaces && c.Name != "" {
		return Command{}, usage("error: a resource cannot be retrieved by name across all namespaces")
	}
	if c.Wide && c.Verb != "get" || (c.ShowLabels || len(c.LabelColumns) > 0) && c.Verb != "get" {
		return Command{}, usage("error: unknown flag for kubectl %s", c.Verb)
	}
	return c, nil
}

func parseLogs(c Command, pos []string, ns string) (Command, error) {
	if len(pos) == 0 {
		return Command{}, usage("error: expected 'logs [-f] [-p] (POD | TYPE/NAME) [-c CONTAINER]'.\nPOD or TYPE/NAME is a required argument for the logs command")
	}
	name := pos[0]
	if kind, n, ok := strings.Cut(name, "/"); ok {
		if resourceNames[strings.ToLower(kind)] != "pods" {
			return Command{}, unsupported("logs of a %s: name one of its pods (kubectl get pods lists them)", kind)
		}
		name = n
	}
	if len(pos) == 2 && c.Container == "" {
		c.Container = pos[1]
	} else if len(pos) > 1 {
		return Command{}, usage("error: expected 'logs [-f] [-p] (POD | TYPE/NAME) [-c CONTAINER]'")
	}
	c.Resource, c.Name = "pods", name
	if c.Namespace == "" {
		c.Namespace = ns
	}
	c.AllNamespaces = false
	return c, nil
}

func singular(resource string) string {
	switch resource {
	case "storageclasses", "deviceclasses", "priorityclasses":
		return strings.TrimSuffix(resource, "es")
	case "clusterpolicies":
		return "clusterpolicy"
	}
	return strings.TrimSuffix(resource, "s")
}

// split cuts a command line into words as a shell would for the simple
// cases people type: spaces separate, single and double quotes group.
func split(line string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, errors.New("unterminated quote")
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, nil
}
