// Package corpus measures the shipped incident library and generates
// synthetic libraries of any size that follow its statistics, for the
// benchmarks of issue 8. Generated incidents are valid library content
// (they pass lint) but they are not real incidents: they exist only under a
// benchmark's temporary folder and are never committed.
package corpus

import (
	"strings"

	"casebook/internal/library"
)

// termFacets are the facets an incident's front matter lists.
var termFacets = []library.Facet{library.FacetDomain, library.FacetComponent, library.FacetCause,
	library.FacetSymptom, library.FacetFactor}

// Stats are the distributions measured from a real library. Every slice
// holds one observation per real incident (or per source, per paragraph),
// so drawing uniformly from it draws from the empirical distribution.
type Stats struct {
	tax       *library.Taxonomy
	incidents int

	// termCounts[f] is how many terms of facet f each incident lists;
	// termPool[f] holds every term use, so it is weighted by frequency.
	termCounts map[library.Facet][]int
	termPool   map[library.Facet][]string

	// sections[i] has the shape of section IncidentSections[i] in each
	// real incident.
	sections [][]sectionShape

	titleWords, summaryWords, triggerWords, detectionWords []int
	orgs                                                   []string
	years                                                  []int
	monthOnly                                              float64
	sourceCounts                                           []int
	sourceKinds                                            []string
	playbookCounts                                         []int
	playbookPool                                           []string

	lex    *lexicon
	global *model // all incident prose
	titles *model // titles only
	// koTitles and koSummaries model the Korean title and summary every
	// incident carries, so generated libraries index Korean text too.
	koTitles, koSummaries        *model
	koTitleWords, koSummaryWords []int
	docs                         []*model // prose of each real incident
	terms                        [][]termUse
}

// sectionShape is one real section: its length in tokens and, when it is a
// list, how many items it has (0 for prose) or how many paragraphs.
type sectionShape struct {
	words, items, paragraphs int
}

type termUse struct {
	facet library.Facet
	id    string
}

// Measure reads the statistics of lib's incidents.
func Measure(lib *library.Library) *Stats {
	st := &Stats{
		tax:         lib.Taxonomy,
		incidents:   len(lib.Incidents),
		termCounts:  map[library.Facet][]int{},
		termPool:    map[library.Facet][]string{},
		sections:    make([][]sectionShape, len(library.IncidentSections)),
		lex:         newLexicon(),
		global:      newModel(),
		titles:      newModel(),
		koTitles:    newModel(),
		koSummaries: newModel(),
	}
	months := 0
	for _, in := range lib.Incidents {
		for _, f := range termFacets {
			ids := in.Terms(f)
			st.termCounts[f] = append(st.termCounts[f], len(ids))
			st.termPool[f] = append(st.termPool[f], ids...)
		}
		doc := newModel()
		var uses []termUse
		for _, f := range termFacets {
			for _, id := range in.Terms(f) {
				uses = append(uses, termUse{f, id})
			}
		}
		st.terms = append(st.terms, uses)
		full := in.WithBodies() // the texts decoded once, not once per section
		for i, name := range library.IncidentSections {
			sec := full.Section(name)
			if sec == nil {
				continue
			}
			toks := tokenize(sec.Markdown)
			doc.add(st.lex, toks)
			st.global.add(st.lex, toks)
			st.sections[i] = append(st.sections[i], shapeOf(sec.Markdown, len(toks)))
		}
		for _, s := range []string{in.Summary, in.Trigger, in.Detection} {
			toks := tokenize(s)
			doc.add(st.lex, toks)
			st.global.add(st.lex, toks)
		}
		st.docs = append(st.docs, doc)
		st.titles.add(st.lex, tokenize(in.Title))
		st.koTitles.add(st.lex, tokenize(in.TitleKo))
		st.koSummaries.add(st.lex, tokenize(in.SummaryKo))
		st.koTitleWords = append(st.koTitleWords, len(strings.Fields(in.TitleKo)))
		st.koSummaryWords = append(st.koSummaryWords, len(strings.Fields(in.SummaryKo)))
		st.titleWords = append(st.titleWords, len(strings.Fields(in.Title)))
		st.summaryWords = append(st.summaryWords, len(strings.Fields(in.Summary)))
		st.triggerWords = append(st.triggerWords, len(strings.Fields(in.Trigger)))
		st.detectionWords = append(st.detectionWords, len(strings.Fields(in.Detection)))
		st.orgs = append(st.orgs, in.Organization)
		st.years = append(st.years, in.Year)
		if len(in.Date) == len("2006-01") {
			months++
		}
		st.sourceCounts = append(st.sourceCounts, len(in.Sources))
		for _, s := range in.Sources {
			st.sourceKinds = append(st.sourceKinds, s.Kind)
		}
		st.playbookCounts = append(st.playbookCounts, len(in.Playbooks))
		st.playbookPool = append(st.playbookPool, in.Playbooks...)
	}
	if len(lib.Incidents) > 0 {
		st.monthOnly = float64(months) / float64(len(lib.Incidents))
	}
	return st
}

// shapeOf describes a section body: list items, or paragraphs.
func shapeOf(markdown string, words int) sectionShape {
	sh := sectionShape{words: words}
	inPara := false
	for _, line := range strings.Split(markdown, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* "):
			sh.items++
			inPara = false
		case t == "":
			inPara = false
		case !inPara && sh.items == 0:
			sh.paragraphs++
			inPara = true
		}
	}
	if sh.paragraphs == 0 && sh.items == 0 {
		sh.paragraphs = 1
	}
	return sh
}
