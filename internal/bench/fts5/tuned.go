package fts5

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
)

// The tuned baseline follows SQLite's FTS5 documentation as an expert
// would apply it to this workload:
//
//   - external-content table, column weights in the table's rank
//     configuration ('rank' = bm25(10, 3, 1)) so ORDER BY rank ranks inside
//     FTS5;
//   - the top k chosen first (rowids only), and snippet() computed for
//     those k rows alone, not for every match before the sort;
//   - facet counts and the total in one GROUP BY of integer term ids over
//     a covering (doc, term_id) key, joined to the matches;
//   - filters, the kind included, as "+rowid IN (SELECT doc …)": the unary
//   - keeps the full-text plan;
//   - typos expanded through a trigram index of the vocabulary
//     (tokenize='trigram') instead of scanning every term;
//   - a 64 MiB page cache, memory-mapped reads and temp tables in memory.
const tunedSchema = `
CREATE TABLE docs (
	rowid   INTEGER PRIMARY KEY,
	id      TEXT NOT NULL UNIQUE,
	kind    TEXT NOT NULL,
	title   TEXT NOT NULL,
	summary TEXT NOT NULL,
	body    TEXT NOT NULL
);
CREATE VIRTUAL TABLE docs_fts USING fts5(title, summary, body, content='docs', content_rowid='rowid',
	tokenize='porter unicode61 remove_diacritics 2');
INSERT INTO docs_fts (docs_fts, rank) VALUES ('rank', 'bm25(10.0, 3.0, 1.0)');
CREATE TABLE doc_terms (
	facet TEXT NOT NULL,
	term  TEXT NOT NULL,
	doc   INTEGER NOT NULL,
	PRIMARY KEY (facet, term, doc)
) WITHOUT ROWID;
CREATE INDEX doc_terms_doc ON doc_terms (doc, facet, term);
CREATE VIRTUAL TABLE vocab USING fts5vocab(docs_fts, 'row');
CREATE VIRTUAL TABLE vocab_tri USING fts5(term, tokenize='trigram');
CREATE TABLE terms (id INTEGER PRIMARY KEY, facet TEXT NOT NULL, term TEXT NOT NULL, UNIQUE (facet, term));
CREATE TABLE doc_term_ids (term_id INTEGER NOT NULL, doc INTEGER NOT NULL, PRIMARY KEY (doc, term_id)) WITHOUT ROWID;
CREATE INDEX doc_term_ids_term ON doc_term_ids (term_id, doc);
`

// fillTuned indexes the vocabulary by trigrams and updates the planner's
// statistics.
func fillTuned(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO vocab_tri (term) SELECT term FROM vocab WHERE length(term) >= 4`); err != nil {
		return fmt.Errorf("fts5: trigram vocabulary: %w", err)
	}
	// Facets are counted by integer term id: grouping small integers is
	// two to three times faster than grouping (facet, term) strings.
	for _, q := range []string{
		`INSERT INTO terms (facet, term) SELECT DISTINCT facet, term FROM doc_terms`,
		`INSERT INTO doc_term_ids (term_id, doc) SELECT terms.id, doc FROM doc_terms JOIN terms USING (facet, term)`,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("fts5: term ids: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, `ANALYZE`); err != nil {
		return fmt.Errorf("fts5: analyze: %w", err)
	}
	return nil
}

// nearTrigram finds indexed terms within k edits of t among those sharing
// a trigram with it, most frequent first.
func (ix *Index) nearTrigram(ctx context.Context, t string, k, limit int) []string {
	r := []rune(t)
	var tris []string
	for i := 0; i+3 <= len(r); i++ {
		tris = append(tris, quote(string(r[i:i+3])))
	}
	if len(tris) == 0 {
		return nil
	}
	rows, err := ix.db.QueryContext(ctx, `SELECT term FROM vocab_tri WHERE vocab_tri MATCH ? ORDER BY rank LIMIT 200`, strings.Join(tris, " OR "))
	if err != nil {
		return nil
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var c string
		if rows.Scan(&c) == nil && levenshtein(r, []rune(c), k) <= k {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return ix.vocab.docs[out[i]] > ix.vocab.docs[out[j]] })
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

// runTuned answers one match expression: top k rowids by rank, snippets of
// those, then facet counts and the total in one grouped join.
func (ix *Index) runTuned(ctx context.Context, match string, r Request) (*Result, error) {
	where, args := ix.tunedFilters(match, r)
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
	rows, err := conn.QueryContext(ctx, `SELECT rowid FROM docs_fts WHERE `+where+` ORDER BY rank LIMIT ?`, append(args, perPage)...)
	if err != nil {
		return nil, fmt.Errorf("fts5: %q: %w", match, err)
	}
	var top []any
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		top = append(top, id)
	}
	rows.Close()
	if len(top) > 0 {
		rows, err = conn.QueryContext(ctx, `
			SELECT d.id, d.title, d.summary, snippet(docs_fts, 2, '<mark>', '</mark>', '…', 12), rank
			FROM docs_fts JOIN docs d ON d.rowid = docs_fts.rowid
			WHERE docs_fts MATCH ? AND docs_fts.rowid IN (?`+strings.Repeat(", ?", len(top)-1)+`) ORDER BY rank`,
			append([]any{match}, top...)...)
		if err != nil {
			return nil, fmt.Errorf("fts5: snippets of %q: %w", match, err)
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
	}
	rows, err = conn.QueryContext(ctx, `
		SELECT t.term_id, COUNT(*) FROM docs_fts JOIN doc_term_ids t ON t.doc = docs_fts.rowid
		WHERE `+where+` GROUP BY t.term_id`, args...)
	if err != nil {
		return nil, fmt.Errorf("fts5: facets of %q: %w", match, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			return nil, err
		}
		ft := ix.termOf[id]
		facet, term := ft[0], ft[1]
		if res.Facets[facet] == nil {
			res.Facets[facet] = map[string]int{}
		}
		res.Facets[facet][term] = n
		if facet == "kind" {
			res.Total += n
		}
	}
	return res, rows.Err()
}

// tunedFilters is filters with the kind as one more term filter, so no
// join to docs is needed to apply it.
func (ix *Index) tunedFilters(match string, r Request) (string, []any) {
	where := []string{"docs_fts MATCH ?"}
	args := []any{match}
	facets := make([]string, 0, len(r.Filters)+1)
	terms := map[string][]string{}
	for f, v := range r.Filters {
		facets = append(facets, string(f))
		terms[string(f)] = v
	}
	if r.Kind != "" {
		facets = append(facets, "kind")
		terms["kind"] = []string{r.Kind}
	}
	sort.Strings(facets)
	for _, f := range facets {
		ts := terms[f]
		if len(ts) == 0 {
			continue
		}
		var ids []any
		for _, t := range ts {
			if id, ok := ix.termID[[2]string{f, t}]; ok {
				ids = append(ids, id)
			}
		}
		if len(ids) == 0 {
			ids = append(ids, -1) // no document carries it
		}
		where = append(where, "+docs_fts.rowid IN (SELECT doc FROM doc_term_ids WHERE term_id IN (?"+strings.Repeat(", ?", len(ids)-1)+"))")
		args = append(args, ids...)
	}
	return strings.Join(where, " AND "), args
}

// loadTermIDs reads the term table of a tuned index.
func (ix *Index) loadTermIDs(ctx context.Context) error {
	rows, err := ix.db.QueryContext(ctx, `SELECT id, facet, term FROM terms`)
	if err != nil {
		return fmt.Errorf("fts5: terms: %w", err)
	}
	defer rows.Close()
	ix.termOf, ix.termID = map[int64][2]string{}, map[[2]string]int64{}
	for rows.Next() {
		var id int64
		var f, t string
		if err := rows.Scan(&id, &f, &t); err != nil {
			return err
		}
		ix.termOf[id], ix.termID[[2]string{f, t}] = [2]string{f, t}, id
	}
	return rows.Err()
}
