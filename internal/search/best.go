package search

import (
	"slices"
	"sort"
	"strings"

	"casebook/internal/library"
	"casebook/internal/triage"
)

// Best is the playbook section that handles the symptom or route a query
// names: what to do now, shown before the incidents that share the words.
type Best struct {
	Route    string `json:"route"`
	Playbook string `json:"playbook"`
	// Section is the anchor of the section (or its sub-heading) in the
	// playbook's page.
	Section string `json:"section"`
	Title   string `json:"title"`
	TitleKo string `json:"title_ko,omitempty"`
	// URL is the section's place: /playbooks/ID#anchor.
	URL string `json:"url"`
	// Commands are the route's first commands, as the wizard's outcome
	// shows them.
	Commands []string `json:"commands,omitempty"`
}

// minSymptomShare: see router.bySymptom.
const minSymptomShare = 0.25

// maxBestCommands is how many of the route's commands Best carries.
const maxBestCommands = 3

// router finds the route a query names: the classifier's words and
// messages, on the text as typed and on its English rendering (the Korean
// glossary, typo neighbours), then the symptom terms the query names.
type router struct {
	cat *triage.Catalog
	// bySymptom is the route the library's incidents most often give a
	// symptom term, among the routes whose playbook treats the symptom,
	// when at least minSymptomShare of the symptom's incidents show it: a
	// symptom as broad as an outage names no route.
	bySymptom map[string]string
	// treats are, per route, the symptoms and components its playbook
	// lists: a weak classification counts only when the query names one.
	treats  map[string]map[string]bool
	matcher *Matcher
	// orgWords are the first words of the organisations' names that name
	// no component or symptom (vLLM's users are an organisation, vLLM a
	// component): a query with one of them asks for that organisation's
	// cases, not for a playbook.
	orgWords map[string]bool
}

func newRouter(cat *triage.Catalog, lib *library.Library, m *Matcher) *router {
	if cat == nil {
		return nil
	}
	rt := &router{cat: cat, bySymptom: map[string]string{}, orgWords: map[string]bool{}, treats: map[string]map[string]bool{}, matcher: m}
	for _, id := range cat.RouteIDs() {
		n, _ := cat.Route(id)
		if pb, ok := lib.Playbook(n.Outcome.Playbook); ok {
			rt.treats[id] = map[string]bool{}
			for _, s := range pb.Symptoms {
				rt.treats[id][string(library.FacetSymptom)+":"+s] = true
			}
			for _, c := range pb.Components {
				rt.treats[id][string(library.FacetComponent)+":"+c] = true
			}
		}
	}
	// A route also treats the terms typical of its incidents: those at
	// least minSymptomShare of them carry.
	count := map[string]map[string]int{} // symptom -> route -> incidents
	with := map[string]int{}             // symptom -> incidents
	terms := map[string]map[string]int{} // route -> "facet:term" -> incidents
	routed := map[string]int{}           // route -> incidents
	for _, in := range lib.Incidents {
		for _, s := range in.Symptoms {
			with[s]++
			for _, r := range in.Routes {
				if count[s] == nil {
					count[s] = map[string]int{}
				}
				count[s][r]++
			}
		}
		for _, r := range in.Routes {
			routed[r]++
			if terms[r] == nil {
				terms[r] = map[string]int{}
			}
			for _, f := range []library.Facet{library.FacetSymptom, library.FacetComponent, library.FacetCause} {
				for _, t := range in.Terms(f) {
					terms[r][string(f)+":"+t]++
				}
			}
		}
		if w := strings.ToLower(strings.Trim(strings.Fields(in.Organization + " x")[0], ".,()")); len(w) > 2 && !namesProduct(m, w) {
			rt.orgWords[w] = true
		}
	}
	for r, ts := range terms {
		if rt.treats[r] == nil {
			continue
		}
		for t, n := range ts {
			if float64(n) >= minSymptomShare*float64(routed[r]) {
				rt.treats[r][t] = true
			}
		}
	}
	for s, byRoute := range count {
		routes := make([]string, 0, len(byRoute))
		for r := range byRoute {
			routes = append(routes, r)
		}
		routes = slices.DeleteFunc(routes, func(r string) bool { return !rt.treats[r][string(library.FacetSymptom)+":"+s] })
		if len(routes) == 0 {
			continue
		}
		sort.Slice(routes, func(i, j int) bool {
			a, b := byRoute[routes[i]], byRoute[routes[j]]
			return a > b || a == b && routes[i] < routes[j]
		})
		if float64(byRoute[routes[0]]) >= minSymptomShare*float64(with[s]) {
			rt.bySymptom[s] = routes[0]
		}
	}
	return rt
}

// namesProduct reports whether w names a component or a symptom.
func namesProduct(m *Matcher, w string) bool {
	for _, tm := range m.matches(normalWords(w)) {
		if tm.term.Facet == library.FacetComponent || tm.term.Facet == library.FacetSymptom {
			return true
		}
	}
	return false
}

// namesWord reports whether w is a word of the term's label or aliases:
// "nvidia" in a query naming the NVIDIA device plugin is the product's.
func namesWord(t *library.Term, w string) bool {
	for _, name := range append([]string{t.Label}, t.Aliases...) {
		if slices.Contains(normalWords(name), w) {
			return true
		}
	}
	return false
}

// route is the route and section the query names, or "" when it names
// none or names something that comes first (an id, a quoted error, an
// organisation).
func (rt *router) route(q *userQuery, p *plan) (route, playbook, section string) {
	if rt == nil || p.exact >= 0 || len(q.phrases) > 0 {
		return "", "", ""
	}
	named := p.named
	if p.english != "" {
		named = append(slices.Clip(named), rt.matcher.matches(normalWords(p.english))...)
	}
	for _, w := range q.words {
		if w = strings.ToLower(strings.Trim(w, ".,()")); rt.orgWords[w] && !slices.ContainsFunc(named, func(tm termMatch) bool {
			return (tm.term.Facet == library.FacetComponent || tm.term.Facet == library.FacetSymptom) && namesWord(tm.term, w)
		}) {
			return "", "", ""
		}
	}
	// The typed text and its English rendering, as two lines of one paste.
	if res := rt.cat.Classify(q.loose + "\n" + p.english); len(res.Routes) > 0 {
		m := res.Routes[0]
		if m.Confidence >= triage.MatchConfidentAt || slices.ContainsFunc(named, func(tm termMatch) bool {
			return rt.treats[m.Route][string(tm.term.Facet)+":"+tm.term.ID]
		}) {
			return m.Route, m.Playbook, m.Section
		}
	}
	for _, tm := range named {
		if tm.term.Facet != library.FacetSymptom {
			continue
		}
		if r, ok := rt.bySymptom[tm.term.ID]; ok {
			n, _ := rt.cat.Route(r)
			return r, n.Outcome.Playbook, n.Outcome.Section
		}
	}
	return "", "", ""
}

// best is the answer for a route's section of a playbook.
func (ix *Index) best(route, playbook, section string) *Best {
	pb, ok := ix.lib.Playbook(playbook)
	if !ok {
		return nil
	}
	b := &Best{Route: route, Playbook: playbook, Section: section, Title: sectionTitle(pb.Sections, section), URL: "/playbooks/" + playbook + "#" + section}
	if b.Title == "" {
		b.Title = pb.Title
	}
	if pb.Ko != nil {
		b.TitleKo = sectionTitle(pb.Ko.Sections, section)
	}
	if n := ix.routeNode(route, section); n != nil {
		b.Commands = n.Outcome.Commands[:min(maxBestCommands, len(n.Outcome.Commands)):min(maxBestCommands, len(n.Outcome.Commands))]
	}
	return b
}

// routeNode is the outcome of route that ends in section, else the route's
// home outcome.
func (ix *Index) routeNode(route, section string) *triage.Node {
	cat := ix.router.cat
	for _, t := range cat.Trees {
		for _, n := range t.Nodes {
			if n.Outcome != nil && n.Outcome.Route == route && n.Outcome.Section == section {
				return n
			}
		}
	}
	n, _ := cat.Route(route)
	return n
}

// sectionTitle is the title of the section or sub-heading with anchor id.
func sectionTitle(sections []library.Section, id string) string {
	for _, s := range sections {
		if s.ID == id {
			return s.Title
		}
		for _, h := range s.Anchors {
			if h.ID == id {
				return h.Title
			}
		}
	}
	return ""
}
