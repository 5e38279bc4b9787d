// Package search is Casebook's full-text search over incidents and playbooks.
//
// bleve analyses the text (English stemming, Korean particles and bigrams);
// the index is this package's own: every field's posting lists, loaded in
// memory, and where each term of the prose stands, by term for quoted
// phrases and by document for highlights. It is persisted on disk and named after the
// library's content hash, so a restart with unchanged content reuses it and a
// changed library builds a new one aside. Queries understand the taxonomy:
// words that name a term (by label or alias, English or Korean) both widen the
// search to documents classified under that term and come back as suggested
// filters.
//
// The files by concern:
//
//   - analysis: analysis.go (fields and analyzers), tokenize.go, korean.go,
//     glossary.go, text.go, document.go (a document's text by field);
//   - the on-disk index: index.go (Open, Close), build.go, postings.go,
//     positions.go, forward.go, manifest.go;
//   - the engine: parse.go, plan.go, engine.go (matching and scoring),
//     run.go (a search from request to result), collect.go, facets.go,
//     places.go, highlight.go, excerpts.go, best.go, suggest.go, help.go,
//     links.go, doccache.go;
//   - answers: cache.go (the result cache), encode.go and jsonwrite.go (the
//     JSON encoder), ring_*.go.
package search

import (
	"casebook/internal/i18n"
	"casebook/internal/library"
)

// Document kinds, as stored in the index and accepted in Request.Kind.
const (
	KindIncident = "incident"
	KindPlaybook = "playbook"
)

// The limits of a request, one set for every door: selection refuses a
// request past them with its own message, and the index refuses one that
// reaches it directly. MaxQueryBytes: a longer text is a paste, which the
// classifier (triage) reads. MaxResults bounds how deep paging goes (the
// best MaxResults are ranked), for the library's lists as for searches.
const (
	DefaultPerPage = 20
	MaxPerPage     = 100
	MaxQueryBytes  = 500
	MaxResults     = 10000
)

// LastPage is the last page of perPage results paging reaches.
func LastPage(perPage int) int { return MaxResults/max(perPage, 1) + 1 }

// Request is one search. The zero value lists every document, newest
// incident first.
type Request struct {
	// Query is what the user typed: words, "quoted phrases", pasted error
	// strings, English or Korean.
	Query string
	// Kind restricts results to KindIncident or KindPlaybook; "" means both.
	Kind string
	// Filters hold term ids per facet, as selection resolved them (an id
	// the taxonomy does not have matches nothing). Values of one facet are
	// alternatives (OR); different facets must all hold (AND), as on the
	// library page.
	Filters map[library.Facet][]string
	// Org and Year filter incidents by organization (its slug,
	// library.Slug of the name) and by the year of the incident date.
	Org  []string
	Year []int
	// Layer keeps the documents of these layers: "public", a team's
	// layer name (the Source facet).
	Layer []string
	// Page is 1-based; 0 means 1. PerPage 0 means DefaultPerPage.
	Page, PerPage int
	// Lang is the reader's language. It picks the excerpts, not the
	// results: on i18n.KO a document with a Korean body shows excerpts of
	// it, and English ones only when nothing Korean matched.
	Lang i18n.Lang
}

// Result is the answer to a Request, shaped for the JSON API.
type Result struct {
	Query string `json:"query"`
	Total int    `json:"total"`
	Hits  []Hit  `json:"hits"`
	// Facets counts the terms of each facet over the whole result set, keyed
	// by facet name ("symptom", "component", "cause", "cause_category",
	// "factor", "domain", "org", "year", "kind", "layer"), most frequent first; only
	// terms found in the result appear.
	Facets map[string][]FacetCount `json:"facets"`
	// SuggestedFilters are taxonomy terms named in the query that are not
	// already applied as filters and that results carry.
	SuggestedFilters []Suggestion `json:"suggested_filters"`
	// Exact is the id of the incident or playbook the query names ("IL-0171",
	// "il-171", "171", "gpu-missing"); it is the first hit.
	Exact string `json:"exact,omitempty"`
	// Best is the playbook section of the symptom or route the query
	// names; its playbook is the first hit (after an Exact one).
	Best *Best `json:"best,omitempty"`
	// Partial is true when the query hit its time box and optional work
	// (typo neighbours, later words) was skipped.
	Partial bool `json:"partial,omitempty"`
	// Help says how to get results when there are none.
	Help *Help `json:"help,omitempty"`
}

// Help is what a query without results can try instead.
type Help struct {
	// DidYouMean is the query with misspelt words replaced by the nearest
	// words of the library, when that finds something.
	DidYouMean string `json:"did_you_mean,omitempty"`
	// DropFilters are the applied filters, each with the number of results
	// the query has without it, most results first.
	DropFilters []DropFilter `json:"drop_filters,omitempty"`
}

// DropFilter is one applied filter and the results without it.
type DropFilter struct {
	Facet string   `json:"facet"`
	Terms []string `json:"terms"`
	Count int      `json:"count"`
}

// Hit is one matching incident or playbook.
type Hit struct {
	ID      string `json:"id"`
	Kind    string `json:"kind"`
	Title   string `json:"title"`
	Summary string `json:"summary"`
	// TitleKo and SummaryKo are the Korean title and summary, where the
	// library has them.
	TitleKo   string  `json:"title_ko,omitempty"`
	SummaryKo string  `json:"summary_ko,omitempty"`
	Score     float64 `json:"score"`
	// Exact marks the document whose id the query is.
	Exact bool `json:"exact,omitempty"`
	// Best marks the playbook of Result.Best.
	Best bool `json:"best,omitempty"`
	// Fragments are short HTML-safe excerpts with matches wrapped in <mark>.
	// Keys are "title", "summary", "signals", "sources", "#anchor" for a
	// body section (the anchor of its heading, so the page can link to the
	// place a fragment came from), and "terms" for the taxonomy terms the
	// query named that the document is classified under
	// ("Symptom: <mark>Untolerated taint</mark>").
	Fragments map[string][]string `json:"fragments,omitempty"`
}

// FacetCount is one term of a facet with the number of results carrying it.
type FacetCount struct {
	Term  string `json:"term"`
	Label string `json:"label"`
	Count int    `json:"count"`
}

// Suggestion is a taxonomy term the query names, offered as a one-click
// filter.
type Suggestion struct {
	Facet   library.Facet `json:"facet"`
	Term    string        `json:"term"`
	Label   string        `json:"label"`
	LabelKo string        `json:"label_ko,omitempty"`
	// Count is the number of results classified under the term.
	Count int `json:"count"`
}

// QueryError reports a query the index cannot run: too long, too many
// words or phrases, not text, a page out of range. The web layer maps it
// to 400.
type QueryError struct {
	Msg string
	// M is Msg as a catalogue message, when it has one (i18n.Localized).
	M i18n.Msg
}

// Message is the catalogue message (i18n.Localized).
func (e *QueryError) Message() i18n.Msg { return e.M }

// badQueryMsg is a refused query whose message is in the catalogue.
func badQueryMsg(key string, args ...any) error {
	m := i18n.M(key, args...)
	return &QueryError{Msg: m.English(), M: m}
}

func (e *QueryError) Error() string { return "search: " + e.Msg }
