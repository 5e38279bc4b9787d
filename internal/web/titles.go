package web

import (
	"strings"

	"casebook/internal/i18n"
	"casebook/web/templates"
)

// listTitle is a list page's browser-tab title: the active filters, then
// the page's name, then the page number past the first, so tabs and
// history entries say what each list holds.
func listTitle(pr *i18n.Printer, base string, chips []templates.Chip, page int) string {
	var labels []string
	for _, ch := range chips {
		labels = append(labels, ch.Label)
	}
	title := base
	if len(labels) > 0 {
		title = strings.Join(labels, " · ") + " — " + base
	}
	if page > 1 {
		title = pr.T("titles.page", "title", title, "page", page)
	}
	return title
}

// feedHref is the Atom feed of the list the page shows: the same filters.
func feedHref(st listState) string {
	if e := st.filterValues().Encode(); e != "" {
		return "/feed.atom?" + e
	}
	return "/feed.atom"
}
