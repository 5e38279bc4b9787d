package triage

import (
	"fmt"

	"casebook/internal/library"
)

// KoProblems reports every text of the trees that has no Korean twin, or a
// twin list of another length: the wizard speaks Korean and English as
// equals, so a question without its Korean text is a gap, not a fallback.
func (c *Catalog) KoProblems() []library.Problem {
	var out []library.Problem
	add := func(path string, line int, format string, args ...any) {
		out = append(out, library.Problem{Path: path, Line: line, Msg: fmt.Sprintf(format, args...)})
	}
	for _, t := range c.Trees {
		if t.TitleKo == "" {
			add(t.Path, t.Line, "tree %s: title has no title_ko", t.ID)
		}
		if t.Summary != "" && t.SummaryKo == "" {
			add(t.Path, t.Line, "tree %s: summary has no summary_ko", t.ID)
		}
		for _, n := range t.Nodes {
			if o := n.Outcome; o != nil {
				if o.DiagnosisKo == "" {
					add(n.Path, n.Line, "node %s outcome: diagnosis has no diagnosis_ko", n.ID)
				}
				if len(o.MitigationKo) != len(o.Mitigation) {
					add(n.Path, n.Line, "node %s outcome: mitigation has %d items, mitigation_ko %d", n.ID, len(o.Mitigation), len(o.MitigationKo))
				}
				if len(o.VerifyKo) != len(o.Verify) {
					add(n.Path, n.Line, "node %s outcome: verify has %d items, verify_ko %d", n.ID, len(o.Verify), len(o.VerifyKo))
				}
				continue
			}
			if n.QuestionKo == "" {
				add(n.Path, n.Line, "node %s: question has no question_ko", n.ID)
			}
			if n.Help != "" && n.HelpKo == "" {
				add(n.Path, n.Line, "node %s: help has no help_ko", n.ID)
			}
			for _, ch := range n.Choices {
				if ch.LabelKo == "" {
					add(n.Path, ch.Line, "node %s answer %s: label has no label_ko", n.ID, ch.ID)
				}
			}
		}
	}
	return out
}
