// Package selection parses what a request selects from the library —
// taxonomy filters, organisations, years, a query, a kind, a sort order, a
// page and a language — from URL parameters. The web pages and JSON API,
// the MCP tools (which render their arguments as the same parameters) and
// the export command all call Parse, so a value is accepted or refused, with
// the same message, at every door.
package selection

import (
	"errors"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"casebook/internal/i18n"
	"casebook/internal/library"
	"casebook/internal/search"
	"casebook/internal/store"
)

// Selection is one parsed request. The zero Filter selects everything.
type Selection struct {
	Filter  store.Filter
	Query   string
	Kind    string // "" (both), KindIncident or KindPlaybook
	Sort    string // store.SortNewest, SortOldest or SortTitle
	Page    int    // 1-based
	PerPage int
	Lang    i18n.Lang // "" (negotiated from the cookie or the browser), i18n.EN or i18n.KO
}

// Kinds a selection can be limited to; "all" is accepted as "".
const (
	KindIncident = "incident"
	KindPlaybook = "playbook"
)

// MaxQuery bounds the query text, in bytes: a longer text is a paste, which
// the classifier (triage) reads, not the search. The limits are the
// search's, so a selection that parses is one the index runs.
const MaxQuery = search.MaxQueryBytes

// FacetParam names the parameter of one taxonomy facet filter.
type FacetParam struct {
	Param string
	Facet library.Facet
}

// FacetParams are the taxonomy filters, an API contract: cause_category,
// cause, component, symptom, factor, domain.
var FacetParams = []FacetParam{
	{"cause_category", library.FacetCauseCategory},
	{"cause", library.FacetCause},
	{"component", library.FacetComponent},
	{"symptom", library.FacetSymptom},
	{"factor", library.FacetFactor},
	{"domain", library.FacetDomain},
}

// FilterParams are every filter parameter: the facets, then org, year and
// layer (the Source facet: the public library or a team's layer).
var FilterParams = func() []string {
	var out []string
	for _, fp := range FacetParams {
		out = append(out, fp.Param)
	}
	return append(out, "org", "year", "layer")
}()

// ErrInvalid is what every refused selection wraps: the caller's mistake
// (HTTP 400, an MCP tool error, a CLI usage error).
var ErrInvalid = errors.New("invalid selection")

// Error is a refused selection with the message that names the fix, a
// catalogue message so each door says it in its reader's language.
type Error struct{ Msg i18n.Msg }

func (e *Error) Error() string { return e.Msg.English() }

// Message is the refusal as a catalogue message (i18n.Localized).
func (e *Error) Message() i18n.Msg { return e.Msg }

// Unwrap makes errors.Is(err, ErrInvalid) hold.
func (e *Error) Unwrap() error { return ErrInvalid }

func invalid(key string, args ...any) error { return &Error{i18n.M(key, args...)} }

// Paging is the page size a door uses when the request names none, and the
// largest it allows.
type Paging struct {
	DefaultPerPage int
	MaxPerPage     int
}

// Parse reads a whole selection from q. orgs maps the library's
// organisation slugs to names (content.Orgs); an organisation may be given
// by slug or by name. layers are the names of the library's layers.
// Unknown parameters are ignored.
func Parse(q url.Values, tax *library.Taxonomy, orgs map[string]string, layers []string, p Paging) (Selection, error) {
	s := Selection{Sort: store.SortNewest, Page: 1, PerPage: p.DefaultPerPage}
	var err error
	if s.Filter, err = ParseFilter(q, tax, orgs, layers); err != nil {
		return s, err
	}
	switch v := q.Get("sort"); v {
	case "":
	case store.SortNewest, store.SortOldest, store.SortTitle:
		s.Sort = v
	default:
		return s, invalid("select.sort", "value", i18n.Quote(v))
	}
	if s.PerPage, err = intParam(q, "per_page", p.DefaultPerPage, 1, min(p.MaxPerPage, search.MaxPerPage)); err != nil {
		return s, err
	}
	if s.Page, err = intParam(q, "page", 1, 1, search.LastPage(s.PerPage)); err != nil {
		return s, err
	}
	s.Query = strings.TrimSpace(q.Get("q"))
	if len(s.Query) > MaxQuery {
		return s, invalid("select.query_long", "bytes", strconv.Itoa(len(s.Query)), "max", strconv.Itoa(MaxQuery))
	}
	switch k := q.Get("kind"); k {
	case "", "all":
	case KindIncident, KindPlaybook:
		s.Kind = k
	default:
		return s, invalid("select.kind", "value", i18n.Quote(k))
	}
	switch l := i18n.Lang(q.Get("lang")); {
	case l == "":
	case slices.Contains(i18n.Langs, l):
		s.Lang = l
	default:
		// The web's language negotiation refuses it with the same words.
		return s, &Error{(&i18n.InvalidLangError{Value: string(l)}).Message()}
	}
	return s, nil
}

// ParseFilter reads only the filters: repeated or comma-separated values,
// OR within a parameter, AND across them. An unknown value is an error
// naming the nearest valid one, so a mistyped link fails loudly instead of
// silently selecting everything.
func ParseFilter(q url.Values, tax *library.Taxonomy, orgs map[string]string, layers []string) (store.Filter, error) {
	f := store.Filter{Terms: map[library.Facet][]string{}}
	for _, fp := range FacetParams {
		for _, v := range splitValues(q[fp.Param]) {
			if _, ok := tax.Term(fp.Facet, v); !ok {
				return f, Unknown(fp.Param, v, tax.IDs(fp.Facet))
			}
			f.Terms[fp.Facet] = appendNew(f.Terms[fp.Facet], v)
		}
	}
	for _, v := range splitValues(q["org"]) {
		slug := library.Slug(v)
		if _, ok := orgs[slug]; !ok {
			return f, Unknown("org", v, slugs(orgs))
		}
		f.Orgs = appendNew(f.Orgs, slug)
	}
	for _, v := range splitValues(q["year"]) {
		y, err := strconv.Atoi(v)
		if err != nil || y < 1970 || y > 2100 {
			return f, invalid("select.year", "value", i18n.Quote(v))
		}
		if !slices.Contains(f.Years, y) {
			f.Years = append(f.Years, y)
		}
	}
	for _, v := range splitValues(q["layer"]) {
		if !slices.Contains(layers, v) {
			return f, Unknown("layer", v, layers)
		}
		f.Layers = appendNew(f.Layers, v)
	}
	return f, nil
}

// Values renders a selection back into parameters, leaving out what equals
// the defaults (newest first, page 1, defaultPerPage, no language), so
// links stay short and a parsed link renders back the same.
func (s Selection) Values(defaultPerPage int) url.Values {
	v := FilterValues(s.Filter)
	if s.Query != "" {
		v.Set("q", s.Query)
	}
	if s.Kind != "" {
		v.Set("kind", s.Kind)
	}
	if s.Sort != "" && s.Sort != store.SortNewest {
		v.Set("sort", s.Sort)
	}
	if s.PerPage != 0 && s.PerPage != defaultPerPage {
		v.Set("per_page", strconv.Itoa(s.PerPage))
	}
	if s.Page > 1 {
		v.Set("page", strconv.Itoa(s.Page))
	}
	if s.Lang != "" {
		v.Set("lang", string(s.Lang))
	}
	return v
}

// Encode is Values(defaultPerPage).Encode() without the map: the search
// page renders a link for every facet value of the result (hundreds per
// page), and building and sorting a url.Values for each was a tenth of the
// page's CPU. The output is byte for byte the same (keys sorted, the values
// of a key in order, each escaped by url.QueryEscape).
func (s Selection) Encode(defaultPerPage int) string {
	var buf [16]param
	ps := buf[:0]
	for _, fp := range FacetParams {
		for _, t := range s.Filter.Terms[fp.Facet] {
			ps = append(ps, param{fp.Param, t})
		}
	}
	for _, o := range s.Filter.Orgs {
		ps = append(ps, param{"org", o})
	}
	for _, y := range s.Filter.Years {
		ps = append(ps, param{"year", strconv.Itoa(y)})
	}
	for _, l := range s.Filter.Layers {
		ps = append(ps, param{"layer", l})
	}
	if s.Query != "" {
		ps = append(ps, param{"q", s.Query})
	}
	if s.Kind != "" {
		ps = append(ps, param{"kind", s.Kind})
	}
	if s.Sort != "" && s.Sort != store.SortNewest {
		ps = append(ps, param{"sort", s.Sort})
	}
	if s.PerPage != 0 && s.PerPage != defaultPerPage {
		ps = append(ps, param{"per_page", strconv.Itoa(s.PerPage)})
	}
	if s.Page > 1 {
		ps = append(ps, param{"page", strconv.Itoa(s.Page)})
	}
	if s.Lang != "" {
		ps = append(ps, param{"lang", string(s.Lang)})
	}
	slices.SortStableFunc(ps, func(a, b param) int { return strings.Compare(a.key, b.key) })
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(url.QueryEscape(p.key))
		b.WriteByte('=')
		b.WriteString(url.QueryEscape(p.value))
	}
	return b.String()
}

type param struct{ key, value string }

// FilterValues renders a filter as parameters.
func FilterValues(f store.Filter) url.Values {
	v := url.Values{}
	for _, fp := range FacetParams {
		for _, t := range f.Terms[fp.Facet] {
			v.Add(fp.Param, t)
		}
	}
	for _, o := range f.Orgs {
		v.Add("org", o)
	}
	for _, y := range f.Years {
		v.Add("year", strconv.Itoa(y))
	}
	for _, l := range f.Layers {
		v.Add("layer", l)
	}
	return v
}

func intParam(q url.Values, name string, def, lo, hi int) (int, error) {
	s := q.Get(name)
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		return 0, invalid("select.number", "name", name, "value", i18n.Quote(s), "lo", strconv.Itoa(lo), "hi", strconv.Itoa(hi))
	}
	return n, nil
}

// splitValues accepts both repeated parameters and comma-separated lists.
func splitValues(vs []string) []string {
	var out []string
	for _, v := range vs {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

func appendNew(list []string, v string) []string {
	if slices.Contains(list, v) {
		return list
	}
	return append(list, v)
}

func slugs(orgs map[string]string) []string {
	out := make([]string, 0, len(orgs))
	for s := range orgs {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// ParseFocus validates a graph focus, "facet:term", and
// returns it with the facet's canonical name; "" is no focus.
func ParseFocus(s string, tax *library.Taxonomy) (string, error) {
	if s == "" {
		return "", nil
	}
	f, id, ok := strings.Cut(s, ":")
	facet, fok := library.ParseFacet(f)
	if !ok || !fok {
		return "", invalid("select.focus", "value", i18n.Quote(s))
	}
	if _, ok := tax.Term(facet, id); !ok {
		return "", Unknown(string(facet), id, tax.IDs(facet))
	}
	return string(facet) + ":" + id, nil
}

// Unknown is the error for a value that is not among valid, naming the
// nearest one (or all of them, when they are few).
func Unknown(param, v string, valid []string) error {
	if n := library.Nearest(v, valid); n != "" {
		return invalid("select.unknown_near", "param", param, "value", i18n.Quote(v), "near", i18n.Quote(n))
	}
	if len(valid) > 30 {
		return invalid("select.unknown_see", "param", param, "value", i18n.Quote(v))
	}
	return invalid("select.unknown_list", "param", param, "value", i18n.Quote(v), "valid", strings.Join(valid, ", "))
}

// SearchRequest is the selection as a query of the search index, which
// knows organisations by the same slugs.
func (s Selection) SearchRequest() search.Request {
	req := search.Request{Query: s.Query, Kind: s.Kind, Filters: map[library.Facet][]string{}, Org: s.Filter.Orgs,
		Year: s.Filter.Years, Layer: s.Filter.Layers, Page: s.Page, PerPage: s.PerPage}
	for f, v := range s.Filter.Terms {
		if len(v) > 0 {
			req.Filters[f] = v
		}
	}
	return req
}
