package web

import (
	"context"
	"regexp"
	"strings"

	"casebook/internal/content"
	"casebook/internal/gaps"
	"casebook/internal/i18n"
	"casebook/web/templates"
)

// gapsCatalogue lists every check of the library, so /gaps explains what
// each looks for (and incident pages' /gaps#<check> links land) before any
// cluster has been read.
func gapsCatalogue(ctx context.Context, pr *i18n.Printer, c *content.Content) []templates.GapCheck {
	if c.Checks == nil {
		return nil
	}
	titles := map[string]string{}
	incident := func(id string) templates.Link {
		t, ok := titles[id]
		if !ok {
			if in, err := c.Store.Incident(ctx, id); err == nil {
				t = pr.PickText(in.Title, in.TitleKo)
			}
			titles[id] = t
		}
		return templates.Link{Label: strings.TrimSpace(id + " " + t), Href: gaps.IncidentURL("", id)}
	}
	var out []templates.GapCheck
	for _, chk := range c.Checks.Checks {
		title, fbT := pr.Pick(chk.Title, chk.TitleKo)
		msg, fbM := pr.Pick(chk.Message, chk.MessageKo)
		fix, fbF := pr.Pick(chk.Fix, chk.FixKo)
		g := templates.GapCheck{ID: chk.ID, Title: title, Severity: chk.Severity.String(), SeverityLabel: severityLabel(pr, chk.Severity.String()),
			LooksFor: messageParts(msg), Reads: strings.Join(chk.Kinds, ", "), Fix: fix, Source: "library/" + chk.Path,
			EnglishOnly: fbT || fbM || fbF}
		for _, id := range chk.Incidents {
			g.Incidents = append(g.Incidents, incident(id))
		}
		for _, ref := range chk.Playbooks {
			g.Playbooks = append(g.Playbooks, templates.Link{Label: playbookRefTitle(ctx, pr, c, ref), Href: gaps.PlaybookURL("", ref)})
		}
		out = append(out, g)
	}
	return out
}

// playbookRefTitle names "playbook#section" by the playbook's title and the
// section's heading in the page's language.
func playbookRefTitle(ctx context.Context, pr *i18n.Printer, c *content.Content, ref string) string {
	id, section, _ := strings.Cut(ref, "#")
	pb, err := c.Store.Playbook(ctx, id)
	if err != nil {
		return ref
	}
	title := playbookTitle(pr, pb)
	if h := headingTitle(pr, pb, section); section != "" && h != "" {
		title += " — " + h
	}
	return title
}

var placeholder = regexp.MustCompile(`\{(count|objects)\}`)

// messageParts cuts a check's message at its {count} and {objects}
// placeholders, which the catalogue shows as variables: what the check
// reports, before it has found anything.
func messageParts(msg string) []templates.TextPart {
	var out []templates.TextPart
	for {
		loc := placeholder.FindStringSubmatchIndex(msg)
		if loc == nil {
			break
		}
		if loc[0] > 0 {
			out = append(out, templates.TextPart{Text: msg[:loc[0]]})
		}
		out = append(out, templates.TextPart{Var: msg[loc[2]:loc[3]]})
		msg = msg[loc[1]:]
	}
	if msg != "" {
		out = append(out, templates.TextPart{Text: msg})
	}
	return out
}
