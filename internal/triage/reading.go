package triage

import (
	"regexp"
	"sort"
)

// SchedulerReading is a scheduler message with several reasons read as one
// diagnosis: each reason with the nodes it counts, in the order the default
// scheduler's filters check a node. The scheduler stops at a node's first
// failing filter, so Reasons[0] acts first: its nodes were turned away before
// the later checks looked at them, and fixing only a later reason leaves
// them turned away.
type SchedulerReading struct {
	Total   int               `json:"total"`
	Reasons []SchedulerReason `json:"reasons"`
}

// SchedulerReason is one "<count> <reason>" of the message, with the route
// it implies (empty when no signal names it) and the scheduler plugin that
// reports it.
type SchedulerReason struct {
	Count  int    `json:"count"`
	Reason string `json:"reason"`
	Route  string `json:"route,omitempty"`
	Filter string `json:"filter,omitempty"`
}

// filterOrder is the default profile's Filter plugins in the order they run
// (kube-scheduler's default plugin set), each with the reasons it reports.
var filterOrder = []struct {
	name string
	re   *regexp.Regexp
}{
	{"NodeUnschedulable", regexp.MustCompile(`(?i)were unschedulable|unschedulable:`)},
	{"NodeName", regexp.MustCompile(`(?i)didn't match the requested node name`)},
	{"TaintToleration", regexp.MustCompile(`(?i)taint`)},
	{"NodeAffinity", regexp.MustCompile(`(?i)node affinity|node selector|affinity/selector`)},
	{"NodePorts", regexp.MustCompile(`(?i)free ports`)},
	{"NodeResourcesFit", regexp.MustCompile(`(?i)^insufficient |too many pods`)},
	{"VolumeRestrictions", regexp.MustCompile(`(?i)disk conflict|readwriteoncepod`)},
	{"NodeVolumeLimits", regexp.MustCompile(`(?i)max volume count|exceed max volume`)},
	{"VolumeBinding", regexp.MustCompile(`(?i)persistentvolumeclaim|volume node affinity|bind volumes|storageclass`)},
	{"VolumeZone", regexp.MustCompile(`(?i)volume zone`)},
	{"PodTopologySpread", regexp.MustCompile(`(?i)topology spread`)},
	{"InterPodAffinity", regexp.MustCompile(`(?i)pod affinity|pod anti-affinity|affinity rules`)},
	{"DynamicResources", regexp.MustCompile(`(?i)resourceclaim|resource claim|deviceclass`)},
}

// filterOf returns the plugin that reports reason and its place in the
// order; unknown reasons (other schedulers) come last.
func filterOf(reason string) (string, int) {
	for i, f := range filterOrder {
		if f.re.MatchString(reason) {
			return f.name, i
		}
	}
	return "", len(filterOrder)
}

// readScheduler builds the reading of the paste's last scheduler message
// with two or more counted reasons (describe lists events oldest first, so
// the last is the current state); nil when there is none.
func (c *Catalog) readScheduler(msgs []schedMessage) *SchedulerReading {
	for k := len(msgs) - 1; k >= 0; k-- {
		m := msgs[k]
		var out []SchedulerReason
		for _, r := range m.Reasons {
			if r.Preemption || r.Count == 0 {
				continue
			}
			sr := SchedulerReason{Count: r.Count, Reason: r.Text}
			sr.Filter, _ = filterOf(r.Text)
			for _, s := range c.Signals {
				if s.Scope == ScopeScheduler && !s.Context && s.find(r.Text, lowerASCII(r.Text)) >= 0 {
					sr.Route = s.Route
					break
				}
			}
			out = append(out, sr)
		}
		if len(out) < 2 {
			continue
		}
		sort.SliceStable(out, func(i, j int) bool {
			_, a := filterOf(out[i].Reason)
			_, b := filterOf(out[j].Reason)
			return a < b
		})
		return &SchedulerReading{Total: m.Total, Reasons: out}
	}
	return nil
}

// Names reports whether one of the reading's reasons implies route.
func (r *SchedulerReading) Names(route string) bool {
	if r == nil {
		return false
	}
	for _, x := range r.Reasons {
		if x.Route == route {
			return true
		}
	}
	return false
}
