// Package probe answers the triage wizard's questions from what was read
// of a cluster: each probe named in triage.Probes reads a snapshot.Snapshot
// and returns a value with the evidence behind it, or says why it cannot
// tell (often a read that was forbidden, naming the permission to grant).
// It is pure — no I/O, no Kubernetes client — so every probe is tested on
// the JSON snapshots in testdata/, and a snapshot saved from one cluster
// triages the same anywhere.
package probe

import (
	"sort"
	"strings"

	"casebook/internal/i18n"
	"casebook/internal/snapshot"
	"casebook/internal/triage"
)

// Evidence is one fact read from the cluster that supports an answer: the
// object, the field and its value, or the event or condition message.
// Value and Message are either copied from the cluster (kept exactly as it
// printed them) or written by Casebook to explain what was read; the
// latter also come as catalogue messages (ValueMsg, MessageMsg) so a
// Korean page shows them in Korean. Value and Message stay English.
type Evidence struct {
	Object     string   `json:"object"`
	Field      string   `json:"field,omitempty"`
	Value      string   `json:"value,omitempty"`
	Message    string   `json:"message,omitempty"`
	ValueMsg   i18n.Msg `json:"value_msg,omitzero"`
	MessageMsg i18n.Msg `json:"message_msg,omitzero"`
}

// explained returns e with a message Casebook wrote.
func (e Evidence) explained(m i18n.Msg) Evidence {
	e.Message, e.MessageMsg = m.English(), m
	return e
}

// valued returns e with a value Casebook wrote (a sum, a comparison).
func (e Evidence) valued(m i18n.Msg) Evidence {
	e.Value, e.ValueMsg = m.English(), m
	return e
}

// String renders the evidence on one line for the CLI and the breadcrumbs.
func (e Evidence) String() string { return e.In(i18n.Messages().Printer(i18n.EN)) }

// In renders the evidence on one line in a printer's language: what
// Casebook wrote is translated, what the cluster printed stays as it is.
func (e Evidence) In(p *i18n.Printer) string {
	value, message := e.Value, e.Message
	if !e.ValueMsg.IsZero() {
		value = p.Msg(e.ValueMsg)
	}
	if !e.MessageMsg.IsZero() {
		message = p.Msg(e.MessageMsg)
	}
	var b strings.Builder
	b.WriteString(e.Object)
	if e.Field != "" {
		b.WriteString(" " + e.Field)
	}
	if value != "" {
		b.WriteString(": " + value)
	}
	if message != "" {
		if e.Field != "" || e.Value != "" {
			b.WriteString(" -")
		} else {
			b.WriteString(":")
		}
		b.WriteString(" " + message)
	}
	return b.String()
}

// Result is a probe's answer: Value is one of the probe's values in
// triage.Probes when Known; otherwise Note says why it could not tell
// (often a read that was forbidden, naming the permission). Note is the
// English text; NoteMsg is the same note as a catalogue message, which
// pages render in their own language.
type Result struct {
	Probe    string     `json:"probe"`
	Value    string     `json:"value,omitempty"`
	Known    bool       `json:"known"`
	Evidence []Evidence `json:"evidence,omitempty"`
	Note     string     `json:"note,omitempty"`
	NoteMsg  i18n.Msg   `json:"note_msg,omitzero"`
}

// noted is a result that could not tell, saying why.
func noted(m i18n.Msg, ev ...Evidence) Result {
	return Result{Note: m.English(), NoteMsg: m, Evidence: ev}
}

// NoteIn is the note in a printer's language.
func (r Result) NoteIn(p *i18n.Printer) string {
	if r.NoteMsg.IsZero() {
		return r.Note
	}
	return p.Msg(r.NoteMsg)
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
	"workload-state":       workloadState,
	"traffic-path":         trafficPath,
	"api-refusal":          apiRefusal,
	"autoscaling-state":    autoscalingState,
	"storage-state":        storageState,
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
		r := noted(i18n.M("probe.no_metrics"))
		r.Probe = name
		return r
	}
	r := p(s, cat)
	r.Probe = name
	if r.Known && !validValue(name, r.Value) {
		// A value the tree does not offer would be dropped by the walk;
		// say so instead of pretending to know.
		out := noted(i18n.M("probe.invalid_value", "value", i18n.Quote(r.Value)))
		out.Probe = name
		return out
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
	// Printer renders the evidence lines Casebook wrote in a page's
	// language; nil means English (the CLI, MCP, drills).
	Printer *i18n.Printer
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
	a := triage.Answer{Value: r.Value, Known: r.Known, Note: r.Note, NoteMsg: r.NoteMsg}
	pr := p.Printer
	if pr == nil {
		pr = i18n.Messages().Printer(i18n.EN)
	}
	for _, e := range r.Evidence {
		a.Evidence = append(a.Evidence, triage.Evidence{Signal: "cluster:" + name, Text: e.In(pr)})
	}
	return a
}

var _ triage.Prober = (*Prober)(nil)

func known(value string, note i18n.Msg, ev ...Evidence) Result {
	return Result{Value: value, Known: true, Note: note.English(), NoteMsg: note, Evidence: ev}
}

// unknown explains why a probe cannot tell. When one of the reads it needed
// failed, the note names the read and the permission, so the person sees
// what to grant rather than a bare question.
func unknown(s *snapshot.Snapshot, note i18n.Msg, reads ...string) Result {
	for _, what := range reads {
		if e, ok := s.ReadFailed(what); ok {
			return noted(i18n.M("probe.read_failed", "note", note, "what", e.What, "kind", e.Kind, "permission", e.Permission.String()))
		}
	}
	return noted(note)
}

func podRef(s *snapshot.Snapshot) string {
	if s.Pod == nil {
		return snapshot.ObjectRef{Kind: s.Target.Kind, Namespace: s.Target.Namespace, Name: s.Target.Name}.String()
	}
	return snapshot.ObjectRef{Kind: "Pod", Namespace: s.Pod.Namespace, Name: s.Pod.Name}.String()
}

func nodeRef(name string) string { return "node/" + name }
