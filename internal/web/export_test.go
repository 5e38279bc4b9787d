package web_test

import (
	"encoding/csv"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"casebook/internal/export"
)

// TestExportMatchesIncidentList checks that an export selects exactly what
// /api/incidents lists for the same filters, in the same order.
func TestExportMatchesIncidentList(t *testing.T) {
	h := newHandler(t)
	for _, filter := range []string{"", "domain=gpu", "symptom=pod-pending&year=2024,2025", "cause_category=capacity"} {
		t.Run(filter, func(t *testing.T) {
			want := ids(allIncidents(t, h, filter))
			rec := get(t, h, "/api/export.json?"+filter)
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d: %s", rec.Code, rec.Body.String())
			}
			var lib export.Library
			if err := json.Unmarshal(rec.Body.Bytes(), &lib); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, in := range lib.Incidents {
				got = append(got, in.ID)
				if len(in.Sections) == 0 || len(in.Sources) == 0 {
					t.Errorf("%s exported without sections or sources", in.ID)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("export.json ids %v\nwant (from /api/incidents) %v", got, want)
			}

			rec = get(t, h, "/api/export.csv?"+filter)
			if ct := rec.Header().Get("Content-Type"); rec.Code != http.StatusOK || !strings.HasPrefix(ct, "text/csv") {
				t.Fatalf("export.csv: status %d, Content-Type %q", rec.Code, ct)
			}
			rows, err := csv.NewReader(rec.Body).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			got = nil
			for _, row := range rows[1:] {
				got = append(got, row[0])
			}
			if !slices.Equal(got, want) {
				t.Errorf("export.csv ids %v\nwant %v", got, want)
			}
		})
	}
}

func TestExportRejectsUnknownFilters(t *testing.T) {
	h := newHandler(t)
	for _, target := range []string{"/api/export.json?component=nvidia-device-plugn", "/api/export.csv?year=soon"} {
		if rec := get(t, h, target); rec.Code != http.StatusBadRequest {
			t.Errorf("GET %s: status %d, want 400", target, rec.Code)
		}
	}
}
