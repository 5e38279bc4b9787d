package web

import (
	"casebook/internal/i18n"
	"casebook/internal/triage"
)

// The wizard's text in the page's language: the trees carry a _ko twin of
// every text field. Where a twin is missing the English shows, marked.

func treeTitle(p *i18n.Printer, t *triage.Tree) string { return p.PickText(t.Title, t.TitleKo) }

func questionText(p *i18n.Printer, n *triage.Node) (text, help string, english bool) {
	text, fbQ := p.Pick(n.Question, n.QuestionKo)
	help, fbH := p.Pick(n.Help, n.HelpKo)
	return text, help, fbQ || fbH
}

func choiceLabel(p *i18n.Printer, ch *triage.Choice) string { return p.PickText(ch.Label, ch.LabelKo) }

// outcomeText is an outcome's diagnosis, mitigation and verification. The
// Korean lists are used only when they match the English item for item.
func outcomeText(p *i18n.Printer, o *triage.Outcome) (diagnosis string, mitigation, verify []string, english bool) {
	diagnosis, fb := p.Pick(o.Diagnosis, o.DiagnosisKo)
	mitigation, verify = o.Mitigation, o.Verify
	if p.Lang().Korean() {
		if len(o.MitigationKo) == len(o.Mitigation) && len(o.MitigationKo) > 0 {
			mitigation = o.MitigationKo
		} else if len(o.Mitigation) > 0 {
			fb = true
		}
		if len(o.VerifyKo) == len(o.Verify) && len(o.VerifyKo) > 0 {
			verify = o.VerifyKo
		} else if len(o.Verify) > 0 {
			fb = true
		}
	}
	return diagnosis, mitigation, verify, fb
}

// stepNote explains how an answer was found, in the page's language. A
// paste's inference says so in one sentence; a cluster probe's note comes
// from the catalogue (object names stay as the cluster printed them). A
// note with no catalogue message is English, marked on a Korean page.
func stepNote(p *i18n.Printer, st triage.Step) (note string, english bool) {
	if st.Note == "" {
		return "", false
	}
	if st.Source == triage.SourcePaste {
		return p.T("triage.note_paste"), false
	}
	if !st.NoteMsg.IsZero() {
		return p.Msg(st.NoteMsg), false
	}
	return st.Note, p.Lang().Korean()
}
