package web

import (
	"casebook/internal/content"
	"casebook/internal/i18n"
	"casebook/internal/search"
	"casebook/internal/triage"
	"casebook/web/templates"
)

// bestCard is the search page's card for the playbook section the query
// names, in the page's language, with a link that opens the wizard at the
// section's outcome.
func bestCard(p *i18n.Printer, c *content.Content, b *search.Best, playbookTitle string) *templates.BestCard {
	card := &templates.BestCard{Title: b.Title, PlaybookTitle: playbookTitle, Href: b.URL, Commands: b.Commands}
	if p.Lang() == i18n.KO && b.TitleKo != "" {
		card.Title = b.TitleKo
	}
	if c.Triage != nil {
		if st, ok := wizardAt(c.Triage, b.Route, b.Section); ok {
			card.WizardHref = triageHref(st)
		}
	}
	return card
}

// wizardAt is the walk from the root chooser to the outcome of route that
// ends in section (else the route's first outcome), its answers marked
// inferred so the wizard shows them as a guess the person can change.
func wizardAt(cat *triage.Catalog, route, section string) (triage.State, bool) {
	root := cat.Root()
	if root == nil {
		return triage.State{}, false
	}
	home, _ := cat.Route(route)
	type step struct {
		node string
		path []triage.Given
	}
	queue := []step{{node: root.Start}}
	seen := map[string]bool{root.Start: true}
	var fallback []triage.Given
	found := false
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		n, ok := cat.Node(s.node)
		if !ok {
			continue
		}
		if o := n.Outcome; o != nil {
			if o.Route == route && o.Section == section {
				return triage.State{Tree: root.ID, Answers: s.path}, true
			}
			if n == home && !found {
				fallback, found = s.path, true
			}
			continue
		}
		for _, ch := range n.Choices {
			if !seen[ch.Next] {
				seen[ch.Next] = true
				path := append(append([]triage.Given{}, s.path...), triage.Given{Question: n.ID, Choice: ch.ID, Inferred: true})
				queue = append(queue, step{node: ch.Next, path: path})
			}
		}
	}
	return triage.State{Tree: root.ID, Answers: fallback}, found
}
