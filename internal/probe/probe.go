// Package probe answers the triage wizard's questions from what was read
// of a cluster: each probe named in triage.Probes reads a snapshot.Snapshot
// and returns a value with the evidence behind it, or says why it cannot
// tell (often a read that was forbidden, naming the permission to grant).
// It is pure — no I/O, no Kubernetes client — so every probe is tested on
// the JSON snapshots in testdata/, and a snapshot saved from one cluster
// triages the same anywhere.
package probe

import (
	"fmt"
	"sort"
	"strings"

	"casebook/internal/snapshot"
	"casebook/internal/triage"
)

// Evidence is one fact read from the cluster that supports an answer: the
// object, the field and its value, or the event or condition message.
type Evidence struct {
	Object  string `json:"object"`
	Field   string `json:"field,omitempty"`
	Value   string `json:"value,omitempty"`
	Message string `json:"message,omitempty"`
}

// String renders the evidence on one line for the CLI and the breadcrumbs.
func (e Evidence) String() string {
	var b strings.Builder
	b.WriteString(e.Object)
	if e.Field != "" {
		b.WriteString(" " + e.Field)
	}
	if e.Value != "" {
		b.WriteString(": " + e.Value)
	}
	if e.Message != "" {
		if e.Field != "" || e.Value != "" {
			b.WriteString(" -")
		} else {
			b.WriteString(":")
		}
		b.WriteString(" " + e.Message)
	}
	return b.String()
}

// Result is a probe's answer: Value is one of the probe's values in
// triage.Probes when Known; otherwise Note says why it could not tell
// (often a read that was forbidden, naming the permission).
type Result struct {
	Probe    string     `json:"probe"`
	Value    string     `json:"value,omitempty"`
	Known    bool       `json:"known"`
	Evidence []Evidence `json:"evidence,omitempty"`
	Note     string     `json:"note,omitempty"`
}

// probeFunc is one probe over a snapshot. cat may be nil; probes that read
// event text then fall back to their own reading of it.
type probeFunc func(s *snapshot.Snapshot, cat *triage.Catalog) Result

// probes implements the names published in triage.Probes. Names missing
// here (metrics and logs a snapshot does not carry) answer unknown.
var probes = map[string]probeFunc{
	"pod-symptom":          podSymptom,
	"scheduler-message":    schedulerMessage,
	"preemption-expected":  preemptionExpected,
	"gpu-allocatable":      gpuAllocatable,
	"gpu-driver":           gpuDriver,
	"gpu-toolkit":          gpuToolkit,
	"device-plugin":        devicePlugin,
	"gpu-resource-name":    gpuResourceName,
	"gpu-node-health":      gpuNodeHealth,
	"container-state":      containerState,
	"previous-log":         previousLog,
	"node-ready-condition": nodeReadyCondition,
	"probe-failure":        probeFailure,
}

// ProbeNames lists the probes a snapshot can answer, sorted.
func ProbeNames() []string {
	names := make([]string, 0, len(probes))
	for n := range probes {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Answer runs one probe. An unknown name is answered unknown, as the
// triage.Prober contract asks.
func Answer(s *snapshot.Snapshot, name string, cat *triage.Catalog) Result {
	p, ok := probes[name]
	if !ok {
		return Result{Probe: name, Note: "a cluster snapshot cannot tell; it holds no metrics or traces"}
	}
	r := p(s, cat)
	r.Probe = name
	if r.Known && !validValue(name, r.Value) {
		// A value the tree does not offer would be dropped by the walk;
		// say so instead of pretending to know.
		return Result{Probe: name, Note: fmt.Sprintf("probe returned %q, which triage does not list", r.Value)}
	}
	return r
}

func validValue(name, value string) bool {
	for _, spec := range triage.Probes {
		if spec.Name != name {
			continue
		}
		for _, v := range spec.Values {
			if v.Value == value {
				return true
			}
		}
		return false
	}
	return true // a probe triage does not list yet: let lint catch it
}

// Prober adapts a snapshot to triage.Prober. It remembers every result so
// the CLI and the UI can show the full evidence, which triage.Evidence
// (made for pasted lines) only carries as text.
type Prober struct {
	Snapshot *snapshot.Snapshot
	Catalog  *triage.Catalog
	Results  map[string]Result
}

// NewProber returns a Prober over s; cat is used to read event messages
// with the signals catalogue.
func NewProber(s *snapshot.Snapshot, cat *triage.Catalog) *Prober {
	return &Prober{Snapshot: s, Catalog: cat, Results: map[string]Result{}}
}

// Probe implements triage.Prober.
func (p *Prober) Probe(name string) triage.Answer {
	r, ok := p.Results[name]
	if !ok {
		r = Answer(p.Snapshot, name, p.Catalog)
		p.Results[name] = r
	}
	a := triage.Answer{Value: r.Value, Known: r.Known, Note: r.Note}
	for _, e := range r.Evidence {
		a.Evidence = append(a.Evidence, triage.Evidence{Signal: "cluster:" + name, Text: e.String()})
	}
	return a
}

var _ triage.Prober = (*Prober)(nil)

func known(value, note string, ev ...Evidence) Result {
	return Result{Value: value, Known: true, Note: note, Evidence: ev}
}

// unknown explains why a probe cannot tell. When one of the reads it needed
// failed, the note names the read and the permission, so the person sees
// what to grant rather than a bare question.
func unknown(s *snapshot.Snapshot, note string, reads ...string) Result {
	for _, what := range reads {
		if e, ok := s.ReadFailed(what); ok {
			return Result{Note: fmt.Sprintf("%s: could not %s (%s); needs %s", note, e.What, e.Kind, e.Permission)}
		}
	}
	return Result{Note: note}
}

func podRef(s *snapshot.Snapshot) string {
	if s.Pod == nil {
		return snapshot.ObjectRef{Kind: s.Target.Kind, Namespace: s.Target.Namespace, Name: s.Target.Name}.String()
	}
	return snapshot.ObjectRef{Kind: "Pod", Namespace: s.Pod.Namespace, Name: s.Pod.Name}.String()
}

func nodeRef(name string) string { return "node/" + name }
