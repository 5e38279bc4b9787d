package drill

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"casebook/internal/library"
)

// file is a drill file as written; yaml.v3 refuses unknown fields.
type file struct {
	ID         string       `yaml:"id"`
	Title      string       `yaml:"title"`
	TitleKo    string       `yaml:"title_ko"`
	Difficulty string       `yaml:"difficulty"`
	Incidents  []string     `yaml:"incidents"`
	Route      string       `yaml:"route"`
	Start      startFile    `yaml:"start"`
	Answers    []answerFile `yaml:"answers"`
	Evidence   []evFile     `yaml:"evidence"`
	Decoy      *decoyFile   `yaml:"decoy"`
	Hints      []textFile   `yaml:"hints"`
	Recovery   string       `yaml:"recovery"`
	RecoveryKo string       `yaml:"recovery_ko"`
	Teaches    string       `yaml:"teaches"`
	TeachesKo  string       `yaml:"teaches_ko"`
}

type startFile struct {
	Kind   string `yaml:"kind"`
	From   string `yaml:"from"`
	Text   string `yaml:"text"`
	TextKo string `yaml:"text_ko"`
}

type answerFile struct {
	Question string `yaml:"question"`
	Answer   string `yaml:"answer"`
	Command  string `yaml:"command"`
	Line     string `yaml:"line"`
	Why      string `yaml:"why"`
	WhyKo    string `yaml:"why_ko"`
}

type evFile struct {
	Command string `yaml:"command"`
	Line    string `yaml:"line"`
	Why     string `yaml:"why"`
	WhyKo   string `yaml:"why_ko"`
}

type decoyFile struct {
	Route    string   `yaml:"route"`
	Text     string   `yaml:"text"`
	TextKo   string   `yaml:"text_ko"`
	Evidence []evFile `yaml:"evidence"`
}

type textFile struct {
	Text   string `yaml:"text"`
	TextKo string `yaml:"text_ko"`
}

var idPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*[a-z0-9]$`)

// Parse reads one drill file (without its snapshot). Problems carry the
// line of the field they are about; a drill with problems is still
// returned as far as it was read, for lint to check further.
func Parse(p string, data []byte) (*Drill, []library.Problem) {
	var problems []library.Problem
	bad := func(line int, format string, args ...any) {
		problems = append(problems, library.Problem{Path: p, Line: max(line, 1), Msg: fmt.Sprintf(format, args...)})
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		problems = append(problems, library.YAMLProblem(p, err, "not valid YAML: "))
		return nil, problems
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		bad(1, "a drill file is a YAML mapping (id, title, route, start, evidence, ...)")
		return nil, problems
	}
	var f file
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		problems = append(problems, library.YAMLProblem(p, err, ""))
		return nil, problems
	}
	d := &Drill{Path: p, lines: map[string]int{}}
	root := doc.Content[0]
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		d.lines[k.Value] = k.Line
		d.itemLines(k.Value, v)
		if k.Value == "decoy" && v.Kind == yaml.MappingNode {
			for j := 0; j+1 < len(v.Content); j += 2 {
				d.lines["decoy."+v.Content[j].Value] = v.Content[j].Line
				d.itemLines("decoy."+v.Content[j].Value, v.Content[j+1])
			}
		}
	}
	req := func(field, v string) string {
		v = strings.TrimSpace(v)
		if v == "" {
			bad(d.lineOf(field), "missing %q", field)
		}
		return v
	}
	d.ID = req("id", f.ID)
	if want := strings.TrimSuffix(path.Base(p), ".yaml"); d.ID != "" && d.ID != want {
		bad(d.lineOf("id"), "id %q does not match the file name %s.yaml", d.ID, want)
	} else if d.ID != "" && !idPattern.MatchString(d.ID) {
		bad(d.lineOf("id"), "id %q: use lower-case letters, digits and dashes", d.ID)
	}
	d.Title = Text{req("title", f.Title), req("title_ko", f.TitleKo)}
	switch diff := Difficulty(strings.TrimSpace(f.Difficulty)); {
	case slices.Contains(Difficulties, diff):
		d.Difficulty = diff
	case diff == "":
		bad(d.lineOf("difficulty"), "missing \"difficulty\" (easy, medium or hard)")
	default:
		bad(d.lineOf("difficulty"), "difficulty %q is not easy, medium or hard", diff)
	}
	d.Incidents = f.Incidents
	if len(d.Incidents) == 0 {
		bad(d.lineOf("incidents"), "a drill names at least one library incident it is modelled on")
	}
	d.Route = req("route", f.Route)
	d.Start = Start{Kind: strings.TrimSpace(f.Start.Kind), From: strings.TrimSpace(f.Start.From),
		Text: Text{strings.TrimSpace(f.Start.Text), strings.TrimSpace(f.Start.TextKo)}}
	if !slices.Contains(StartKinds, d.Start.Kind) {
		bad(d.lineOf("start"), "start.kind %q is not one of %s", d.Start.Kind, strings.Join(StartKinds, ", "))
	}
	if d.Start.Text.En == "" || d.Start.Text.Ko == "" {
		bad(d.lineOf("start"), "start needs text and text_ko: the symptom as the on-call person first sees it")
	}
	for i, a := range f.Answers {
		line := d.lineOf(fmt.Sprintf("answers[%d]", i))
		ans := Answer{Question: strings.TrimSpace(a.Question), Choice: strings.TrimSpace(a.Answer), Command: strings.TrimSpace(a.Command),
			Line: strings.TrimSpace(a.Line), Why: Text{strings.TrimSpace(a.Why), strings.TrimSpace(a.WhyKo)}}
		if ans.Question == "" || ans.Choice == "" || ans.Line == "" {
			bad(line, "answers[%d] needs question, answer and line (the text that gives the answer away)", i)
		}
		if ans.Why.En == "" || ans.Why.Ko == "" {
			bad(line, "answers[%d] needs why and why_ko", i)
		}
		d.Answers = append(d.Answers, ans)
	}
	d.Evidence = evidence(f.Evidence, "evidence", d, bad)
	if len(d.Evidence) == 0 {
		bad(d.lineOf("evidence"), "a drill names the key evidence: at least one command and a line of its output")
	}
	if f.Decoy != nil {
		dc := &Decoy{Route: strings.TrimSpace(f.Decoy.Route), Text: Text{strings.TrimSpace(f.Decoy.Text), strings.TrimSpace(f.Decoy.TextKo)}}
		if dc.Route == "" || dc.Text.En == "" || dc.Text.Ko == "" {
			bad(d.lineOf("decoy"), "decoy needs route, text and text_ko: the cause it suggests and why it does not act")
		}
		if dc.Route != "" && dc.Route == d.Route {
			bad(d.lineOf("decoy"), "decoy.route is the expected route; a decoy points elsewhere")
		}
		dc.Evidence = evidence(f.Decoy.Evidence, "decoy.evidence", d, bad)
		if len(dc.Evidence) == 0 {
			bad(d.lineOf("decoy"), "decoy needs evidence: the lines that make it look likely")
		}
		d.Decoy = dc
	}
	for i, h := range f.Hints {
		t := Text{strings.TrimSpace(h.Text), strings.TrimSpace(h.TextKo)}
		if t.En == "" || t.Ko == "" {
			bad(d.lineOf(fmt.Sprintf("hints[%d]", i)), "hints[%d] needs text and text_ko", i)
		}
		d.Hints = append(d.Hints, t)
	}
	if len(d.Hints) == 0 {
		bad(d.lineOf("hints"), "a drill gives the facilitator at least one hint")
	}
	d.Recovery = Text{req("recovery", f.Recovery), req("recovery_ko", f.RecoveryKo)}
	d.Teaches = Text{req("teaches", f.Teaches), req("teaches_ko", f.TeachesKo)}
	return d, problems
}

// itemLines records the line of each item of a list field, and of each
// field inside an item ("evidence[1].line"), so a problem points at the
// very line to fix.
func (d *Drill) itemLines(field string, v *yaml.Node) {
	if v.Kind != yaml.SequenceNode {
		return
	}
	for j, item := range v.Content {
		key := fmt.Sprintf("%s[%d]", field, j)
		d.lines[key] = item.Line
		if item.Kind == yaml.MappingNode {
			for n := 0; n+1 < len(item.Content); n += 2 {
				d.lines[key+"."+item.Content[n].Value] = item.Content[n].Line
			}
		}
	}
}

func evidence(in []evFile, field string, d *Drill, bad func(int, string, ...any)) []Evidence {
	var out []Evidence
	for i, e := range in {
		line := d.lineOf(fmt.Sprintf("%s[%d]", field, i))
		ev := Evidence{Command: strings.TrimSpace(e.Command), Line: strings.TrimSpace(e.Line), Why: Text{strings.TrimSpace(e.Why), strings.TrimSpace(e.WhyKo)}}
		if ev.Command == "" || ev.Line == "" {
			bad(line, "%s[%d] needs command and line", field, i)
		}
		if field == "evidence" && (ev.Why.En == "" || ev.Why.Ko == "") {
			bad(line, "%s[%d] needs why and why_ko: what the line tells the person", field, i)
		}
		out = append(out, ev)
	}
	return out
}
