// Package answer answers a pasted text the same way behind every door (the
// web API and page, the MCP tool, the CLI): the paste with its secrets
// redacted, the triage classifier's routes, and the library entries that a
// search with the paste's most specific lines finds. An unrecognised paste
// thereby still ends in the incidents and playbook sections that hold its
// error, not in a bare "no route".
package answer

import (
	"context"
	"fmt"
	"strings"

	"casebook/internal/i18n"
	"casebook/internal/search"
	"casebook/internal/triage"
)

// MaxRelated is how many library entries an answer lists.
const MaxRelated = 6

// Searcher is the search index as answering a paste uses it.
type Searcher interface {
	Search(ctx context.Context, r search.Request) (*search.Result, error)
}

// Answer is a paste's answer: the classifier's result, with the paste as it
// may be shown, linked or logged (its secrets redacted) and how many
// secrets were taken out.
type Answer struct {
	triage.Result
	// Text is the paste after Redact; nothing else of the paste leaves
	// Paste, so a door cannot show or link the original by mistake.
	Text string `json:"-"`
	// Redacted counts the secrets the text holds as Mark: those Paste
	// replaced and those a shared link had replaced already.
	Redacted int `json:"redacted"`
	// Searched is set when the paste was prose the classifier found no
	// message in ("GPU 노드에 파드가 안 올라가요"): it is the query the
	// paste was searched with, as the search box takes it, and Found is
	// that search's result (Related lists its hits).
	Searched string         `json:"searched,omitempty"`
	Found    *search.Result `json:"-"`
}

// Paste redacts text, classifies what is left and, when s is not nil,
// fills Result.Related from a search with the paste's most specific lines
// (triage.SearchQuery), or, when the paste is prose the classifier found no
// message in, with the paste's own words as the search box takes them
// (Searched). lang is the reader's language, which the search's excerpts
// are in. The routes are the answer and the search only helps: when the
// search fails, Paste still returns the routes, with the search's error
// for the caller to log.
func Paste(ctx context.Context, cat *triage.Catalog, s Searcher, text string, lang i18n.Lang) (Answer, error) {
	clean, _ := Redact(text)
	ans := Answer{Result: cat.Classify(clean), Text: clean, Redacted: strings.Count(clean, Mark)}
	if s == nil {
		return ans, nil
	}
	q := proseQuery(clean, ans.Result)
	if q != "" {
		ans.Searched = q
	} else if q = triage.SearchQuery(clean, ans.Result); q == "" {
		return ans, nil
	}
	found, err := s.Search(ctx, search.Request{Query: q, PerPage: MaxRelated, Lang: lang})
	if err != nil {
		ans.Searched = ""
		return ans, fmt.Errorf("answer: related search: %w", err)
	}
	ans.Related = related(found)
	if ans.Searched != "" {
		ans.Found = found
	}
	return ans, nil
}

// proseQuery is the paste as a search query when the paste is what a
// person would type into the search box: no route rests on a message the
// software prints (Match is not confident), and the text is a few lines
// of words short enough for a query, none of them an error line
// (triage.Prose). "" otherwise: a log or a describe output is searched by
// its evidence lines instead.
func proseQuery(text string, res triage.Result) string {
	if res.Match == triage.MatchConfident || !triage.Prose(text) {
		return ""
	}
	q := strings.Join(strings.Fields(text), " ")
	if len(q) > search.MaxQueryBytes {
		return ""
	}
	return q
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
