package web

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"casebook/internal/access"
	"casebook/internal/content"
	"casebook/internal/i18n"
	"casebook/internal/library"
	"casebook/internal/search"
	"casebook/internal/selection"
	"casebook/internal/store"
	"casebook/web/templates"
)

// runSearch validates the request and queries the index, timing it; the
// excerpts are in the page's language.
func (s *Server) runSearch(r *http.Request, c *content.Content) (listState, *search.Result, error) {
	var res *search.Result
	st, err := s.timedSearch(r, c, func(ctx context.Context, req search.Request) (err error) {
		req.Lang = printer(ctx).Lang()
		res, err = c.Search.Search(ctx, req)
		return err
	})
	return st, res, err
}

// timedSearch validates the request, admits and charges its caller, and
// runs do (a search of the index) on it.
func (s *Server) timedSearch(r *http.Request, c *content.Content, do func(context.Context, search.Request) error) (listState, error) {
	st, err := parseListFor(r, c)
	if err != nil {
		return st, err
	}
	if c.Search == nil {
		return st, userError(http.StatusServiceUnavailable, "error.search_unavailable")
	}
	// A search is free until it is costly: the caller is admitted while
	// not in debt and charged for the time it took, so a flood of random
	// 500-character queries slows its sender down, not everyone.
	who := caller(r)
	if err := s.limiter.Take(who, 0); err != nil {
		return st, err
	}
	start := time.Now()
	err = do(r.Context(), st.SearchRequest())
	took := time.Since(start)
	s.limiter.Charge(who, access.CostOf(took))
	if s.metrics != nil {
		s.metrics.SearchLatency(took.Seconds())
	}
	return st, err
}

func (s *Server) handleAPISearch(w http.ResponseWriter, r *http.Request) error {
	c, err := s.current(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	if l := q.Get("limit"); l != "" && q.Get("per_page") == "" {
		q.Set("per_page", l)
		r.URL.RawQuery = q.Encode()
	}
	// The answer comes as JSON, from the cache without being decoded, and
	// its length is known, so it is not chunked.
	var parts [][]byte
	release := func() {}
	if _, err := s.timedSearch(r, c, func(ctx context.Context, req search.Request) (err error) {
		parts, release, err = c.Search.SearchJSON(ctx, req)
		return err
	}); err != nil {
		return err
	}
	defer release()
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(n))
	w.WriteHeader(http.StatusOK)
	for _, p := range parts {
		if _, err := w.Write(p); err != nil {
			return nil // the client went away
		}
	}
	return nil
}

// handleSearch is the search page: mixed incident and playbook results with
// highlighted fragments, tabs by kind with their counts, facet counts and
// "most common" of the result set, suggested filters and the same chips as
// the library. An incident or playbook id typed alone goes to its page. The
// graph is not built here: the panel lists the result's top terms and
// loads the drawing from /api/graph with the same query.
func (s *Server) handleSearch(w http.ResponseWriter, r *http.Request) error {
	c, err := s.current(r)
	if err != nil {
		return err
	}
	st, res, err := s.runSearch(r, c)
	if err != nil {
		return err
	}
	if to := exactRedirect(st, res); to != "" {
		http.Redirect(w, r, to, http.StatusSeeOther)
		return nil
	}
	ctx := r.Context()
	pr := printer(ctx)
	p := templates.LibraryPage{Chrome: s.chrome(c, pr.T("search.title"), "search", st.Query), SearchMode: true, Heading: pr.T("search.heading")}
	if st.Query != "" {
		p.Chrome.Title = pr.T("search.title_query", "query", st.Query)
		p.Heading = pr.T("search.heading_query", "query", st.Query)
	} else {
		p.EmptyNote = pr.T("search.no_query")
	}
	p.Facets = append(sourceFacet(pr, c, st, searchCounts(res.Facets), "/search"), facetGroups(pr, c.Taxonomy, st, searchCounts(res.Facets), "/search")...)
	p.Chips, p.ClearHref = chips(pr, c.Taxonomy, st, "/search", c.Orgs)
	p.Chips = append(p.Chips, sourceChips(pr, st, "/search")...)
	p.Chrome.Title = listTitle(pr, p.Chrome.Title, p.Chips, st.Page)
	p.Pager = pager(st, res.Total, "/search")
	for _, sg := range res.SuggestedFilters {
		param := paramOf(sg.Facet)
		p.Suggested = append(p.Suggested, templates.Chip{Facet: facetLabel(pr, sg.Facet), Label: termLabel(pr, c.Taxonomy, sg.Facet, sg.Term), Count: sg.Count,
			Remove: st.toggle(param, sg.Term).href("/search")})
	}
	p.KindLinks = kindTabs(pr, st, res.Facets["kind"])
	p.Help = searchHelp(pr, c.Taxonomy, st, res)
	pbs, err := playbooksByID(ctx, c)
	if err != nil {
		return err
	}
	if res.Best != nil && st.Page <= 1 {
		pb := pbs[res.Best.Playbook]
		title := pb.Title
		if pr.Lang() == i18n.KO && pb.TitleKo != "" {
			title = pb.TitleKo
		}
		p.Best = bestCard(pr, c, res.Best, title)
	}
	if p.Cards, err = hitCards(ctx, c, pr, res.Hits, pbs); err != nil {
		return err
	}
	p.Graph, p.Common = resultGraph(pr, c.Taxonomy, st, res)
	return render(ctx, w, http.StatusOK, templates.LibraryView(p))
}

// hitCards are search hits as the cards of a result list, in the page's
// language, each with its excerpts: the search page's and the paste box's
// when it searched a prose paste. pbs are the playbooks (playbooksByID).
func hitCards(ctx context.Context, c *content.Content, pr *i18n.Printer, hits []search.Hit, pbs map[string]store.PlaybookSummary) ([]templates.CaseCard, error) {
	var incidentIDs []string
	for _, h := range hits {
		if h.Kind == search.KindIncident {
			incidentIDs = append(incidentIDs, h.ID)
		}
	}
	sums, err := summariesByID(ctx, c, incidentIDs)
	if err != nil {
		return nil, err
	}
	var cards []templates.CaseCard
	for _, h := range hits {
		var card templates.CaseCard
		if sum, ok := sums[h.ID]; ok {
			card = incidentCard(pr, c.Taxonomy, sum)
		} else {
			pb, ok := pbs[h.ID]
			if !ok {
				pb = store.PlaybookSummary{ID: h.ID, Title: h.Title, Summary: h.Summary}
			}
			card = playbookCard(pr, pb)
		}
		card.Kind, card.Score = h.Kind, h.Score
		card.Fragments = fragments(pr, h)
		cards = append(cards, card)
	}
	return cards, nil
}

// exactRedirect is the page of the incident or playbook the query names by
// id, when the query is nothing else and no filter or page was chosen.
func exactRedirect(st listState, res *search.Result) string {
	if res.Exact == "" || st.Page > 1 || st.Kind != "" || !st.Filter.Empty() {
		return ""
	}
	for _, h := range res.Hits {
		if h.ID == res.Exact && h.Kind == search.KindPlaybook {
			return "/playbooks/" + h.ID
		}
	}
	return "/incidents/" + res.Exact
}

// kindTabs are "All", "Incidents" and "Playbooks", each with its count; the
// counts come from the result without the kind filter, so All is the sum.
func kindTabs(p *i18n.Printer, st listState, kinds []search.FacetCount) []templates.SortLink {
	count := map[string]int{}
	for _, fc := range kinds {
		count[fc.Term] = fc.Count
		count[""] += fc.Count
	}
	var out []templates.SortLink
	for _, k := range []struct{ id, label string }{{"", p.T("kind.all")}, {search.KindIncident, p.T("kind.incidents")}, {search.KindPlaybook, p.T("kind.playbooks")}} {
		x := st.clone()
		x.Kind, x.Page = k.id, 1
		out = append(out, templates.SortLink{Label: p.T("kind.tab", "label", k.label, "count", count[k.id]), Href: x.href("/search"), Current: st.Kind == k.id})
	}
	return out
}

// resultGraph is the graph panel and "most common in this set" of a
// result, from its facet counts: the panel lists the top terms and loads
// the drawing from /api/graph with the same query and filters.
func resultGraph(p *i18n.Printer, tax *library.Taxonomy, st listState, res *search.Result) (templates.GraphView, []templates.CommonLine) {
	x := st.clone()
	x.Page, x.Kind, x.Sort, x.PerPage = 1, "", "", 0
	gv := templates.GraphView{DataURL: "/api/graph?" + x.values().Encode()}
	var common []templates.CommonLine
	for _, kc := range res.Facets["kind"] {
		if kc.Term == search.KindIncident {
			gv.Nodes += kc.Count
			gv.TermsOnly = kc.Count > sideGraphCases
		}
	}
	for _, fp := range []struct {
		param string
		facet library.Facet
	}{{"cause", library.FacetCause}, {"component", library.FacetComponent}, {"symptom", library.FacetSymptom}, {"factor", library.FacetFactor}} {
		grp := templates.GraphGroup{Facet: fp.param, Label: facetLabel(p, fp.facet)}
		line := templates.CommonLine{Facet: facetLabel(p, fp.facet)}
		for i, fc := range res.Facets[string(fp.facet)] {
			gv.Nodes++
			gv.Edges += fc.Count
			l := templates.Link{Label: termLabel(p, tax, fp.facet, fc.Term), Href: st.toggle(fp.param, fc.Term).href("/search"), Count: fc.Count, Kind: fp.param}
			if i < 3 && fc.Count > 1 {
				line.Terms = append(line.Terms, l)
			}
			if i < 12 {
				grp.Terms = append(grp.Terms, templates.GraphTerm{Link: l})
			}
		}
		if len(grp.Terms) > 0 {
			gv.Groups = append(gv.Groups, grp)
		}
		if len(line.Terms) > 0 {
			common = append(common, line)
		}
	}
	return gv, common
}

// searchHelp is the zero-result advice: the nearest spelling, the filters
// to drop with the results each leaves, and the triage wizard.
func searchHelp(p *i18n.Printer, tax *library.Taxonomy, st listState, res *search.Result) *templates.SearchHelp {
	if res.Total > 0 {
		return nil
	}
	h := &templates.SearchHelp{WizardHref: "/triage"}
	if res.Help == nil {
		return h
	}
	if res.Help.DidYouMean != "" {
		x := st.clone()
		x.Query, x.Page = res.Help.DidYouMean, 1
		h.DidYouMean = templates.Link{Label: res.Help.DidYouMean, Href: x.href("/search")}
	}
	for _, d := range res.Help.DropFilters {
		if d.Count == 0 {
			continue
		}
		x := st.clone()
		x.Page = 1
		var labels []string
		param := d.Facet
		if f, ok := library.ParseFacet(d.Facet); ok {
			param = paramOf(f)
			for _, t := range d.Terms {
				labels = append(labels, termLabel(p, tax, f, t))
			}
		} else {
			labels = d.Terms
		}
		switch d.Facet {
		case "org":
			x.Filter.Orgs = nil
		case "year":
			x.Filter.Years = nil
		default:
			for _, fp := range selection.FacetParams {
				if fp.Param == param {
					x.Filter.Terms[fp.Facet] = nil
				}
			}
		}
		h.DropFilters = append(h.DropFilters, templates.Link{Label: strings.Join(labels, ", "), Href: x.href("/search"), Count: d.Count, Kind: param})
	}
	return h
}

// fragments are a hit's first three excerpts, in the one order. On a
// Korean page the search gives excerpts of the Korean text where it
// matched; when none did, the English ones are marked as such.
func fragments(p *i18n.Printer, h search.Hit) []templates.Fragment {
	var out []templates.Fragment
	excerpts := h.Excerpts(5)
	fallback := p.Lang() == i18n.KO && !slices.ContainsFunc(excerpts, func(e search.Excerpt) bool { return hasHangul(e.HTML) })
	for _, e := range excerpts {
		if len(out) == 3 {
			break
		}
		// A Korean page's card already shows the Korean title and summary;
		// the English twin's excerpt says the same thing in the other
		// language.
		if p.Lang() == i18n.KO && (e.Field == "title" && h.TitleKo != "" || e.Field == "summary" && h.SummaryKo != "") {
			continue
		}
		english := fallback && (e.Field == "title" || e.Field == "summary" || isSection(e.Field))
		out = append(out, templates.Fragment{Field: sectionLabel(p, e.Field), HTML: e.HTML, English: english})
	}
	return out
}

func paramOf(f library.Facet) string {
	for _, fp := range selection.FacetParams {
		if fp.Facet == f {
			return fp.Param
		}
	}
	return string(f)
}

// searchCounts converts the index's facets to the store's shape, which
// the facet sidebar takes.
func searchCounts(in map[string][]search.FacetCount) map[string][]store.FacetCount {
	out := map[string][]store.FacetCount{}
	for k, v := range in {
		for _, fc := range v {
			out[k] = append(out[k], store.FacetCount{Term: fc.Term, Label: fc.Label, Count: fc.Count})
		}
	}
	return out
}

// summariesByID builds the cards' rows of the incidents of a result from
// the library the search index holds in memory: reading them back from
// SQLite was a fifth of the search page's CPU at 10,000 incidents.
func summariesByID(ctx context.Context, c *content.Content, ids []string) (map[string]store.IncidentSummary, error) {
	out := map[string]store.IncidentSummary{}
	var missing []string
	for _, id := range ids {
		in, ok := c.Search.Incident(id)
		if !ok {
			missing = append(missing, id)
			continue
		}
		out[id] = store.IncidentSummary{ID: in.ID, Title: in.Title, Summary: in.Summary, Organization: in.Organization,
			OrgSlug: library.Slug(in.Organization), Date: in.Date, Year: in.Year, TitleKo: in.TitleKo, SummaryKo: in.SummaryKo,
			Kind: in.Kind, Added: in.Added, Domains: in.Terms(library.FacetDomain), Components: in.Terms(library.FacetComponent),
			Causes: in.Terms(library.FacetCause), Symptoms: in.Terms(library.FacetSymptom), ContributingFactors: in.Terms(library.FacetFactor),
			Layer: in.Layer}
	}
	if len(missing) == 0 {
		return out, nil
	}
	sums, err := c.Store.Summaries(ctx, missing)
	if err != nil {
		return nil, err
	}
	for _, s := range sums {
		out[s.ID] = s
	}
	return out, nil
}

// playbooksByID lists the playbooks (a handful) for search cards: the
// index holds the English title, the store both languages.
func playbooksByID(ctx context.Context, c *content.Content) (map[string]store.PlaybookSummary, error) {
	all, err := c.Store.Playbooks(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]store.PlaybookSummary, len(all))
	for _, pb := range all {
		out[pb.ID] = pb
	}
	return out, nil
}

// isSection reports whether an excerpt's field is a body section's anchor
// rather than one of the named places (title, summary, signals, sources,
// terms), whose names have no "_" and are not anchors.
func isSection(field string) bool {
	switch field {
	case "title", "summary", "title_ko", "summary_ko", "signals", "sources", "terms":
		return false
	}
	return true
}

// hasHangul reports whether s holds a Hangul letter: an excerpt in Korean.
func hasHangul(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.Is(unicode.Hangul, r) }) >= 0
}
