package triage

import (
	"io/fs"
	"path"
	"sort"

	"gopkg.in/yaml.v3"

	"casebook/internal/library"
)

// Dir is the folder of the library that holds the trees and the signals
// catalogue; SignalsFile is the catalogue's name inside it. Every other
// *.yaml file in Dir is a tree.
const (
	Dir         = "triage"
	SignalsFile = "signals.yaml"
	// ExtendFile is a later layer's additions to the trees below it.
	ExtendFile = "extend.yaml"
)

// Load reads the trees and the signals catalogue from a library root. A file
// with problems is reported as path:line problems; what could be read from
// it and from the other files is still loaded, so one typo does not take the
// wizard down. Load checks each file on its own; Lint checks how they fit
// together.
func Load(fsys fs.FS) (*Catalog, []library.Problem) {
	return LoadLayers([]library.Layer{{FS: fsys}})
}

// LoadLayers reads the trees, signals and extensions of every layer of a
// library, bottom first. A later layer adds trees and signals (their ids
// are unique across layers: Lint names both files of a duplicate), and in
// ExtendFile adds answers to earlier layers' questions and its own notes to
// their outcomes.
func LoadLayers(layers []library.Layer) (*Catalog, []library.Problem) {
	c := &Catalog{}
	var problems []library.Problem
	var exts []*extension
	for _, l := range layers {
		names, err := fs.Glob(l.FS, Dir+"/*.yaml")
		if err != nil {
			problems = append(problems, library.Problem{Path: l.Show(Dir), Msg: err.Error()})
		}
		sort.Strings(names)
		layer := layerName(l)
		for _, name := range names {
			shown := l.Show(name)
			data, err := fs.ReadFile(l.FS, name)
			if err != nil {
				problems = append(problems, library.Problem{Path: shown, Msg: library.ReadReason(err)})
				continue
			}
			if err := library.CheckYAML(data); err != nil {
				problems = append(problems, library.BoundProblem(shown, err))
				continue
			}
			d := &decoder{path: shown}
			switch path.Base(name) {
			case SignalsFile:
				if c.signalsPath == "" {
					c.signalsPath = shown
				}
				sigs, ex := d.signals(data)
				c.Signals = append(c.Signals, sigs...)
				c.Explanations = append(c.Explanations, ex...)
			case ExtendFile:
				if e := d.extension(data, layer); e != nil {
					exts = append(exts, e)
				}
			default:
				if t := d.tree(data); t != nil {
					c.Trees = append(c.Trees, t)
				}
			}
			problems = append(problems, d.problems...)
		}
	}
	c.index()
	for _, e := range exts {
		problems = append(problems, c.extend(e)...)
	}
	library.SortProblems(problems)
	return c, problems
}

func (d *decoder) tree(data []byte) *Tree {
	root := d.parse(data)
	if root == nil {
		return nil
	}
	m := d.fields(root, "tree", "id", "title", "title_ko", "summary", "summary_ko", "root", "start", "nodes")
	t := &Tree{
		ID:        d.str(m, "id", true, "tree", root.Line),
		Title:     d.str(m, "title", true, "tree", root.Line),
		Summary:   d.str(m, "summary", false, "tree", root.Line),
		TitleKo:   d.str(m, "title_ko", false, "tree", root.Line),
		SummaryKo: d.str(m, "summary_ko", false, "tree", root.Line),
		Root:      d.boolean(m, "root", "tree"),
		Start:     d.str(m, "start", true, "tree", root.Line),
		Path:      d.path,
		Line:      root.Line,
	}
	if t.ID == "" {
		return nil
	}
	for _, item := range d.seq(m, "nodes", true, "tree", root.Line) {
		if n := d.node(item, t.ID); n != nil {
			t.Nodes = append(t.Nodes, n)
		}
	}
	return t
}

func (d *decoder) node(item *yaml.Node, tree string) *Node {
	m := d.fields(item, "node", "id", "question", "question_ko", "help", "help_ko", "command", "probe", "answers", "outcome")
	n := &Node{
		ID:         d.str(m, "id", true, "node", item.Line),
		Tree:       tree,
		Question:   d.str(m, "question", false, "node", item.Line),
		Help:       d.str(m, "help", false, "node", item.Line),
		QuestionKo: d.str(m, "question_ko", false, "node", item.Line),
		HelpKo:     d.str(m, "help_ko", false, "node", item.Line),
		Command:    d.str(m, "command", false, "node", item.Line),
		Probe:      d.str(m, "probe", false, "node", item.Line),
		Path:       d.path,
		Line:       item.Line,
	}
	if n.ID == "" {
		return nil
	}
	what := "node " + n.ID
	out := m["outcome"]
	switch {
	case out != nil:
		if n.Question != "" {
			// Kept as an outcome, so the answers that lead here do not
			// also report a missing node.
			d.errorf(item.Line, "%s: has both a question and an outcome", what)
			n.Question, n.Command = "", ""
		}
		n.Outcome = d.outcome(out, what)
		if m["answers"] != nil || n.Help != "" || n.HelpKo != "" || n.QuestionKo != "" || n.Probe != "" || n.Command != "" {
			d.errorf(item.Line, "%s: an outcome has no answers, help or probe", what)
		}
	case n.Question != "":
		for _, a := range d.seq(m, "answers", true, what, item.Line) {
			am := d.fields(a, what+" answer", "id", "label", "label_ko", "next")
			n.Choices = append(n.Choices, Choice{
				ID:      d.str(am, "id", true, what+" answer", a.Line),
				Label:   d.str(am, "label", true, what+" answer", a.Line),
				LabelKo: d.str(am, "label_ko", false, what+" answer", a.Line),
				Next:    d.str(am, "next", true, what+" answer", a.Line),
				Line:    a.Line,
			})
		}
	default:
		d.errorf(item.Line, "%s: needs a question or an outcome", what)
		return nil
	}
	return n
}

func (d *decoder) outcome(v *yaml.Node, what string) *Outcome {
	what += " outcome"
	m := d.fields(v, what, "route", "playbook", "section", "diagnosis", "diagnosis_ko", "commands",
		"mitigation", "mitigation_ko", "verify", "verify_ko")
	o := &Outcome{
		Route:        d.str(m, "route", true, what, v.Line),
		Playbook:     d.str(m, "playbook", true, what, v.Line),
		Section:      d.str(m, "section", true, what, v.Line),
		Diagnosis:    d.str(m, "diagnosis", true, what, v.Line),
		Commands:     d.strs(m, "commands", true, what, v.Line),
		Mitigation:   d.strs(m, "mitigation", true, what, v.Line),
		Verify:       d.strs(m, "verify", true, what, v.Line),
		DiagnosisKo:  d.str(m, "diagnosis_ko", false, what, v.Line),
		MitigationKo: d.strs(m, "mitigation_ko", false, what, v.Line),
		VerifyKo:     d.strs(m, "verify_ko", false, what, v.Line),
	}
	// A Korean list is read item for item beside the English one, so it
	// must have as many items.
	if o.MitigationKo != nil && len(o.MitigationKo) != len(o.Mitigation) {
		d.errorf(v.Line, "%s: mitigation_ko has %d items, mitigation %d", what, len(o.MitigationKo), len(o.Mitigation))
	}
	if o.VerifyKo != nil && len(o.VerifyKo) != len(o.Verify) {
		d.errorf(v.Line, "%s: verify_ko has %d items, verify %d", what, len(o.VerifyKo), len(o.Verify))
	}
	return o
}
