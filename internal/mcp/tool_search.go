package mcp

import (
	"context"
	"html"
	"net/url"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"casebook/internal/content"
	"casebook/internal/search"
	"casebook/internal/selection"
)

// SearchInput is a free-text search with optional filters.
type SearchInput struct {
	Query   string   `json:"query" jsonschema:"what to look for: symptoms, error strings, component or organisation names; English or Korean; \"quotes\" for a phrase"`
	Filters *Filters `json:"filters,omitempty" jsonschema:"narrow the results by taxonomy term ids (see vocab), organisation or year"`
	Kind    string   `json:"kind,omitempty" jsonschema:"incident (the default), playbook, or all"`
	Limit   int      `json:"limit,omitempty" jsonschema:"how many results to return; default 10"`
	Lang    string   `json:"lang,omitempty"`
}

// SearchOutput is the best matches and what else the query suggests.
type SearchOutput struct {
	Query            string       `json:"query"`
	Total            int          `json:"total" jsonschema:"matches in the whole library; only the first limit are listed"`
	Hits             []SearchHit  `json:"hits"`
	SuggestedFilters []TermRef    `json:"suggested_filters" jsonschema:"taxonomy terms the query names and that are not filters yet; pass them as filters to narrow"`
	Lang             string       `json:"lang" jsonschema:"echoes the request; hits carry title and title_ko, summary and summary_ko"`
	Best             *search.Best `json:"best,omitempty" jsonschema:"the playbook section that handles the symptom the query names (with kind playbook or all); its playbook is the first hit"`
}

// SearchHit is one matching incident or playbook.
type SearchHit struct {
	ID           string   `json:"id"`
	Kind         string   `json:"kind"`
	Title        string   `json:"title"`
	Summary      string   `json:"summary"`
	TitleKo      string   `json:"title_ko,omitempty"`
	SummaryKo    string   `json:"summary_ko,omitempty"`
	URL          string   `json:"url"`
	Score        float64  `json:"score"`
	Organization string   `json:"organization,omitempty"`
	Date         string   `json:"date,omitempty"`
	Symptoms     []string `json:"symptoms,omitempty"`
	Causes       []string `json:"causes,omitempty"`
	Components   []string `json:"components,omitempty"`
	Excerpts     []string `json:"excerpts,omitempty" jsonschema:"where the query matched, matched words in **bold**"`
}

const (
	defaultLimit = 10
	maxLimit     = 25
	maxExcerpts  = 3
)

var searchTool = toolSpec[SearchInput]{
	name:    "search_incidents",
	title:   "Search incidents",
	metered: true,
	description: "Use to find past incidents (or playbooks) by free text: a symptom, an error string, a component, an organisation. " +
		"Understands English and Korean and taxonomy aliases, ranks by relevance and returns excerpts showing where each matched, " +
		"plus suggested taxonomy filters. Use list_incidents instead when you only have filters; get_incident for the full write-up.",
	tweak: func(p map[string]*jsonschema.Schema) {
		p["query"].MinLength, p["query"].MaxLength = ptr(1), ptr(selection.MaxQuery)
		enum(p, "kind", "incident", "playbook", "all")
		between(p, "limit", 1, maxLimit)
	},
}

func (t *tools) search(ctx context.Context, c *content.Content, _ *sdk.CallToolRequest, in SearchInput) (SearchOutput, error) {
	lang, err := toolLang(in.Lang)
	if err != nil {
		return SearchOutput{}, err
	}
	if strings.TrimSpace(in.Query) == "" {
		return SearchOutput{}, badArg("query is empty; to list incidents by filters alone use list_incidents")
	}
	idx := c.Search
	if idx == nil {
		return SearchOutput{}, badArg("full-text search is not available on this server; use list_incidents with filters (vocab finds them)")
	}
	kind := in.Kind
	if kind == "" {
		kind = selection.KindIncident
	}
	args := url.Values{"q": {in.Query}, "kind": {kind}}
	if in.Limit != 0 {
		args.Set("per_page", strconv.Itoa(in.Limit))
	}
	sel, err := parseSelection(c, in.Filters, args, selection.Paging{DefaultPerPage: defaultLimit, MaxPerPage: maxLimit})
	if err != nil {
		return SearchOutput{}, err
	}
	q := sel.Query
	req := sel.SearchRequest()
	req.Lang = lang // excerpts in the tool's language, as on the search page
	res, err := idx.Search(ctx, req)
	if err != nil {
		return SearchOutput{}, err
	}
	out := SearchOutput{Query: q, Total: res.Total, Hits: make([]SearchHit, 0, len(res.Hits)), SuggestedFilters: []TermRef{}, Lang: string(lang), Best: res.Best}
	for _, h := range res.Hits {
		hit := SearchHit{ID: h.ID, Kind: h.Kind, Title: h.Title, Summary: h.Summary, Score: h.Score, Excerpts: excerpts(h)}
		if h.Kind == search.KindPlaybook {
			hit.URL = "/playbooks/" + h.ID
			if pb, err := c.Store.Playbook(ctx, h.ID); err == nil && pb.Ko != nil {
				hit.TitleKo, hit.SummaryKo = pb.Ko.Title, pb.Ko.Summary
			}
		} else {
			hit.URL = "/incidents/" + h.ID
			if inc, err := c.Store.Incident(ctx, h.ID); err == nil {
				hit.Organization, hit.Date, hit.Symptoms, hit.Causes, hit.Components = inc.Organization, inc.Date, inc.Symptoms, inc.Causes, inc.Components
				hit.TitleKo, hit.SummaryKo = inc.TitleKo, inc.SummaryKo
			}
		}
		out.Hits = append(out.Hits, hit)
	}
	for _, s := range res.SuggestedFilters {
		tr := TermRef{Facet: string(s.Facet), Term: s.Term, Label: s.Label}
		if term, ok := c.Taxonomy.Term(s.Facet, s.Term); ok {
			tr.LabelKo = term.LabelKo
		}
		out.SuggestedFilters = append(out.SuggestedFilters, tr)
	}
	return out, nil
}

// excerpts turns a hit's first excerpts (in the order every door shows
// them) into plain text for a model: <mark> becomes bold, entities are
// decoded.
func excerpts(h search.Hit) []string {
	var out []string
	for _, e := range h.Excerpts(maxExcerpts) {
		f := strings.NewReplacer("<mark>", "**", "</mark>", "**").Replace(e.HTML)
		out = append(out, html.UnescapeString(f))
	}
	return out
}
