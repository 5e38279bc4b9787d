package fts5

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/blevesearch/go-porterstemmer"

	"casebook/internal/library"
)

// Request is the subset of search.Request the benchmarks use.
type Request struct {
	Query   string
	Kind    string
	Filters map[library.Facet][]string
	PerPage int
}

// Result has the shape of search.Result.
type Result struct {
	Total  int
	Hits   []Hit
	Facets map[string]map[string]int
}

// Hit is one ranked document with a highlighted snippet of its body.
type Hit struct {
	ID, Title, Summary, Snippet string
	Score                       float64
}

// Search answers r. Every word (or its typo expansion) and every quoted
// phrase must match; when that finds nothing, any one may, as Casebook's
// search relaxes a query that finds nothing.
func (ix *Index) Search(ctx context.Context, r Request) (*Result, error) {
	parts := ix.parse(ctx, r.Query)
	if len(parts) == 0 {
		return &Result{Facets: map[string]map[string]int{}}, nil
	}
	run := ix.run
	if ix.tuned {
		run = ix.runTuned
	}
	res, err := run(ctx, strings.Join(parts, " AND "), r)
	if err == nil && res.Total == 0 && len(parts) > 1 {
		res, err = run(ctx, strings.Join(parts, " OR "), r)
	}
	return res, err
}

func (ix *Index) run(ctx context.Context, match string, r Request) (*Result, error) {
	where, args := filters(match, r)
	perPage := r.PerPage
	if perPage <= 0 {
		perPage = 10
	}
	conn, err := ix.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	res := &Result{Facets: map[string]map[string]int{}}
	rows, err := conn.QueryContext(ctx, `
		SELECT d.id, d.title, d.summary, snippet(docs_fts, 2, '<mark>', '</mark>', '…', 12), bm25(docs_fts, `+bm25Weights+`) AS score
		FROM docs_fts JOIN docs d ON d.rowid = docs_fts.rowid
		WHERE `+where+` ORDER BY score LIMIT ?`, append(args, perPage)...)
	if err != nil {
		return nil, fmt.Errorf("fts5: %q: %w", match, err)
	}
	for rows.Next() {
		var h Hit
		if err := rows.Scan(&h.ID, &h.Title, &h.Summary, &h.Snippet, &h.Score); err != nil {
			rows.Close()
			return nil, err
		}
		res.Hits = append(res.Hits, h)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// The total and the facet counts over every match, as the search
	// page shows them.
	rows, err = conn.QueryContext(ctx, `
		WITH m AS (SELECT docs_fts.rowid AS doc FROM docs_fts JOIN docs d ON d.rowid = docs_fts.rowid WHERE `+where+`)
		SELECT '', '', COUNT(*) FROM m
		UNION ALL
		SELECT facet, term, COUNT(*) FROM doc_terms WHERE doc IN (SELECT doc FROM m) GROUP BY facet, term`, args...)
	if err != nil {
		return nil, fmt.Errorf("fts5: facets of %q: %w", match, err)
	}
	defer rows.Close()
	for rows.Next() {
		var facet, term string
		var n int
		if err := rows.Scan(&facet, &term, &n); err != nil {
			return nil, err
		}
		if facet == "" {
			res.Total = n
			continue
		}
		if res.Facets[facet] == nil {
			res.Facets[facet] = map[string]int{}
		}
		res.Facets[facet][term] = n
	}
	return res, rows.Err()
}

// filters is the WHERE clause: the match, the kind, and each facet's
// terms. The unary + keeps SQLite on the full-text plan; a plain
// "rowid IN (…)" makes it scan the term table first, many times slower.
func filters(match string, r Request) (string, []any) {
	where := []string{"docs_fts MATCH ?"}
	args := []any{match}
	if r.Kind != "" {
		where = append(where, "d.kind = ?")
		args = append(args, r.Kind)
	}
	facets := make([]string, 0, len(r.Filters))
	for f := range r.Filters {
		facets = append(facets, string(f))
	}
	sort.Strings(facets)
	for _, f := range facets {
		terms := r.Filters[library.Facet(f)]
		if len(terms) == 0 {
			continue
		}
		where = append(where, "+docs_fts.rowid IN (SELECT doc FROM doc_terms WHERE facet = ? AND term IN (?"+strings.Repeat(", ?", len(terms)-1)+"))")
		args = append(args, f)
		for _, t := range terms {
			args = append(args, t)
		}
	}
	return strings.Join(where, " AND "), args
}

// parse turns a query into FTS5 clauses: each "quoted phrase" as a phrase,
// each word as a string (so punctuation in error messages is safe), and a
// word the index does not hold as an OR of its nearest indexed terms.
func (ix *Index) parse(ctx context.Context, q string) []string {
	q = strings.NewReplacer("“", `"`, "”", `"`).Replace(q)
	var out []string
	for i, part := range strings.Split(q, `"`) {
		if i%2 == 1 {
			if p := strings.Join(strings.Fields(part), " "); p != "" {
				out = append(out, quote(p))
			}
			continue
		}
		for _, w := range strings.Fields(part) {
			if !strings.ContainsFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
				continue
			}
			out = append(out, ix.word(ctx, w))
		}
	}
	return out
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// word is the clause of one typed word: itself, or, for a word of five or
// more letters whose stem the index does not hold, the indexed stems within
// one edit (two from eight letters), as Casebook's fuzzy matching allows.
func (ix *Index) word(ctx context.Context, w string) string {
	lw := strings.ToLower(w)
	letters := 0
	for _, r := range lw {
		if !unicode.IsLetter(r) {
			return quote(w)
		}
		letters++
	}
	if letters < 5 {
		return quote(w)
	}
	stem := porterstemmer.StemString(lw)
	if ix.vocab.has(stem) {
		return quote(w)
	}
	k := 1
	if letters >= 8 {
		k = 2
	}
	var near []string
	if ix.tuned {
		near = ix.nearTrigram(ctx, stem, k, 5)
	} else {
		near = ix.vocab.near(stem, k, 5)
	}
	if len(near) == 0 {
		return quote(w)
	}
	for i, t := range near {
		near[i] = quote(t)
	}
	return "(" + strings.Join(near, " OR ") + ")"
}

// vocabulary is the index's term list with document frequencies, read once
// at open: FTS5 has no fuzzy matching, so typo expansion is done here.
type vocabulary struct {
	docs  map[string]int
	byLen map[int][]string
}

func loadVocabulary(ctx context.Context, db *sql.DB) (*vocabulary, error) {
	rows, err := db.QueryContext(ctx, `SELECT term, doc FROM vocab`)
	if err != nil {
		return nil, fmt.Errorf("fts5: vocabulary: %w", err)
	}
	defer rows.Close()
	v := &vocabulary{docs: map[string]int{}, byLen: map[int][]string{}}
	for rows.Next() {
		var t string
		var n int
		if err := rows.Scan(&t, &n); err != nil {
			return nil, err
		}
		v.docs[t] = n
		l := len([]rune(t))
		v.byLen[l] = append(v.byLen[l], t)
	}
	return v, rows.Err()
}

func (v *vocabulary) has(t string) bool { _, ok := v.docs[t]; return ok }

// near returns up to limit terms within k edits of t, most frequent first.
func (v *vocabulary) near(t string, k, limit int) []string {
	rt := []rune(t)
	var out []string
	for l := len(rt) - k; l <= len(rt)+k; l++ {
		for _, c := range v.byLen[l] {
			if levenshtein(rt, []rune(c), k) <= k {
				out = append(out, c)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return v.docs[out[i]] > v.docs[out[j]] })
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

// levenshtein is the edit distance of a and b, or k+1 once it must exceed k.
func levenshtein(a, b []rune, k int) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			best = min(best, cur[j])
		}
		if best > k {
			return k + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
