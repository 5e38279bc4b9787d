// Package answer answers a pasted text the same way behind every door (the
// web API and page, the MCP tool, the CLI): the triage classifier's routes,
// and the library entries that a search with the paste's most specific
// lines finds. An unrecognised paste thereby still ends in the incidents and
// playbook sections that hold its error, not in a bare "no route".
package answer

import (
	"context"
	"fmt"
	"strings"

	"casebook/internal/search"
	"casebook/internal/triage"
)

// MaxRelated is how many library entries an answer lists.
const MaxRelated = 6

// Searcher is the search index as answering a paste uses it.
type Searcher interface {
	Search(ctx context.Context, r search.Request) (*search.Result, error)
}

// Paste classifies text and, when s is not nil, fills Result.Related from
// a search with the paste's most specific lines (triage.SearchQuery). The
// routes are the answer and the search only helps: when the search fails,
// Paste still returns the routes, with the search's error for the caller to
// log.
func Paste(ctx context.Context, cat *triage.Catalog, s Searcher, text string) (triage.Result, error) {
	res := cat.Classify(text)
	if s == nil {
		return res, nil
	}
	q := triage.SearchQuery(text, res)
	if q == "" {
		return res, nil
	}
	found, err := s.Search(ctx, search.Request{Query: q, PerPage: MaxRelated})
	if err != nil {
		return res, fmt.Errorf("answer: related search: %w", err)
	}
	res.Related = related(found)
	return res, nil
}

// related turns search hits into links: an incident page, or a playbook at
// the section whose text matched.
func related(found *search.Result) []triage.Related {
	out := []triage.Related{}
	for _, h := range found.Hits {
		r := triage.Related{ID: h.ID, Kind: h.Kind, Title: h.Title}
		switch h.Kind {
		case search.KindPlaybook:
			r.URL = "/playbooks/" + h.ID + section(h.Fragments)
		default:
			r.URL = "/incidents/" + h.ID
		}
		out = append(out, r)
		if len(out) == MaxRelated {
			break
		}
	}
	return out
}

// section picks the playbook section a hit's fragments came from ("#anchor"
// keys), preferring the one with most matches; "" when the match was in the
// title or summary.
func section(frags map[string][]string) string {
	best, n := "", 0
	for k, v := range frags {
		if strings.HasPrefix(k, "#") && (len(v) > n || len(v) == n && k < best) {
			best, n = k, len(v)
		}
	}
	return best
}
