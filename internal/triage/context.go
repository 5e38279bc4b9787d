package triage

import (
	"regexp"
	"strings"
)

// Context is what a paste (or a link carrying it) names about the failing
// workload: the pod, its namespace, its node and its first container. The
// commands of a result are filled with it, so the engineer copies
// "kubectl describe pod vllm-0 -n llm-serving" instead of editing
// "<pod> -n <namespace>" at 3 a.m. Every field is a valid Kubernetes name or
// empty: a name that is not one never reaches a command line.
type Context struct {
	Pod       string `json:"pod,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Node      string `json:"node,omitempty"`
	Container string `json:"container,omitempty"`
}

// objectName is a DNS-1123 subdomain, which every pod, namespace, node and
// container name is; it holds no character a shell treats specially.
var objectName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$`)

// NewContext keeps the fields that are valid names; nil when none is.
func NewContext(pod, namespace, node, container string) *Context {
	c := Context{Pod: valid(pod), Namespace: valid(namespace), Node: valid(node), Container: valid(container)}
	if c == (Context{}) {
		return nil
	}
	return &c
}

func valid(name string) string {
	if objectName.MatchString(name) {
		return name
	}
	return ""
}

// Fill replaces the placeholders the playbooks and trees write
// (<pod>, <namespace>, <node>, <gpu-node>, <container>) with what is known;
// unknown ones stay for the reader to fill.
func (c *Context) Fill(cmd string) string {
	if c == nil || !strings.Contains(cmd, "<") {
		return cmd
	}
	for _, r := range [][2]string{
		{"<pod>", c.Pod}, {"<namespace>", c.Namespace}, {"<node>", c.Node},
		{"<gpu-node>", c.Node}, {"<container>", c.Container},
	} {
		if r[1] != "" {
			cmd = strings.ReplaceAll(cmd, r[0], r[1])
		}
	}
	return cmd
}

var (
	describeField = regexp.MustCompile(`^(Name|Namespace|Node):\s+(\S+)`)
	containerName = regexp.MustCompile(`^  ([a-z0-9][-a-z0-9]*):\s*$`)
	// The OBJECT column of kubectl get events, and the pod="ns/name" of
	// kubelet's structured logs.
	eventObject = regexp.MustCompile(`\bpod/([a-z0-9][-a-z0-9.]*[a-z0-9])\b`)
	kubeletPod  = regexp.MustCompile(`\bpod="([a-z0-9][-a-z0-9]*)/([a-z0-9][-a-z0-9.]*)"`)
)

// ReadContext finds the workload a paste is about: kubectl describe pod's
// header (Name, Namespace, Node: name/IP) and first container, else the
// object of an events table or a kubelet log line. nil when it names none.
func ReadContext(lines []string) *Context {
	var pod, ns, node, container string
	inContainers := false
	for _, l := range lines {
		if m := describeField.FindStringSubmatch(l); m != nil {
			switch m[1] {
			case "Name":
				if pod == "" {
					pod = m[2]
				}
			case "Namespace":
				if ns == "" {
					ns = m[2]
				}
			case "Node":
				if node == "" && m[2] != "<none>" {
					node, _, _ = strings.Cut(m[2], "/")
				}
			}
			continue
		}
		switch {
		case strings.HasPrefix(l, "Containers:"):
			inContainers = true
		case inContainers && container == "":
			if m := containerName.FindStringSubmatch(l); m != nil {
				container = m[1]
			}
		}
	}
	if ns == "" {
		// Name: without Namespace: is a cluster-scoped object (a node).
		pod = ""
	}
	if pod == "" {
		for _, l := range lines {
			if m := kubeletPod.FindStringSubmatch(l); m != nil {
				ns, pod = m[1], m[2]
				break
			}
			if m := eventObject.FindStringSubmatch(l); m != nil {
				pod = m[1]
				break
			}
		}
	}
	return NewContext(pod, ns, node, container)
}
