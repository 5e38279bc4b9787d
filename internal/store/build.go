package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"casebook/internal/library"
)

// tempPrefix names a read model being built; Build renames it when done.
const tempPrefix = "casebook-tmp-"

// Build writes a fresh read model for lib into dir and opens it. The file is
// written under a temporary name and renamed into place only when complete,
// so a crash mid-build leaves nothing that Open would trust.
func Build(ctx context.Context, dir string, lib *library.Library, problems []library.Problem) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("store: data dir: %w", err)
	}
	tmp, err := os.CreateTemp(dir, tempPrefix+"*.db")
	if err != nil {
		return nil, fmt.Errorf("store: temp file: %w", err)
	}
	tmpPath := tmp.Name()
	tmp.Close()
	cleanup := func() {
		for _, suffix := range []string{"", "-wal", "-shm"} {
			os.Remove(tmpPath + suffix)
		}
	}
	db, err := openBuildDB(tmpPath)
	if err != nil {
		cleanup()
		return nil, err
	}
	// One connection: the pragmas above are per connection, and the
	// build is one transaction anyway.
	db.SetMaxOpenConns(1)
	if err := fill(ctx, db, lib, problems); err != nil {
		db.Close()
		cleanup()
		return nil, err
	}
	// Table statistics let SQLite plan the joins on incident_terms well: without
	// them the term links behind the library page's graph read every incident
	// row (position sits after the large sections column) and took seconds at
	// 10,000 incidents; with them they take a fraction of that.
	if _, err := db.ExecContext(ctx, `ANALYZE`); err != nil {
		db.Close()
		cleanup()
		return nil, fmt.Errorf("store: analyze: %w", err)
	}
	if err := db.Close(); err != nil {
		cleanup()
		return nil, fmt.Errorf("store: close: %w", err)
	}
	// The build wrote without syncing; one sync before the rename keeps a
	// crash from leaving a renamed file whose pages never reached the disk.
	if err := syncFile(tmpPath); err != nil {
		cleanup()
		return nil, fmt.Errorf("store: sync: %w", err)
	}
	final := fileName(dir, lib.Hash)
	for _, suffix := range []string{"-wal", "-shm"} {
		os.Remove(final + suffix)
	}
	if err := os.Rename(tmpPath, final); err != nil {
		cleanup()
		return nil, fmt.Errorf("store: rename: %w", err)
	}
	cleanup()
	return open(ctx, dir, lib.Hash, false)
}

func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// fill writes the whole library in one transaction.
func fill(ctx context.Context, db *sql.DB, lib *library.Library, problems []library.Problem) error {
	if err := migrate(ctx, db); err != nil {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: begin: %w", err)
	}
	defer tx.Rollback()
	w := &writer{tx: tx, ctx: ctx}
	w.terms(lib.Taxonomy)
	w.playbooks(lib.Playbooks)
	w.incidents(lib)
	for _, p := range problems {
		w.exec(`INSERT INTO problems (path, line, msg, layer, todo) VALUES (?, ?, ?, ?, ?)`, p.Path, p.Line, p.Msg, p.Layer, p.Todo)
	}
	w.exec(`INSERT INTO meta (key, value) VALUES ('content_hash', ?), ('complete', '1')`, lib.Hash)
	if w.err != nil {
		return w.err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	return nil
}

// writer keeps the first error so the fill code reads as a plain sequence.
// It prepares each statement once: the same few INSERTs run hundreds of
// thousands of times for a large library, and preparing them anew each
// time was a third of the build.
type writer struct {
	tx    *sql.Tx
	ctx   context.Context
	err   error
	stmts map[string]*sql.Stmt
}

func (w *writer) exec(q string, args ...any) {
	if w.err != nil {
		return
	}
	st, ok := w.stmts[q]
	if !ok {
		var err error
		if st, err = w.tx.PrepareContext(w.ctx, q); err != nil {
			w.err = fmt.Errorf("store: prepare %s: %w", strings.Fields(q)[2], err)
			return
		}
		if w.stmts == nil {
			w.stmts = map[string]*sql.Stmt{}
		}
		w.stmts[q] = st
	}
	if _, err := st.ExecContext(w.ctx, args...); err != nil {
		w.err = fmt.Errorf("store: %s: %w", strings.Fields(q)[2], err)
	}
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func (w *writer) terms(tax *library.Taxonomy) {
	for _, f := range library.Facets {
		for i, t := range tax.Terms(f) {
			aliases := t.Aliases
			if aliases == nil {
				aliases = []string{}
			}
			w.exec(`INSERT INTO terms (facet, id, label, label_ko, aliases, description, parent, category, position)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				string(f), t.ID, t.Label, t.LabelKo, jsonText(aliases), t.Description, t.Parent, t.Category, i)
		}
	}
}

func (w *writer) playbooks(pbs []*library.Playbook) {
	for _, pb := range pbs {
		w.exec(`INSERT INTO playbooks (id, title, summary, path, signals, sections, ko, layer, edit_url, changed, changed_from, overrides)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			pb.ID, pb.Title, pb.Summary, pb.Path, jsonText(orEmpty(pb.Signals)), jsonText(pb.Sections), jsonOrEmpty(pb.Ko),
			layerOf(pb.Layer), pb.EditURL, pb.Changed, pb.ChangedFrom, jsonOrEmpty(pb.Overrides))
		for _, s := range pb.Symptoms {
			w.exec(`INSERT INTO playbook_terms (playbook_id, facet, term_id) VALUES (?, 'symptom', ?)`, pb.ID, s)
		}
		for _, c := range pb.Components {
			w.exec(`INSERT INTO playbook_terms (playbook_id, facet, term_id) VALUES (?, 'component', ?)`, pb.ID, c)
		}
	}
}

func (w *writer) incidents(lib *library.Library) {
	for pos, in := range lib.Incidents {
		in = in.WithBodies()
		w.exec(`INSERT INTO incidents (id, title, summary, organization, org_slug, date, year, trigger_text, detection, path, sections, position,
				title_ko, summary_ko, kind, added, ko, layer, edit_url, changed, changed_from)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			in.ID, in.Title, in.Summary, in.Organization, OrgSlug(in.Organization), in.Date, in.Year,
			in.Trigger, in.Detection, in.Path, jsonText(in.Sections), pos,
			in.TitleKo, in.SummaryKo, in.Kind, in.Added, jsonOrEmpty(in.Ko),
			layerOf(in.Layer), in.EditURL, in.Changed, in.ChangedFrom)
		for _, r := range in.Routes {
			w.exec(`INSERT INTO incident_routes (incident_id, route) VALUES (?, ?)`, in.ID, r)
		}
		categories := map[string]bool{}
		for _, f := range []library.Facet{library.FacetCause, library.FacetComponent, library.FacetSymptom, library.FacetFactor, library.FacetDomain} {
			for _, id := range in.Terms(f) {
				w.exec(`INSERT INTO incident_terms (incident_id, facet, term_id) VALUES (?, ?, ?)`, in.ID, string(f), id)
				if f == library.FacetCause {
					if t, ok := lib.Taxonomy.Term(f, id); ok && t.Category != "" && !categories[t.Category] {
						categories[t.Category] = true
						w.exec(`INSERT INTO incident_terms (incident_id, facet, term_id) VALUES (?, 'cause_category', ?)`, in.ID, t.Category)
					}
				}
			}
		}
		for i, s := range in.Sources {
			w.exec(`INSERT INTO sources (incident_id, position, url, title, kind, retrieved, secondary, quote) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
				in.ID, i, s.URL, s.Title, s.Kind, s.Retrieved, s.Secondary, s.Quote)
		}
		for _, pb := range in.Playbooks {
			w.exec(`INSERT INTO incident_playbooks (incident_id, playbook_id) VALUES (?, ?)`, in.ID, pb)
		}
	}
}

// jsonOrEmpty writes a pointer as JSON, or an empty string for nil (no
// Korean twin).
func jsonOrEmpty[T any](v *T) string {
	if v == nil {
		return ""
	}
	return jsonText(v)
}

// layerOf is the layer an entry is stored under: its own, or the public
// library for an entry built without one (tests, old snapshots).
func layerOf(name string) string {
	if name == "" {
		return library.PublicLayer
	}
	return name
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// OrgSlug is the URL form of an organisation name: "Linode (Akamai)" ->
// "linode-akamai". It is how the org filter names organisations.
func OrgSlug(org string) string { return library.Slug(org) }

// used by tests to find the file for a hash
func pathFor(dir, hash string) string { return filepath.Clean(fileName(dir, hash)) }
