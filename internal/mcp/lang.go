package mcp

import (
	"casebook/internal/i18n"
	"casebook/internal/library"
	"casebook/internal/triage"
)

// Every tool takes lang. Fields that exist in both languages come in both
// whatever lang says (title and title_ko, label and label_ko, sections and
// sections_ko); text that a tool gives in one language at a time — a
// playbook's sections, a route's diagnosis and steps, the titles of the
// incidents and playbooks it points to — follows lang, in English where
// the library has no Korean yet (english_only says so).
const langDoc = "en (the default) or ko: the language of the text this tool gives in one language at a time; " +
	"fields with a Korean twin (title_ko, label_ko, sections_ko) are always returned"

// toolLang reads a tool's lang argument.
func toolLang(s string) (i18n.Lang, error) {
	switch s {
	case "", "en":
		return i18n.EN, nil
	case "ko":
		return i18n.KO, nil
	}
	return "", badArg("lang %q: use en or ko", s)
}

// printerFor is the catalogue printer of a tool's language, whose Pick
// chooses between English and Korean text.
func printerFor(l i18n.Lang) *i18n.Printer { return i18n.Messages().Printer(l) }

// outcomeIn is a route outcome's text in the printer's language; the
// Korean lists are used only when they match the English item for item.
func outcomeIn(p *i18n.Printer, o *triage.Outcome) (diagnosis string, mitigation, verify []string, english bool) {
	diagnosis, english = p.Pick(o.Diagnosis, o.DiagnosisKo)
	mitigation, verify = o.Mitigation, o.Verify
	if p.Lang().Korean() {
		if len(o.MitigationKo) == len(o.Mitigation) && len(o.MitigationKo) > 0 {
			mitigation = o.MitigationKo
		} else if len(o.Mitigation) > 0 {
			english = true
		}
		if len(o.VerifyKo) == len(o.Verify) && len(o.VerifyKo) > 0 {
			verify = o.VerifyKo
		} else if len(o.Verify) > 0 {
			english = true
		}
	}
	return diagnosis, mitigation, verify, english
}

// headingIn is a playbook heading's title in the printer's language.
func headingIn(p *i18n.Printer, pb *library.Playbook, anchor string) string {
	if p.Lang().Korean() && pb.Ko != nil {
		if t := (&library.Playbook{Sections: pb.Ko.Sections}).HeadingTitle(anchor); t != "" {
			return t
		}
	}
	return pb.HeadingTitle(anchor)
}

// playbookTitleIn is a playbook's title in the printer's language.
func playbookTitleIn(p *i18n.Printer, pb *library.Playbook) string {
	if pb.Ko != nil {
		return p.PickText(pb.Title, pb.Ko.Title)
	}
	return pb.Title
}
