// Package fts5 is the baseline Casebook's search is measured against: the
// same documents in an SQLite FTS5 table (modernc.org/sqlite, porter
// unicode61 tokenizer, bm25 ranking), answering the same requests with the
// same result shape — top hits with a highlighted snippet, the total, and
// counts of every facet over the whole result set. It exists only for the
// benchmarks; nothing in the server uses it.
package fts5

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"casebook/internal/library"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Column weights for bm25(): title, summary, body. They mirror the
// proportions of the bleve field boosts (title 3, summary 1.5, body 1).
const bm25Weights = "10.0, 3.0, 1.0"

const schema = `
CREATE TABLE docs (
	rowid   INTEGER PRIMARY KEY,
	id      TEXT NOT NULL UNIQUE,
	kind    TEXT NOT NULL,
	title   TEXT NOT NULL,
	summary TEXT NOT NULL,
	body    TEXT NOT NULL
);
CREATE VIRTUAL TABLE docs_fts USING fts5(title, summary, body, content='docs', content_rowid='rowid',
	tokenize='porter unicode61');
CREATE TABLE doc_terms (
	facet TEXT NOT NULL,
	term  TEXT NOT NULL,
	doc   INTEGER NOT NULL,
	PRIMARY KEY (facet, term, doc)
) WITHOUT ROWID;
CREATE INDEX doc_terms_doc ON doc_terms (doc, facet, term);
CREATE VIRTUAL TABLE vocab USING fts5vocab(docs_fts, 'row');
`

// Index is an FTS5 database of one library.
type Index struct {
	db    *sql.DB
	vocab *vocabulary
	tuned bool
	// Tuned indexes: the term table, both ways.
	termOf map[int64][2]string
	termID map[[2]string]int64
}

// Build writes the library into a new database at path and opens it: the
// plain baseline, written as a first version would be.
func Build(ctx context.Context, path string, lib *library.Library) (*Index, error) {
	return build(ctx, path, lib, false)
}

// BuildTuned is the baseline as an FTS5 expert writes it (see tuned.go).
func BuildTuned(ctx context.Context, path string, lib *library.Library) (*Index, error) {
	return build(ctx, path, lib, true)
}

func build(ctx context.Context, path string, lib *library.Library, tuned bool) (*Index, error) {
	dsn := "file:" + path + "?_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)"
	if tuned {
		dsn += "&_pragma=cache_size(-65536)&_pragma=mmap_size(268435456)&_pragma=temp_store(MEMORY)"
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("fts5: %w", err)
	}
	if err := fill(ctx, db, lib, tuned); err != nil {
		db.Close()
		return nil, err
	}
	ix := &Index{db: db, tuned: tuned}
	if ix.vocab, err = loadVocabulary(ctx, db); err != nil {
		db.Close()
		return nil, err
	}
	if tuned {
		if err := ix.loadTermIDs(ctx); err != nil {
			db.Close()
			return nil, err
		}
	}
	return ix, nil
}

// Close closes the database.
func (ix *Index) Close() error { return ix.db.Close() }

func fill(ctx context.Context, db *sql.DB, lib *library.Library, tuned bool) error {
	ddl := schema
	if tuned {
		ddl = tunedSchema
	}
	if _, err := db.ExecContext(ctx, ddl); err != nil {
		return fmt.Errorf("fts5: schema: %w", err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	insDoc, err := tx.PrepareContext(ctx, `INSERT INTO docs (rowid, id, kind, title, summary, body) VALUES (?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	insFTS, err := tx.PrepareContext(ctx, `INSERT INTO docs_fts (rowid, title, summary, body) VALUES (?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	insTerm, err := tx.PrepareContext(ctx, `INSERT OR IGNORE INTO doc_terms (facet, term, doc) VALUES (?, ?, ?)`)
	if err != nil {
		return err
	}
	row := 0
	add := func(id, kind, title, summary, body string, terms [][2]string) error {
		row++
		if _, err := insDoc.ExecContext(ctx, row, id, kind, title, summary, body); err != nil {
			return fmt.Errorf("fts5: insert %s: %w", id, err)
		}
		if _, err := insFTS.ExecContext(ctx, row, title, summary, body); err != nil {
			return fmt.Errorf("fts5: index %s: %w", id, err)
		}
		terms = append(terms, [2]string{"kind", kind})
		for _, t := range terms {
			if _, err := insTerm.ExecContext(ctx, t[0], t[1], row); err != nil {
				return fmt.Errorf("fts5: terms of %s: %w", id, err)
			}
		}
		return nil
	}
	tax := lib.Taxonomy
	for _, in := range lib.Incidents {
		var body strings.Builder
		var terms [][2]string
		for _, s := range in.FullSections() {
			body.WriteString(s.Text)
			body.WriteByte('\n')
		}
		fmt.Fprintf(&body, "%s\n%s\n%s\n", in.Trigger, in.Detection, in.Organization)
		for _, s := range in.Sources {
			body.WriteString(s.Title + "\n")
		}
		for _, f := range []library.Facet{library.FacetCause, library.FacetComponent, library.FacetSymptom, library.FacetFactor, library.FacetDomain} {
			for _, id := range in.Terms(f) {
				terms = append(terms, [2]string{string(f), id})
				body.WriteString(tax.Label(f, id) + "\n")
				if t, ok := tax.Term(f, id); ok && t.Category != "" {
					terms = append(terms, [2]string{string(library.FacetCauseCategory), t.Category})
				}
			}
		}
		terms = append(terms, [2]string{"org", in.Organization}, [2]string{"year", strconv.Itoa(in.Year)})
		if err := add(in.ID, "incident", in.Title, in.Summary, body.String(), terms); err != nil {
			return err
		}
	}
	for _, pb := range lib.Playbooks {
		var body strings.Builder
		var terms [][2]string
		body.WriteString(strings.Join(pb.Signals, "\n") + "\n")
		for _, s := range pb.Sections {
			body.WriteString(s.Text + "\n")
		}
		for _, id := range pb.Symptoms {
			terms = append(terms, [2]string{string(library.FacetSymptom), id})
			body.WriteString(tax.Label(library.FacetSymptom, id) + "\n")
		}
		for _, id := range pb.Components {
			terms = append(terms, [2]string{string(library.FacetComponent), id})
			body.WriteString(tax.Label(library.FacetComponent, id) + "\n")
		}
		if err := add(pb.ID, "playbook", pb.Title, pb.Summary, body.String(), terms); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO docs_fts (docs_fts) VALUES ('optimize')`); err != nil {
		return fmt.Errorf("fts5: optimize: %w", err)
	}
	if tuned {
		if err := fillTuned(ctx, tx); err != nil {
			return err
		}
	}
	return tx.Commit()
}
