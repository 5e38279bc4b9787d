package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"casebook/internal/library"
)

// Filter selects incidents. Values within one facet are OR, facets are AND.
type Filter struct {
	Terms map[library.Facet][]string // cause, cause_category, component, symptom, factor, domain
	Orgs  []string                   // org slugs
	Years []int
	// Layers are layer names: the public library, a team's layer (the
	// Source facet).
	Layers []string
}

// Empty reports whether the filter selects everything.
func (f Filter) Empty() bool {
	for _, v := range f.Terms {
		if len(v) > 0 {
			return false
		}
	}
	return len(f.Orgs) == 0 && len(f.Years) == 0 && len(f.Layers) == 0
}

// Sort orders of the incident list.
const (
	SortNewest = "newest"
	SortOldest = "oldest"
	SortTitle  = "title"
	// SortAdded puts the entries added to the library last first (the
	// feed); entries without an added day follow, newest incident first.
	SortAdded = "added"
)

// IncidentSummary is a row of the incident list with its classification.
type IncidentSummary struct {
	ID                  string   `json:"id"`
	Title               string   `json:"title"`
	Summary             string   `json:"summary"`
	Organization        string   `json:"organization"`
	Date                string   `json:"date"`
	Domains             []string `json:"domains"`
	Components          []string `json:"components"`
	Causes              []string `json:"causes"`
	Symptoms            []string `json:"symptoms"`
	ContributingFactors []string `json:"contributing_factors"`
	TitleKo             string   `json:"title_ko,omitempty"`
	SummaryKo           string   `json:"summary_ko,omitempty"`
	Kind                string   `json:"kind"`
	// Added is the day the entry joined the library, "" when its file
	// does not say.
	Added string `json:"added,omitempty"`
	// Layer is where the incident comes from: "public", or a team
	// layer's name.
	Layer           string   `json:"layer"`
	CauseCategories []string `json:"-"`
	Year            int      `json:"-"`
	OrgSlug         string   `json:"-"`
}

// where builds the WHERE clause for f over the incidents alias "i",
// leaving out one facet ("" leaves out none) for facet counts.
func where(f Filter, skip string) (string, []any) {
	var conds []string
	var args []any
	for _, facet := range library.Facets {
		vals := f.Terms[facet]
		if len(vals) == 0 || string(facet) == skip {
			continue
		}
		conds = append(conds, `i.id IN (SELECT incident_id FROM incident_terms WHERE facet = ? AND term_id IN (`+placeholders(len(vals))+`))`)
		args = append(args, string(facet))
		for _, v := range vals {
			args = append(args, v)
		}
	}
	if len(f.Orgs) > 0 && skip != "org" {
		conds = append(conds, `i.org_slug IN (`+placeholders(len(f.Orgs))+`)`)
		for _, v := range f.Orgs {
			args = append(args, v)
		}
	}
	if len(f.Years) > 0 && skip != "year" {
		conds = append(conds, `i.year IN (`+placeholders(len(f.Years))+`)`)
		for _, v := range f.Years {
			args = append(args, v)
		}
	}
	if len(f.Layers) > 0 && skip != "layer" {
		conds = append(conds, `i.layer IN (`+placeholders(len(f.Layers))+`)`)
		for _, v := range f.Layers {
			args = append(args, v)
		}
	}
	if len(conds) == 0 {
		return "1=1", nil
	}
	return strings.Join(conds, " AND "), args
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

// ListIncidents returns one page of the filtered incidents and the total.
func (s *Store) ListIncidents(ctx context.Context, f Filter, sort string, page, perPage int) ([]IncidentSummary, int, error) {
	w, args := where(f, "")
	var total int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM incidents i WHERE `+w, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("store: count incidents: %w", err)
	}
	order := "i.position ASC"
	switch sort {
	case SortOldest:
		order = "i.position DESC"
	case SortTitle:
		order = "i.title COLLATE NOCASE ASC, i.id"
	case SortAdded:
		order = "i.added DESC, i.position ASC"
	}
	if page < 1 {
		page = 1
	}
	q := `SELECT i.id FROM incidents i WHERE ` + w + ` ORDER BY ` + order + ` LIMIT ? OFFSET ?`
	ids, err := s.ids(ctx, q, append(args, perPage, (page-1)*perPage)...)
	if err != nil {
		return nil, 0, err
	}
	items, err := s.summaries(ctx, ids)
	return items, total, err
}

// FilteredIDs returns the ids of every incident matching f, newest first.
func (s *Store) FilteredIDs(ctx context.Context, f Filter) ([]string, error) {
	w, args := where(f, "")
	return s.ids(ctx, `SELECT i.id FROM incidents i WHERE `+w+` ORDER BY i.position`, args...)
}

func (s *Store) ids(ctx context.Context, q string, args ...any) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: list ids: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// summaries loads list rows for ids, keeping their order.
func (s *Store) summaries(ctx context.Context, ids []string) ([]IncidentSummary, error) {
	if len(ids) == 0 {
		return []IncidentSummary{}, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id, title, summary, organization, org_slug, date, year, title_ko, summary_ko, kind, added, layer FROM incidents WHERE id IN (`+placeholders(len(ids))+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: summaries: %w", err)
	}
	byID := map[string]*IncidentSummary{}
	for rows.Next() {
		var it IncidentSummary
		if err := rows.Scan(&it.ID, &it.Title, &it.Summary, &it.Organization, &it.OrgSlug, &it.Date, &it.Year, &it.TitleKo, &it.SummaryKo, &it.Kind, &it.Added, &it.Layer); err != nil {
			rows.Close()
			return nil, err
		}
		it.Domains, it.Components, it.Causes, it.Symptoms, it.ContributingFactors = []string{}, []string{}, []string{}, []string{}, []string{}
		byID[it.ID] = &it
	}
	rows.Close()
	trows, err := s.db.QueryContext(ctx, `SELECT incident_id, facet, term_id FROM incident_terms WHERE incident_id IN (`+placeholders(len(ids))+`) ORDER BY rowid`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: summary terms: %w", err)
	}
	defer trows.Close()
	for trows.Next() {
		var id, facet, term string
		if err := trows.Scan(&id, &facet, &term); err != nil {
			return nil, err
		}
		it := byID[id]
		switch library.Facet(facet) {
		case library.FacetCause:
			it.Causes = append(it.Causes, term)
		case library.FacetCauseCategory:
			it.CauseCategories = append(it.CauseCategories, term)
		case library.FacetComponent:
			it.Components = append(it.Components, term)
		case library.FacetSymptom:
			it.Symptoms = append(it.Symptoms, term)
		case library.FacetFactor:
			it.ContributingFactors = append(it.ContributingFactors, term)
		case library.FacetDomain:
			it.Domains = append(it.Domains, term)
		}
	}
	out := make([]IncidentSummary, 0, len(ids))
	for _, id := range ids {
		if it := byID[id]; it != nil {
			out = append(out, *it)
		}
	}
	return out, trows.Err()
}

// FacetCount is one value of a facet with the number of incidents it would
// select given the other active filters.
type FacetCount struct {
	Term  string `json:"term"`
	Label string `json:"label"`
	// LabelKo is the term's Korean label (taxonomy facets only), filled by
	// the JSON API.
	LabelKo string `json:"label_ko,omitempty"`
	Count   int    `json:"count"`
}

// FacetCounts counts, for every facet, the incidents per value among those
// matching the filters of the other facets — the count a click would give
// when the facet has no selection yet.
func (s *Store) FacetCounts(ctx context.Context, f Filter, tax *library.Taxonomy) (map[string][]FacetCount, error) {
	if f.Empty() {
		return s.cache.allCounts(tax, func() (map[string][]FacetCount, error) { return s.facetCounts(ctx, f, tax) })
	}
	return s.facetCounts(ctx, f, tax)
}

func (s *Store) facetCounts(ctx context.Context, f Filter, tax *library.Taxonomy) (map[string][]FacetCount, error) {
	out := map[string][]FacetCount{}
	for _, facet := range library.Facets {
		w, args := where(f, string(facet))
		rows, err := s.db.QueryContext(ctx, `SELECT t.term_id, COUNT(*) FROM incident_terms t JOIN incidents i ON i.id = t.incident_id
			WHERE t.facet = ? AND `+w+` GROUP BY t.term_id ORDER BY COUNT(*) DESC, t.term_id`, append([]any{string(facet)}, args...)...)
		if err != nil {
			return nil, fmt.Errorf("store: facet %s: %w", facet, err)
		}
		counts := []FacetCount{}
		for rows.Next() {
			var c FacetCount
			if err := rows.Scan(&c.Term, &c.Count); err != nil {
				rows.Close()
				return nil, err
			}
			c.Label = tax.Label(facet, c.Term)
			counts = append(counts, c)
		}
		rows.Close()
		out[string(facet)] = counts
	}
	w, args := where(f, "org")
	orgs, err := s.groupCounts(ctx, `SELECT i.org_slug, MIN(i.organization), COUNT(*) FROM incidents i WHERE `+w+` GROUP BY i.org_slug ORDER BY COUNT(*) DESC, i.org_slug`, args...)
	if err != nil {
		return nil, err
	}
	out["org"] = orgs
	w, args = where(f, "year")
	years, err := s.groupCounts(ctx, `SELECT CAST(i.year AS TEXT), CAST(i.year AS TEXT), COUNT(*) FROM incidents i WHERE `+w+` GROUP BY i.year ORDER BY i.year DESC`, args...)
	if err != nil {
		return nil, err
	}
	out["year"] = years
	w, args = where(f, "layer")
	layers, err := s.groupCounts(ctx, `SELECT i.layer, i.layer, COUNT(*) FROM incidents i WHERE `+w+` GROUP BY i.layer ORDER BY i.layer != 'public', i.layer`, args...)
	if err != nil {
		return nil, err
	}
	out["layer"] = layers
	return out, nil
}

func (s *Store) groupCounts(ctx context.Context, q string, args ...any) ([]FacetCount, error) {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: group counts: %w", err)
	}
	defer rows.Close()
	out := []FacetCount{}
	for rows.Next() {
		var c FacetCount
		if err := rows.Scan(&c.Term, &c.Label, &c.Count); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// Incident loads one incident with everything its page shows.
func (s *Store) Incident(ctx context.Context, id string) (*library.Incident, error) {
	in := &library.Incident{ID: id}
	var sections, ko string
	err := s.db.QueryRowContext(ctx, `SELECT title, summary, organization, date, year, trigger_text, detection, path, sections,
			title_ko, summary_ko, kind, added, ko, layer, edit_url, changed, changed_from FROM incidents WHERE id = ?`, id).
		Scan(&in.Title, &in.Summary, &in.Organization, &in.Date, &in.Year, &in.Trigger, &in.Detection, &in.Path, &sections,
			&in.TitleKo, &in.SummaryKo, &in.Kind, &in.Added, &ko, &in.Layer, &in.EditURL, &in.Changed, &in.ChangedFrom)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("store: incident %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: incident %q: %w", id, err)
	}
	if err := json.Unmarshal([]byte(sections), &in.Sections); err != nil {
		return nil, fmt.Errorf("store: incident %q sections: %w", id, err)
	}
	if ko != "" {
		in.Ko = &library.IncidentKo{}
		if err := json.Unmarshal([]byte(ko), in.Ko); err != nil {
			return nil, fmt.Errorf("store: incident %q Korean body: %w", id, err)
		}
	}
	sums, err := s.summaries(ctx, []string{id})
	if err != nil || len(sums) == 0 {
		return nil, fmt.Errorf("store: incident %q terms: %w", id, err)
	}
	in.Domains, in.Components, in.Causes, in.Symptoms, in.ContributingFactors = sums[0].Domains, sums[0].Components, sums[0].Causes, sums[0].Symptoms, sums[0].ContributingFactors
	rows, err := s.db.QueryContext(ctx, `SELECT url, title, kind, retrieved, secondary, quote FROM sources WHERE incident_id = ? ORDER BY position`, id)
	if err != nil {
		return nil, fmt.Errorf("store: sources %q: %w", id, err)
	}
	for rows.Next() {
		var src library.Source
		if err := rows.Scan(&src.URL, &src.Title, &src.Kind, &src.Retrieved, &src.Secondary, &src.Quote); err != nil {
			rows.Close()
			return nil, err
		}
		in.Sources = append(in.Sources, src)
	}
	rows.Close()
	in.Playbooks, err = s.ids(ctx, `SELECT playbook_id FROM incident_playbooks WHERE incident_id = ? ORDER BY playbook_id`, id)
	if err != nil {
		return nil, err
	}
	in.Routes, err = s.ids(ctx, `SELECT route FROM incident_routes WHERE incident_id = ? ORDER BY rowid`, id)
	return in, err
}

// IncidentsForRoute lists the incidents that show a triage route, newest
// first: the cases a wizard outcome and its playbook section cite.
func (s *Store) IncidentsForRoute(ctx context.Context, route string, limit int) ([]IncidentSummary, error) {
	ids, err := s.ids(ctx, `SELECT i.id FROM incident_routes r JOIN incidents i ON i.id = r.incident_id
		WHERE r.route = ? ORDER BY i.position LIMIT ?`, route, limit)
	if err != nil {
		return nil, fmt.Errorf("store: incidents for route %q: %w", route, err)
	}
	return s.summaries(ctx, ids)
}

// Playbook loads one playbook.
func (s *Store) Playbook(ctx context.Context, id string) (*library.Playbook, error) {
	pb := &library.Playbook{ID: id}
	var signals, sections, ko, overrides string
	err := s.db.QueryRowContext(ctx, `SELECT title, summary, path, signals, sections, ko, layer, edit_url, changed, changed_from, overrides FROM playbooks WHERE id = ?`, id).
		Scan(&pb.Title, &pb.Summary, &pb.Path, &signals, &sections, &ko, &pb.Layer, &pb.EditURL, &pb.Changed, &pb.ChangedFrom, &overrides)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("store: playbook %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: playbook %q: %w", id, err)
	}
	if err := json.Unmarshal([]byte(signals), &pb.Signals); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(sections), &pb.Sections); err != nil {
		return nil, err
	}
	if overrides != "" {
		pb.Overrides = &library.Override{}
		if err := json.Unmarshal([]byte(overrides), pb.Overrides); err != nil {
			return nil, fmt.Errorf("store: playbook %q overrides: %w", id, err)
		}
	}
	if ko != "" {
		pb.Ko = &library.PlaybookKo{}
		if err := json.Unmarshal([]byte(ko), pb.Ko); err != nil {
			return nil, fmt.Errorf("store: playbook %q Korean text: %w", id, err)
		}
	}
	rows, err := s.db.QueryContext(ctx, `SELECT facet, term_id FROM playbook_terms WHERE playbook_id = ? ORDER BY rowid`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	pb.Symptoms, pb.Components = []string{}, []string{}
	for rows.Next() {
		var facet, term string
		if err := rows.Scan(&facet, &term); err != nil {
			return nil, err
		}
		if facet == "symptom" {
			pb.Symptoms = append(pb.Symptoms, term)
		} else {
			pb.Components = append(pb.Components, term)
		}
	}
	return pb, rows.Err()
}

// PlaybookSummary is a row of the playbook list.
type PlaybookSummary struct {
	ID       string   `json:"id"`
	Title    string   `json:"title"`
	Summary  string   `json:"summary"`
	Symptoms []string `json:"symptoms"`
	// TitleKo and SummaryKo come from the Korean twin; empty without one.
	TitleKo   string `json:"title_ko,omitempty"`
	SummaryKo string `json:"summary_ko,omitempty"`
	// Layer is where the playbook comes from; Overrides, the layer whose
	// playbook of the same id it replaces ("" when none).
	Layer     string `json:"layer"`
	Overrides string `json:"overrides,omitempty"`
}

// Playbooks lists every playbook by id.
func (s *Store) Playbooks(ctx context.Context) ([]PlaybookSummary, error) {
	return s.cache.playbookList(ctx, s.readPlaybooks)
}

func (s *Store) readPlaybooks(ctx context.Context) ([]PlaybookSummary, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT p.id, p.title, p.summary, COALESCE((SELECT json_group_array(term_id) FROM playbook_terms t WHERE t.playbook_id = p.id AND t.facet = 'symptom'), '[]'),
		CASE WHEN p.ko = '' THEN '' ELSE COALESCE(json_extract(p.ko, '$.title'), '') END,
		CASE WHEN p.ko = '' THEN '' ELSE COALESCE(json_extract(p.ko, '$.summary'), '') END,
		p.layer, COALESCE(json_extract(NULLIF(p.overrides, ''), '$.layer'), '')
		FROM playbooks p ORDER BY p.id`)
	if err != nil {
		return nil, fmt.Errorf("store: playbooks: %w", err)
	}
	defer rows.Close()
	out := []PlaybookSummary{}
	for rows.Next() {
		var p PlaybookSummary
		var syms string
		if err := rows.Scan(&p.ID, &p.Title, &p.Summary, &syms, &p.TitleKo, &p.SummaryKo, &p.Layer, &p.Overrides); err != nil {
			return nil, err
		}
		_ = json.Unmarshal([]byte(syms), &p.Symptoms)
		out = append(out, p)
	}
	return out, rows.Err()
}

// IncidentsForPlaybook lists incidents that link to the playbook or share one
// of its symptoms, newest first.
func (s *Store) IncidentsForPlaybook(ctx context.Context, id string, limit int) ([]IncidentSummary, error) {
	ids, err := s.ids(ctx, `SELECT i.id FROM incidents i WHERE i.id IN (
			SELECT incident_id FROM incident_playbooks WHERE playbook_id = ?
			UNION SELECT it.incident_id FROM incident_terms it JOIN playbook_terms pt ON pt.facet = it.facet AND pt.term_id = it.term_id
			WHERE pt.playbook_id = ? AND pt.facet = 'symptom')
		ORDER BY i.position LIMIT ?`, id, id, limit)
	if err != nil {
		return nil, err
	}
	return s.summaries(ctx, ids)
}

// SharedTerm is a taxonomy term two incidents have in common.
type SharedTerm struct {
	Facet library.Facet `json:"facet"`
	ID    string        `json:"id"`
}

// Similar is an incident like another, with what they share (rarest term
// first) and the weight of that overlap.
type Similar struct {
	IncidentSummary
	Shared []SharedTerm `json:"shared"`
	Score  float64      `json:"score"`
}

// Similar ranks other incidents by the specific terms they share with id:
// each shared term counts by how rare it is in the library (its inverse
// document frequency, ln(N/df)), so two node auto-repair loops find each
// other before two incidents that merely both say "kubernetes". Cause
// categories are left out: they double-count causes. Ties go to the newer
// incident.
func (s *Store) Similar(ctx context.Context, id string, limit int) ([]Similar, error) {
	var total int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM incidents`).Scan(&total); err != nil {
		return nil, fmt.Errorf("store: similar %q: %w", id, err)
	}
	// One row per (other incident, shared term) with the term's document
	// frequency; the weights are summed here rather than in SQL, which has
	// no logarithm in every build.
	rows, err := s.db.QueryContext(ctx, `WITH mine AS (
			SELECT facet, term_id FROM incident_terms WHERE incident_id = ? AND facet != 'cause_category'),
		df AS (
			SELECT it.facet, it.term_id, COUNT(*) AS n FROM incident_terms it JOIN mine m ON m.facet = it.facet AND m.term_id = it.term_id
			GROUP BY it.facet, it.term_id)
		SELECT o.incident_id, o.facet, o.term_id, df.n, i.position FROM incident_terms o
		JOIN df ON df.facet = o.facet AND df.term_id = o.term_id
		JOIN incidents i ON i.id = o.incident_id
		WHERE o.incident_id != ?`, id, id)
	if err != nil {
		return nil, fmt.Errorf("store: similar %q: %w", id, err)
	}
	type acc struct {
		score    float64
		position int
		shared   []SharedTerm
		weights  []float64
	}
	byID := map[string]*acc{}
	for rows.Next() {
		var oid, facet, term string
		var n, pos int
		if err := rows.Scan(&oid, &facet, &term, &n, &pos); err != nil {
			rows.Close()
			return nil, err
		}
		a := byID[oid]
		if a == nil {
			a = &acc{position: pos}
			byID[oid] = a
		}
		w := math.Log(float64(total) / float64(n))
		a.score += w
		a.shared = append(a.shared, SharedTerm{Facet: library.Facet(facet), ID: term})
		a.weights = append(a.weights, w)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(byID))
	for oid, a := range byID {
		if a.score > 0 {
			ids = append(ids, oid)
		}
	}
	sort.Slice(ids, func(i, j int) bool {
		a, b := byID[ids[i]], byID[ids[j]]
		if a.score != b.score {
			return a.score > b.score
		}
		return a.position < b.position
	})
	if len(ids) > limit {
		ids = ids[:limit]
	}
	sums, err := s.summaries(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]Similar, 0, len(sums))
	for _, sum := range sums {
		a := byID[sum.ID]
		order := make([]int, len(a.shared))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(i, j int) bool { return a.weights[order[i]] > a.weights[order[j]] })
		shared := make([]SharedTerm, len(order))
		for i, k := range order {
			shared[i] = a.shared[k]
		}
		out = append(out, Similar{IncidentSummary: sum, Shared: shared, Score: a.score})
	}
	return out, nil
}

// TermLink is an incident-to-term edge, the raw material of the graph.
type TermLink struct {
	Incident string
	Facet    library.Facet
	Term     string
}

// Links returns the incident-term edges of the filtered set.
func (s *Store) Links(ctx context.Context, f Filter) ([]TermLink, error) {
	w, args := where(f, "")
	rows, err := s.db.QueryContext(ctx, `SELECT t.incident_id, t.facet, t.term_id FROM incident_terms t JOIN incidents i ON i.id = t.incident_id
		WHERE t.facet IN ('cause','component','symptom','factor') AND `+w+` ORDER BY i.position, t.rowid`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: links: %w", err)
	}
	defer rows.Close()
	var out []TermLink
	for rows.Next() {
		var l TermLink
		var facet string
		if err := rows.Scan(&l.Incident, &facet, &l.Term); err != nil {
			return nil, err
		}
		l.Facet = library.Facet(facet)
		out = append(out, l)
	}
	return out, rows.Err()
}

// CoTerm is a term that appears on the same incidents as another.
type CoTerm struct {
	Facet library.Facet `json:"facet"`
	Term  string        `json:"term"`
	Count int           `json:"count"`
}

// CoOccurring lists the terms that share the most incidents with facet:term.
func (s *Store) CoOccurring(ctx context.Context, facet library.Facet, term string, limit int) ([]CoTerm, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT o.facet, o.term_id, COUNT(*) FROM incident_terms me
		JOIN incident_terms o ON o.incident_id = me.incident_id AND NOT (o.facet = me.facet AND o.term_id = me.term_id)
		WHERE me.facet = ? AND me.term_id = ? AND o.facet != 'cause_category'
		GROUP BY o.facet, o.term_id ORDER BY COUNT(*) DESC, o.facet, o.term_id LIMIT ?`, string(facet), term, limit)
	if err != nil {
		return nil, fmt.Errorf("store: co-occurring %s:%s: %w", facet, term, err)
	}
	defer rows.Close()
	var out []CoTerm
	for rows.Next() {
		var c CoTerm
		var f string
		if err := rows.Scan(&f, &c.Term, &c.Count); err != nil {
			return nil, err
		}
		c.Facet = library.Facet(f)
		out = append(out, c)
	}
	return out, rows.Err()
}

// Problems returns the load problems recorded with this model.
func (s *Store) Problems(ctx context.Context) ([]library.Problem, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT path, line, msg, layer, todo FROM problems ORDER BY rowid`)
	if err != nil {
		return nil, fmt.Errorf("store: problems: %w", err)
	}
	defer rows.Close()
	var out []library.Problem
	for rows.Next() {
		var p library.Problem
		if err := rows.Scan(&p.Path, &p.Line, &p.Msg, &p.Layer, &p.Todo); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// Count returns the number of incidents and playbooks.
func (s *Store) Count(ctx context.Context) (incidents, playbooks int, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM incidents), (SELECT COUNT(*) FROM playbooks)`).Scan(&incidents, &playbooks)
	return
}

// OrgSlugs lists the organisations' URL slugs, for validating the org filter.
func (s *Store) OrgSlugs(ctx context.Context) ([]string, error) {
	return s.cache.slugs(ctx, func(ctx context.Context) ([]string, error) {
		return s.ids(ctx, `SELECT DISTINCT org_slug FROM incidents ORDER BY org_slug`)
	})
}

// Summaries loads list rows for the given ids, in that order; unknown ids
// are skipped.
func (s *Store) Summaries(ctx context.Context, ids []string) ([]IncidentSummary, error) {
	return s.summaries(ctx, ids)
}
