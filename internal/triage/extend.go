package triage

import (
	"fmt"

	"casebook/internal/library"
)

// A team's layer extends the trees of the layers below it in
// triage/extend.yaml:
//
//	answers:            # a new answer to an existing question
//	  - question: root-symptom
//	    id: acme-gateway
//	    label: Our inference gateway answers 503
//	    label_ko: ...
//	    next: acme-gateway-start     # a node of the team's own tree
//	outcomes:           # the team's own notes on an existing route
//	  - route: gpu/driver
//	    note: Driver pins live in infra/gpu/versions.yaml; page #gpu-infra.
//	    note_ko: ...
//	    commands: [...]
//	    mitigation: [...]
//	    verify: [...]
//
// It cannot change or remove what the lower layers say: a team adds to the
// public wizard, and the public wizard's updates still reach the team.

// Note is a later layer's addition to an outcome: shown beside the
// outcome's own text, under the layer's name.
type Note struct {
	Layer        string   `json:"layer"`
	Text         string   `json:"note,omitempty"`
	TextKo       string   `json:"note_ko,omitempty"`
	Commands     []string `json:"commands,omitempty"`
	Mitigation   []string `json:"mitigation,omitempty"`
	MitigationKo []string `json:"mitigation_ko,omitempty"`
	Verify       []string `json:"verify,omitempty"`
	VerifyKo     []string `json:"verify_ko,omitempty"`
	Path         string   `json:"-"`
	Line         int      `json:"-"`
}

// extension is one layer's extend.yaml.
type extension struct {
	path    string
	layer   string
	answers []extraAnswer
	notes   []routeNote
}

type extraAnswer struct {
	question string
	choice   Choice
}

type routeNote struct {
	route string
	note  Note
}

func (d *decoder) extension(data []byte, layer string) *extension {
	root := d.parse(data)
	if root == nil {
		return nil
	}
	m := d.fields(root, "extend.yaml", "answers", "outcomes")
	e := &extension{path: d.path, layer: layer}
	for _, a := range d.seq(m, "answers", false, "extend.yaml", root.Line) {
		am := d.fields(a, "added answer", "question", "id", "label", "label_ko", "next")
		e.answers = append(e.answers, extraAnswer{
			question: d.str(am, "question", true, "added answer", a.Line),
			choice: Choice{
				ID:      d.str(am, "id", true, "added answer", a.Line),
				Label:   d.str(am, "label", true, "added answer", a.Line),
				LabelKo: d.str(am, "label_ko", false, "added answer", a.Line),
				Next:    d.str(am, "next", true, "added answer", a.Line),
				Layer:   layer,
				Line:    a.Line,
				Path:    d.path,
			},
		})
	}
	for _, o := range d.seq(m, "outcomes", false, "extend.yaml", root.Line) {
		what := "outcome note"
		om := d.fields(o, what, "route", "note", "note_ko", "commands", "mitigation", "mitigation_ko", "verify", "verify_ko")
		n := routeNote{route: d.str(om, "route", true, what, o.Line), note: Note{
			Layer:        layer,
			Text:         d.str(om, "note", false, what, o.Line),
			TextKo:       d.str(om, "note_ko", false, what, o.Line),
			Commands:     d.strs(om, "commands", false, what, o.Line),
			Mitigation:   d.strs(om, "mitigation", false, what, o.Line),
			MitigationKo: d.strs(om, "mitigation_ko", false, what, o.Line),
			Verify:       d.strs(om, "verify", false, what, o.Line),
			VerifyKo:     d.strs(om, "verify_ko", false, what, o.Line),
			Path:         d.path,
			Line:         o.Line,
		}}
		if n.note.Text == "" && len(n.note.Commands) == 0 && len(n.note.Mitigation) == 0 && len(n.note.Verify) == 0 {
			d.errorf(o.Line, "outcome note for %s: give a note, commands, mitigation or verify", n.route)
		}
		if n.note.MitigationKo != nil && len(n.note.MitigationKo) != len(n.note.Mitigation) {
			d.errorf(o.Line, "outcome note for %s: mitigation_ko has %d items, mitigation %d", n.route, len(n.note.MitigationKo), len(n.note.Mitigation))
		}
		if n.note.VerifyKo != nil && len(n.note.VerifyKo) != len(n.note.Verify) {
			d.errorf(o.Line, "outcome note for %s: verify_ko has %d items, verify %d", n.route, len(n.note.VerifyKo), len(n.note.Verify))
		}
		e.notes = append(e.notes, n)
	}
	return e
}

// extend applies a layer's additions to the loaded trees.
func (c *Catalog) extend(e *extension) []library.Problem {
	var problems []library.Problem
	errorf := func(line int, format string, args ...any) {
		problems = append(problems, library.Problem{Path: e.path, Line: line, Layer: e.layer, Msg: fmt.Sprintf(format, args...)})
	}
	for _, a := range e.answers {
		n, ok := c.nodes[a.question]
		switch {
		case a.question == "" || a.choice.ID == "":
			continue // reported by the decoder
		case !ok:
			errorf(a.choice.Line, "added answer %s: no question %q in any layer", a.choice.ID, a.question)
			continue
		case n.IsOutcome():
			errorf(a.choice.Line, "added answer %s: %s is an outcome, not a question", a.choice.ID, a.question)
			continue
		}
		if prev, dup := n.Choice(a.choice.ID); dup {
			errorf(a.choice.Line, "added answer %s: question %s already has that answer (%s:%d)", a.choice.ID, n.ID, n.Path, prev.Line)
			continue
		}
		n.Choices = append(n.Choices, a.choice)
	}
	for _, rn := range e.notes {
		found := false
		for _, t := range c.Trees {
			for _, n := range t.Nodes {
				if n.Outcome != nil && n.Outcome.Route == rn.route {
					n.Outcome.Notes = append(n.Outcome.Notes, rn.note)
					found = true
				}
			}
		}
		if !found && rn.route != "" {
			errorf(rn.note.Line, "outcome note: route %q has no outcome in any layer", rn.route)
		}
	}
	return problems
}

// layerName is the name of a layer's layer.yaml ("public" without one).
func layerName(l library.Layer) string {
	info, _, err := library.ReadLayerInfo(l.FS)
	if err != nil || info.Name == "" {
		return library.PublicLayer
	}
	return info.Name
}
