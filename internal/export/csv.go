package export

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// csvHeader is the first row of the CSV export. Columns are only ever added
// at the end, so spreadsheets built on the export keep working.
var csvHeader = []string{"id", "title", "summary", "organization", "date", "year",
	"domains", "components", "causes", "cause_categories", "symptoms", "contributing_factors",
	"trigger", "detection", "playbooks", "source_urls", "source_kinds", "path", "url",
	"title_ko", "summary_ko", "kind", "routes", "added", "layer"}

// multiSep joins the values of a multi-valued column. Term ids never contain
// it, so a spreadsheet can split the cell again.
const multiSep = ";"

// WriteCSV writes one row per incident of lib, multi-valued fields joined
// with ";". Section text is left out: it is Markdown, and a cell is a poor
// place for it (the JSON export has it).
func WriteCSV(w io.Writer, lib *Library) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(csvHeader); err != nil {
		return fmt.Errorf("export: csv: %w", err)
	}
	for _, in := range lib.Incidents {
		var urls, kinds []string
		for _, s := range in.Sources {
			urls, kinds = append(urls, s.URL), append(kinds, s.Kind)
		}
		row := []string{in.ID, in.Title, in.Summary, in.Organization, in.Date, strconv.Itoa(in.Year),
			join(in.Domains), join(in.Components), join(in.Causes), join(in.CauseCategories), join(in.Symptoms), join(in.ContributingFactors),
			in.Trigger, in.Detection, join(in.Playbooks), join(urls), join(kinds), in.Path, in.URL,
			in.TitleKo, in.SummaryKo, in.Kind, join(in.Routes), in.Added, in.Layer}
		for i, cell := range row {
			row[i] = defuse(cell)
		}
		if err := cw.Write(row); err != nil {
			return fmt.Errorf("export: csv %s: %w", in.ID, err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("export: csv: %w", err)
	}
	return nil
}

func join(vals []string) string { return strings.Join(vals, multiSep) }

// defuse keeps a spreadsheet from evaluating a cell as a formula: library
// text is contributed by many people, and a title starting with "=" would
// otherwise run in whoever opens the export (OWASP "CSV injection"). The
// leading apostrophe is what spreadsheets themselves use to mark text.
func defuse(cell string) string {
	if cell == "" {
		return cell
	}
	switch cell[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return "'" + cell
	}
	return cell
}
