package triage

import (
	"fmt"
	"regexp"
	"slices"

	"casebook/internal/library"
)

// Routes are the route ids other parts of Casebook rely on (API clients,
// incident links, the write-up draft). Each must be an outcome of the trees;
// renaming one is a breaking change.
var Routes = []string{
	"pending/insufficient-resources",
	"pending/node-selector-mismatch",
	"pending/untolerated-taint",
	"pending/resource-quota",
	"pending/preemption-failed",
	"pending/dra-claim-unallocated",
	"pending/unschedulable-node",
	"pending/volume",
	"gpu/driver",
	"gpu/container-toolkit",
	"gpu/device-plugin",
	"gpu/operator-policy",
	"gpu/node-health",
	"memory/oomkilled",
	"memory/node-pressure-eviction",
	"memory/cuda-oom",
	"cpu/throttling",
	"llm/latency",
	"pod/crashloop",
	"pod/image-pull",
	"pod/probe-failure",
	"node/not-ready",
	"network/dns",
	"gpu/nccl-communication",
	"control-plane/api-overload",
	"pod/config-error",
	"workload/job-failed",
	"workload/rollout-stuck",
	"network/service-no-endpoints",
	"network/ingress-errors",
	"network/ip-exhaustion",
	"network/policy-blocked",
	"control-plane/webhook-failure",
	"security/certificate-expired",
	"security/rbac-forbidden",
	"storage/attach-mount",
	"node/disk-pressure",
	"autoscaling/hpa-not-scaling",
	"autoscaling/node-scale-up-failed",
}

var routePattern = regexp.MustCompile(`^[a-z0-9-]+/[a-z0-9-]+$`)

// Lint checks how the loaded trees and signals fit together and with the
// playbooks. anchors maps each playbook id to the anchors of its headings;
// outcomes and signals must point at one of them.
func (c *Catalog) Lint(anchors map[string][]string) []library.Problem {
	l := &linter{c: c, anchors: anchors}
	l.trees()
	l.graph()
	l.routes()
	l.signals()
	l.explanations()
	library.SortProblems(l.problems)
	return l.problems
}

type linter struct {
	c        *Catalog
	anchors  map[string][]string
	problems []library.Problem
}

func (l *linter) errorf(path string, line int, format string, args ...any) {
	l.problems = append(l.problems, library.Problem{Path: path, Line: line, Msg: fmt.Sprintf(format, args...)})
}

// trees checks each node on its own: ids, answers, probes, outcomes.
func (l *linter) trees() {
	seenTree := map[string]*Tree{}
	seenNode := map[string]*Node{}
	roots := 0
	for _, t := range l.c.Trees {
		if t.Root {
			roots++
		}
		if !idPattern.MatchString(t.ID) {
			l.errorf(t.Path, t.Line, "tree id %q: use lower-case words joined by hyphens", t.ID)
		}
		if prev, dup := seenTree[t.ID]; dup {
			l.errorf(t.Path, t.Line, "tree id %q already used in %s", t.ID, prev.Path)
		}
		seenTree[t.ID] = t
		if start, ok := l.c.nodes[t.Start]; !ok || start.Tree != t.ID {
			l.errorf(t.Path, t.Line, "tree %s: start %q is not a node of this tree", t.ID, t.Start)
		}
		for _, n := range t.Nodes {
			if prev, dup := seenNode[n.ID]; dup {
				l.errorf(n.Path, n.Line, "node id %q already used at %s:%d", n.ID, prev.Path, prev.Line)
				continue
			}
			seenNode[n.ID] = n
			if !idPattern.MatchString(n.ID) {
				l.errorf(n.Path, n.Line, "node id %q: use lower-case words joined by hyphens", n.ID)
			}
			if n.IsOutcome() {
				l.outcome(n)
			} else {
				l.question(n)
			}
		}
	}
	if roots != 1 && len(l.c.Trees) > 0 {
		l.errorf(Dir, 0, "want exactly one tree with root: true, found %d", roots)
	}
}

func (l *linter) question(n *Node) {
	if len(n.Choices) < 2 {
		l.errorf(n.Path, n.Line, "question %s: needs at least two answers", n.ID)
	}
	seen := map[string]bool{}
	for _, ch := range n.Choices {
		if seen[ch.ID] {
			l.errorf(choicePath(n, ch), ch.Line, "question %s: answer id %q given twice", n.ID, ch.ID)
		}
		seen[ch.ID] = true
		if ch.ID != "" && !idPattern.MatchString(ch.ID) {
			l.errorf(choicePath(n, ch), ch.Line, "question %s: answer id %q: use lower-case words joined by hyphens", n.ID, ch.ID)
		}
		if _, ok := l.c.nodes[ch.Next]; !ok && ch.Next != "" {
			l.errorf(choicePath(n, ch), ch.Line, "question %s: answer %s leads to unknown node %q", n.ID, ch.ID, ch.Next)
		}
	}
	if n.Probe == "" {
		return
	}
	spec, ok := probeSpec(n.Probe)
	if !ok {
		l.errorf(n.Path, n.Line, "question %s: unknown probe %q (list it in triage.Probes)", n.ID, n.Probe)
		return
	}
	var values []string
	for _, v := range spec.Values {
		values = append(values, v.Value)
	}
	for _, ch := range n.Choices {
		if ch.Layer != "" {
			continue // a later layer's answer is for people; the probe never gives it
		}
		if !slices.Contains(values, ch.ID) {
			l.errorf(choicePath(n, ch), ch.Line, "question %s: probe %s never answers %q", n.ID, n.Probe, ch.ID)
		}
	}
	for _, v := range values {
		if _, ok := n.Choice(v); !ok {
			l.errorf(n.Path, n.Line, "question %s: probe %s may answer %q, which is not an answer here", n.ID, n.Probe, v)
		}
	}
}

func (l *linter) outcome(n *Node) {
	o := n.Outcome
	if !routePattern.MatchString(o.Route) {
		l.errorf(n.Path, n.Line, "outcome %s: route %q is not area/name", n.ID, o.Route)
	}
	l.section(n.Path, n.Line, "outcome "+n.ID, o.Playbook, o.Section)
}

// section checks that a playbook exists and has the anchor.
func (l *linter) section(path string, line int, what, playbook, section string) {
	secs, ok := l.anchors[playbook]
	if !ok {
		l.errorf(path, line, "%s: unknown playbook %q", what, playbook)
		return
	}
	if !slices.Contains(secs, section) {
		l.errorf(path, line, "%s: playbook %s has no section #%s%s", what, playbook, section, nearest(section, secs))
	}
}

func probeSpec(name string) (ProbeSpec, bool) {
	for _, p := range Probes {
		if p.Name == name {
			return p, true
		}
	}
	return ProbeSpec{}, false
}

// choicePath is the file an answer is written in: its question's, or the
// extend.yaml of the layer that added it.
func choicePath(n *Node, ch Choice) string {
	if ch.Path != "" {
		return ch.Path
	}
	return n.Path
}
