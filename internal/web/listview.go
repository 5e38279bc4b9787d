package web

import (
	"context"
	"net/url"
	"strconv"
	"strings"

	"casebook/internal/content"
	"casebook/internal/graph"
	"casebook/internal/i18n"
	"casebook/internal/library"
	"casebook/internal/selection"
	"casebook/internal/store"
	"casebook/web/templates"
)

// cardTermFacets are the rows of a case card, in order.
var cardTermFacets = []struct {
	Param string
	Facet library.Facet
}{
	{"cause", library.FacetCause},
	{"component", library.FacetComponent},
	{"symptom", library.FacetSymptom},
	{"factor", library.FacetFactor},
	{"domain", library.FacetDomain},
}

func termsOf(it store.IncidentSummary, f library.Facet) []string {
	switch f {
	case library.FacetCause:
		return it.Causes
	case library.FacetComponent:
		return it.Components
	case library.FacetSymptom:
		return it.Symptoms
	case library.FacetFactor:
		return it.ContributingFactors
	case library.FacetDomain:
		return it.Domains
	}
	return nil
}

// filterHref links to the library filtered by one value.
func filterHref(param, value string) string {
	return "/?" + param + "=" + value
}

func incidentCard(p *i18n.Printer, tax *library.Taxonomy, it store.IncidentSummary) templates.CaseCard {
	title, fbTitle := p.Pick(it.Title, it.TitleKo)
	summary, fbSummary := p.Pick(it.Summary, it.SummaryKo)
	card := templates.CaseCard{ID: it.ID, Title: title, Summary: summary, Organization: it.Organization,
		OrgHref: filterHref("org", it.OrgSlug), Date: p.Date(it.Date), Href: "/incidents/" + it.ID, EnglishOnly: fbTitle || fbSummary}
	if it.Layer != "" && it.Layer != library.PublicLayer {
		card.Layer, card.LayerLabel = it.Layer, layerLabel(p, it.Layer)
	}
	for _, cf := range cardTermFacets {
		ids := termsOf(it, cf.Facet)
		if len(ids) == 0 {
			continue
		}
		row := templates.TermRow{Facet: cf.Param, Label: facetLabel(p, cf.Facet)}
		for _, id := range ids {
			row.Links = append(row.Links, templates.Link{Label: termLabel(p, tax, cf.Facet, id), Href: filterHref(cf.Param, id)})
		}
		card.Terms = append(card.Terms, row)
	}
	return card
}

// maxFacetValues bounds the organisation and year lists of the sidebar.
const maxFacetValues = 40

// facetGroups builds the filter sidebar from facet counts.
func facetGroups(p *i18n.Printer, tax *library.Taxonomy, st listState, counts map[string][]store.FacetCount, path string) []templates.FacetGroup {
	value := func(param, term, label string, count int) templates.FacetValue {
		return templates.FacetValue{Term: term, Label: label, Count: count, Selected: st.selected(param, term),
			Href: st.toggle(param, term).href(path)}
	}
	byTerm := func(key string) map[string]int {
		m := map[string]int{}
		for _, c := range counts[key] {
			m[c.Term] = c.Count
		}
		return m
	}
	var out []templates.FacetGroup
	// Causes under their category, as the seed page groups them.
	causeCounts, catCounts := byTerm("cause"), byTerm("cause_category")
	cause := templates.FacetGroup{Param: "cause", Label: facetLabel(p, library.FacetCause)}
	for _, cat := range tax.Terms(library.FacetCauseCategory) {
		g := templates.FacetSubgroup{Label: termOwnLabel(p, cat), Count: catCounts[cat.ID], Href: st.toggle("cause_category", cat.ID).href(path)}
		if st.selected("cause_category", cat.ID) {
			g.Label = "✓ " + g.Label
		}
		for _, c := range tax.Terms(library.FacetCause) {
			if c.Category == cat.ID && (causeCounts[c.ID] > 0 || st.selected("cause", c.ID)) {
				g.Values = append(g.Values, value("cause", c.ID, termOwnLabel(p, c), causeCounts[c.ID]))
			}
		}
		if len(g.Values) > 0 || st.selected("cause_category", cat.ID) {
			cause.Groups = append(cause.Groups, g)
		}
	}
	out = append(out, cause)
	for _, fp := range []struct {
		param string
		facet library.Facet
	}{{"component", library.FacetComponent}, {"symptom", library.FacetSymptom}, {"factor", library.FacetFactor}, {"domain", library.FacetDomain}} {
		g := templates.FacetGroup{Param: fp.param, Label: facetLabel(p, fp.facet)}
		for _, c := range counts[fp.param] {
			g.Values = append(g.Values, value(fp.param, c.Term, termLabel(p, tax, fp.facet, c.Term), c.Count))
		}
		for _, sel := range st.Filter.Terms[fp.facet] {
			if _, ok := byTerm(fp.param)[sel]; !ok {
				g.Values = append(g.Values, value(fp.param, sel, termLabel(p, tax, fp.facet, sel), 0))
			}
		}
		out = append(out, g)
	}
	for _, key := range []struct{ param, label string }{{"org", p.T("facet.org")}, {"year", p.T("facet.year")}} {
		g := templates.FacetGroup{Param: key.param, Label: key.label}
		for i, c := range counts[key.param] {
			// A company-wide library has thousands of organisations; the
			// sidebar shows the largest (counts come sorted) and any selected.
			if i >= maxFacetValues && !st.selected(key.param, c.Term) {
				continue
			}
			g.Values = append(g.Values, value(key.param, c.Term, c.Label, c.Count))
		}
		out = append(out, g)
	}
	return out
}

// chips lists the active filters with links that remove each.
func chips(p *i18n.Printer, tax *library.Taxonomy, st listState, path string, orgs content.Orgs) ([]templates.Chip, string) {
	var out []templates.Chip
	for _, fp := range selection.FacetParams {
		for _, t := range st.Filter.Terms[fp.Facet] {
			out = append(out, templates.Chip{Facet: facetLabel(p, fp.Facet), Label: termLabel(p, tax, fp.Facet, t), Remove: st.toggle(fp.Param, t).href(path)})
		}
	}
	for _, o := range st.Filter.Orgs {
		out = append(out, templates.Chip{Facet: p.T("facet.org"), Label: orgs.Name(o), Remove: st.toggle("org", o).href(path)})
	}
	for _, y := range st.Filter.Years {
		out = append(out, templates.Chip{Facet: p.T("facet.year"), Label: strconv.Itoa(y), Remove: st.toggle("year", strconv.Itoa(y)).href(path)})
	}
	clear := listState{Selection: selection.Selection{Query: st.Query, Kind: st.Kind, Sort: st.Sort, PerPage: st.PerPage, Lang: st.Lang},
		defaultPer: st.defaultPer}
	return out, clear.href(path)
}

// pager computes the count line and page links.
func pager(st listState, total int, path string) templates.Pager {
	p := templates.Pager{Total: total}
	if total == 0 {
		return p
	}
	p.From = (st.Page-1)*st.PerPage + 1
	p.To = min(st.Page*st.PerPage, total)
	pages := (total + st.PerPage - 1) / st.PerPage
	at := func(n int) string { c := st.clone(); c.Page = n; return c.href(path) }
	if st.Page > 1 {
		p.Prev = at(st.Page - 1)
	}
	if st.Page < pages {
		p.Next = at(st.Page + 1)
	}
	for n := 1; n <= pages; n++ {
		if n == 1 || n == pages || (n >= st.Page-2 && n <= st.Page+2) {
			p.Pages = append(p.Pages, templates.PageLink{N: n, Href: at(n), Current: n == st.Page})
		} else if len(p.Pages) > 0 && !p.Pages[len(p.Pages)-1].Gap {
			p.Pages = append(p.Pages, templates.PageLink{Gap: true})
		}
	}
	return p
}

// graphView builds the graph of the filtered set, the "most common" lines
// and the server-rendered fallback.
func (s *Server) graphView(ctx context.Context, c *content.Content, st listState, focus string, casesPerTerm int) (graph.Graph, templates.GraphView, []templates.CommonLine, error) {
	p := printer(ctx)
	g, err := c.GraphOf(ctx, st.Filter, focus)
	if err != nil {
		return graph.Graph{}, templates.GraphView{}, nil, err
	}
	gv := templates.GraphView{DataURL: "/api/graph?" + st.filterValues().Encode(), Nodes: len(g.Nodes), Edges: len(g.Edges)}
	if focus != "" {
		gv.DataURL += "&focus=" + focus
	}
	caseLinks := map[string][]templates.Link{}
	for _, e := range g.Edges {
		if e.Kind == "case" && len(caseLinks[e.Target]) < casesPerTerm {
			id := e.Source[len("case:"):]
			// Without JavaScript this list is the graph: name each case, as
			// the drawing's hover would.
			label := id
			if in, ok := c.Search.Incident(id); ok {
				label = id + " · " + p.PickText(in.Title, in.TitleKo)
			}
			caseLinks[e.Target] = append(caseLinks[e.Target], templates.Link{Label: label, Href: "/incidents/" + id})
		}
	}
	var common []templates.CommonLine
	for _, fp := range []struct {
		param string
		facet library.Facet
	}{{"cause", library.FacetCause}, {"component", library.FacetComponent}, {"symptom", library.FacetSymptom}, {"factor", library.FacetFactor}} {
		grp := templates.GraphGroup{Facet: fp.param, Label: facetLabel(p, fp.facet)}
		line := templates.CommonLine{Facet: facetLabel(p, fp.facet)}
		for i, n := range g.TopTerms(fp.param, 0) {
			id := n.ID[len(fp.param)+1:]
			l := templates.Link{Label: termLabel(p, c.Taxonomy, fp.facet, id), Href: st.toggle(fp.param, id).href("/"), Count: n.Count, Kind: fp.param}
			if i < 3 && n.Count > 1 {
				line.Terms = append(line.Terms, l)
			}
			if i < 12 {
				grp.Terms = append(grp.Terms, templates.GraphTerm{Link: l, Cases: caseLinks[n.ID]})
			}
		}
		if len(grp.Terms) > 0 {
			gv.Groups = append(gv.Groups, grp)
		}
		if len(line.Terms) > 0 {
			common = append(common, line)
		}
	}
	return g, gv, common, nil
}

// causeSymptomMatrix reads the graph at a glance: the set's most common
// causes against its most common symptoms, each cell the number of cases
// that carry both, linked to the library filtered by the pair.
func causeSymptomMatrix(p *i18n.Printer, tax *library.Taxonomy, g graph.Graph, st listState, n int) templates.Matrix {
	causes, symptoms := map[string][]string{}, map[string][]string{} // case node -> its term nodes
	for _, e := range g.Edges {
		switch {
		case e.Kind != "case":
		case strings.HasPrefix(e.Target, "cause:"):
			causes[e.Source] = append(causes[e.Source], e.Target)
		case strings.HasPrefix(e.Target, "symptom:"):
			symptoms[e.Source] = append(symptoms[e.Source], e.Target)
		}
	}
	pairs := map[[2]string]int{}
	for cs, cl := range causes {
		for _, a := range cl {
			for _, b := range symptoms[cs] {
				pairs[[2]string{a, b}]++
			}
		}
	}
	rows, cols := g.TopTerms("cause", n), g.TopTerms("symptom", n)
	if len(rows) == 0 || len(cols) == 0 {
		return templates.Matrix{}
	}
	var m templates.Matrix
	top := 0
	for _, r := range rows {
		for _, c := range cols {
			top = max(top, pairs[[2]string{r.ID, c.ID}])
		}
	}
	for _, c := range cols {
		id := c.ID[len("symptom:"):]
		m.Cols = append(m.Cols, templates.Link{Label: termLabel(p, tax, library.FacetSymptom, id), Href: st.toggle("symptom", id).href("/"), Count: c.Count})
	}
	for _, r := range rows {
		id := r.ID[len("cause:"):]
		row := templates.MatrixRow{Head: templates.Link{Label: termLabel(p, tax, library.FacetCause, id), Href: st.toggle("cause", id).href("/"), Count: r.Count}}
		for _, c := range cols {
			k := pairs[[2]string{r.ID, c.ID}]
			cell := templates.MatrixCell{Count: k}
			if k > 0 {
				cell.Href = st.toggle("cause", id).toggle("symptom", c.ID[len("symptom:"):]).href("/")
				cell.Heat = min(4, 1+3*k/top)
			}
			row.Cells = append(row.Cells, cell)
		}
		m.Rows = append(m.Rows, row)
	}
	return m
}

// filterValues is the query string of the filters alone.
func (st listState) filterValues() url.Values { return selection.FilterValues(st.Filter) }
