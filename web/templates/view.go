// Package templates holds the templ components of the portal and the view
// models they render. View models are shaped like the screen; handlers fill
// them, templates never fetch anything.
package templates

import "time"

// Chrome is what every page's layout needs.
type Chrome struct {
	Title   string
	Nav     string // active nav item: library, causes, graph, playbooks, triage, search
	Asset   func(string) string
	Query   string // the search box's text
	Version string
	Banner  string // a warning shown on every page (e.g. load problems)
	// ReloadError is set while the latest reload of the library failed,
	// for the operator who reads the footer; ReloadFailedAt is when.
	ReloadError    string
	ReloadFailedAt time.Time
	// Feed is the Atom feed of what the page lists (its filters); empty
	// is the whole library's.
	Feed string
}

// Link is a label with an href.
type Link struct {
	Label string
	Href  string
	Count int
	Kind  string // css hint: facet name or "case"
}

// FacetValue is one checkbox-like value of a facet.
type FacetValue struct {
	Term     string
	Label    string
	Count    int
	Selected bool
	Href     string // toggles this value
}

// FacetGroup is one facet with its values; Groups is used by cause, whose
// values are shown under their category.
type FacetGroup struct {
	Param  string
	Label  string
	Values []FacetValue
	Groups []FacetSubgroup
}

// FacetSubgroup is a titled part of a facet.
type FacetSubgroup struct {
	Label  string
	Href   string
	Count  int
	Values []FacetValue
}

// Chip is an active filter with the link that removes it.
type Chip struct {
	Facet  string
	Label  string
	Remove string
	Count  int // results the chip would keep (suggested filters); 0 hides it
}

// SearchHelp is what the search page offers when a query finds nothing.
type SearchHelp struct {
	DidYouMean  Link   // the query with the library's spelling; empty Href when none
	DropFilters []Link // each applied filter with the results without it (Count)
	WizardHref  string
}

// BestCard is the playbook section a search names by its symptom or
// route, shown above the results.
type BestCard struct {
	Title         string // the section's
	PlaybookTitle string
	Href          string // the section in its playbook
	Commands      []string
	WizardHref    string // the wizard at the route's outcome
}

// CaseCard is an incident in a list, with its classification as links.
type CaseCard struct {
	ID           string
	Title        string
	Summary      string
	Organization string
	OrgHref      string
	Date         string
	Href         string
	Terms        []TermRow
	Kind         string // "incident" or "playbook" (search results)
	Fragments    []Fragment
	Score        float64
	// EnglishOnly marks a card shown in English on a Korean page because
	// the entry has no Korean title and summary yet.
	EnglishOnly bool
	// Layer names a team layer the entry comes from ("" for the public
	// library, which needs no badge).
	Layer, LayerLabel string
}

// TermRow is the terms of one facet on a card.
type TermRow struct {
	Facet string
	Label string
	Links []Link
}

// Fragment is a highlighted excerpt; HTML is already escaped with <mark>.
type Fragment struct {
	Field string
	HTML  string
	// English marks an excerpt of the English text on a Korean page: the
	// entry has no Korean text, or nothing in it matched.
	English bool
}

// Pager is the count line and page links.
type Pager struct {
	From, To, Total int
	Prev, Next      string
	Pages           []PageLink
}

// PageLink is one numbered page.
type PageLink struct {
	N       int
	Href    string
	Current bool
	Gap     bool
}

// SortLink is one sort order.
type SortLink struct {
	Label   string
	Href    string
	Current bool
}

// CommonLine is "most common in this set" for one facet.
type CommonLine struct {
	Facet string
	Terms []Link
}

// GraphView is the server-rendered graph: used without JavaScript and as the
// data source of the interactive one.
type GraphView struct {
	DataURL string
	// TermsOnly draws the terms without their cases until one is
	// focused: the panel beside a long list.
	TermsOnly bool
	Groups    []GraphGroup
	Nodes     int
	Edges     int
	Matrix    Matrix
}

// Matrix is causes (rows) against symptoms (columns) with the number of
// cases that carry both.
type Matrix struct {
	Cols []Link
	Rows []MatrixRow
}

// MatrixRow is one cause and its cells, one per column.
type MatrixRow struct {
	Head  Link
	Cells []MatrixCell
}

// MatrixCell counts the cases of a cause and a symptom; Heat (1-4) shades
// it against the largest cell; Href lists those cases.
type MatrixCell struct {
	Count int
	Heat  int
	Href  string
}

// GraphGroup lists terms of one facet with the cases they link to.
type GraphGroup struct {
	Facet string
	Label string
	Terms []GraphTerm
}

// GraphTerm is a term node with the cases linked to it.
type GraphTerm struct {
	Link
	Cases []Link
}

// LibraryPage is the faceted incident list ("/").
type LibraryPage struct {
	Chrome
	Heading    string
	Facets     []FacetGroup
	Chips      []Chip
	ClearHref  string
	Cards      []CaseCard
	Pager      Pager
	Sorts      []SortLink
	Common     []CommonLine
	Graph      GraphView
	EmptyNote  string
	Suggested  []Chip // search: suggested filters (Remove is the add link)
	SearchMode bool
	Help       *SearchHelp // search without results
	Best       *BestCard   // search: the playbook section of the symptom the query names
	KindLinks  []SortLink
	FeedHref   string
	// Home is set on / without filters: the paste box, the symptoms and
	// the first five minutes, above the library.
	Home *HomeView
}

// HomeView is the on-call start of the front page.
type HomeView struct {
	StartText     string
	Start         []Link
	FirstFiveHref string
}

// DocSection is a rendered section of an incident or playbook. HTML is
// sanitised by the library loader.
type DocSection struct {
	ID    string
	Title string
	HTML  string
}

// TermLinks is one facet's terms as links, for a classification block.
type TermLinks struct {
	Facet string
	Label string
	Links []Link
}

// IncidentPage is one incident.
type IncidentPage struct {
	Chrome
	ID, Title, Summary, Organization, OrgHref, Date string
	Classification                                  []TermLinks
	Sections                                        []DocSection
	Sources                                         []SourceLink
	Playbooks                                       []Link
	Similar                                         []SimilarLink
	Checks                                          []Link
	Drills                                          []Link // drills modelled on the incident
	SourcePath                                      string
	// Provenance is the layer, edit link and last change of the file.
	Provenance Provenance
	// EnglishOnlyHead and EnglishOnlyBody mark a Korean page showing the
	// English title and summary, or the English body, for want of Korean.
	EnglishOnlyHead, EnglishOnlyBody bool
}

// SourceLink is a cited public write-up.
type SourceLink struct {
	URL, Title, Kind string
	Retrieved        string // the day it was read, formatted
	Secondary        bool
	Quote            string // verbatim, in the source's language
}

// PlaybookPage is one playbook.
type PlaybookPage struct {
	Chrome
	ID, Title, Summary string
	Symptoms           []Link
	Components         []Link
	Signals            []string
	TOC                []TOCEntry
	Sections           []DocSection
	Cases              []CaseGroup // by the route that ends in each section
	Incidents          []Link      // other incidents that link the playbook
	TriageHref         string
	// EnglishOnly marks a Korean page showing the English playbook.
	EnglishOnly bool
	// Provenance is the layer, edit link and last change of the file.
	Provenance Provenance
}

// CaseGroup is a playbook section a triage route ends in, with the
// incidents that show the route.
type CaseGroup struct {
	Route, Title, Href string
	Incidents          []Link
}

// TOCEntry is a heading in a table of contents.
type TOCEntry struct {
	ID, Title string
	Level     int
}

// PlaybookList is /playbooks.
type PlaybookList struct {
	Chrome
	Items []CaseCard
}

// TermPage is /terms/{facet}/{id}.
type TermPage struct {
	Chrome
	Facet, FacetLabel, ID, Label, LabelOther, Description string
	Category                                              Link
	Aliases                                               []string
	FilterHref                                            string
	Cards                                                 []CaseCard
	CoTerms                                               []Link
	Playbooks                                             []Link
	Children                                              []Link
	// DescriptionEnglish marks a Description shown in English on a Korean
	// page because the term has no Korean one (a layer's own term).
	DescriptionEnglish bool
}

// CausesPage groups incidents by cause category, then cause.
type CausesPage struct {
	Chrome
	Total      int
	Categories []CauseCategoryGroup
}

// CauseCategoryGroup is one category.
type CauseCategoryGroup struct {
	ID, Label, Href string
	Count           int
	Causes          []CauseGroup
}

// CauseGroup is one cause with its incidents.
type CauseGroup struct {
	ID, Label, Href string
	Incidents       []CauseRow
}

// CauseRow is an incident in the by-cause view.
type CauseRow struct {
	ID, Title, Href, Organization, Year string
}

// GraphPage is /graph.
type GraphPage struct {
	Chrome
	Chips     []Chip
	ClearHref string
	Focus     string
	Graph     GraphView
}

// SimilarLink is a similar incident with the most specific terms it shares.
type SimilarLink struct {
	Link
	Shared []string // term labels, rarest first
}

// TermsIndex is /terms: the whole vocabulary, facet by facet.
type TermsIndex struct {
	Chrome
	Facets []TermsFacet
}

// TermsFacet is one facet's terms, in groups (causes by category).
type TermsFacet struct {
	Param, Label string
	Total        int
	Groups       []TermsGroup
}

// TermsGroup is a titled part of a facet; Label is empty for a facet
// without categories.
type TermsGroup struct {
	Label, Href string
	Terms       []TermEntry
}

// TermEntry is one term: its label in the page's language, the other
// language's label beside it, and how many incidents carry it.
type TermEntry struct {
	Label, Other, Href string
	Count              int
}
