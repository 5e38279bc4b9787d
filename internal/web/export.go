package web

import (
	"bytes"
	"net/http"

	"casebook/internal/export"
)

// handleAPIExportJSON serves the whole library, or the incidents matching
// the same filters as /api/incidents, as one JSON document. Paging
// parameters are accepted and ignored: an export is never paged.
func (s *Server) handleAPIExportJSON(w http.ResponseWriter, r *http.Request) error {
	lib, err := s.export(r)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Disposition", `attachment; filename="casebook-export.json"`)
	writeJSON(w, http.StatusOK, lib)
	return nil
}

// handleAPIExportCSV serves the same selection as one CSV row per incident.
func (s *Server) handleAPIExportCSV(w http.ResponseWriter, r *http.Request) error {
	lib, err := s.export(r)
	if err != nil {
		return err
	}
	// Written to a buffer first so a failure is still an error page, not
	// half a file with a 200.
	var buf bytes.Buffer
	if err := export.WriteCSV(&buf, lib); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="casebook-export.csv"`)
	_, err = buf.WriteTo(w)
	return err
}

func (s *Server) export(r *http.Request) (*export.Library, error) {
	c, err := s.current(r)
	if err != nil {
		return nil, err
	}
	st, err := parseListFor(r, c)
	if err != nil {
		return nil, err
	}
	return export.Build(r.Context(), c, st.Filter)
}
