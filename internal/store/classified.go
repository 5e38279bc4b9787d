package store

import (
	"context"
	"fmt"

	"casebook/internal/library"
)

// Classified is one selected incident reduced to what the trends count:
// its year, organisation and terms by facet.
type Classified struct {
	ID    string
	Year  int
	Org   string // slug
	Terms map[library.Facet][]string
}

// ClassifiedIncidents returns every incident f selects with its terms,
// newest first, in one query over the same WHERE clause as the list, so a
// chart counts exactly what the library shows for the same filter.
func (s *Store) ClassifiedIncidents(ctx context.Context, f Filter) ([]Classified, error) {
	w, args := where(f, "")
	rows, err := s.db.QueryContext(ctx, `SELECT i.id, i.year, i.org_slug, COALESCE(t.facet, ''), COALESCE(t.term_id, '')
		FROM incidents i LEFT JOIN incident_terms t ON t.incident_id = i.id
		WHERE `+w+` ORDER BY i.position, t.rowid`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: classified incidents: %w", err)
	}
	defer rows.Close()
	var out []Classified
	for rows.Next() {
		var c Classified
		var facet, term string
		if err := rows.Scan(&c.ID, &c.Year, &c.Org, &facet, &term); err != nil {
			return nil, err
		}
		if len(out) == 0 || out[len(out)-1].ID != c.ID {
			c.Terms = map[library.Facet][]string{}
			out = append(out, c)
		}
		if facet != "" {
			last := &out[len(out)-1]
			last.Terms[library.Facet(facet)] = append(last.Terms[library.Facet(facet)], term)
		}
	}
	return out, rows.Err()
}
