package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/url"
	"strings"

	"casebook/internal/atomicfile"
	"casebook/internal/content"
	"casebook/internal/export"
	"casebook/internal/selection"
)

// runExport writes the library, or the incidents matching the filters, as
// GET /api/export.json or /api/export.csv would serve them.
func runExport(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var cfg config
	fl := &flagSet{FlagSet: flag.NewFlagSet("export", flag.ContinueOnError), getenv: getenv}
	fl.SetOutput(stderr)
	if err := libraryFlags(fl, &cfg, "warn"); err != nil {
		return err
	}
	format := fl.String("format", "json", "json (every field and the section text) or csv (one row per incident)")
	out := fl.String("out", "", "write to this file instead of standard output")
	filters := url.Values{}
	for _, p := range selection.FilterParams {
		fl.Var(filterFlag{filters, p}, p, "only incidents with this "+strings.ReplaceAll(p, "_", " ")+" (repeat or separate with commas)")
		if dashed := strings.ReplaceAll(p, "_", "-"); dashed != p {
			fl.Var(filterFlag{filters, p}, dashed, "same as --"+p)
		}
	}
	fl.Usage = func() {
		fmt.Fprint(stderr, exportUsage)
		fl.PrintDefaults()
	}
	if err := parseFlags(fl, args); err != nil {
		return err
	}
	if *format != "json" && *format != "csv" {
		return fmt.Errorf("export: --format must be json or csv, not %q", *format)
	}
	if err := checkLibraryConfig(cfg); err != nil {
		return err
	}

	// Only the SQLite model is needed; the search index is not built.
	stack, err := libraryStack(cfg)
	if err != nil {
		return err
	}
	loader := content.NewStackLoader(stack, cfg.Data, newLogger(cfg, stderr))
	loader.NoSearch = true
	defer loader.Close()
	c, err := loader.Load(ctx)
	if err != nil {
		return fmt.Errorf("export: no valid library: %w", err)
	}
	f, err := selection.ParseFilter(filters, c.Taxonomy, c.Orgs, c.LayerNames())
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	lib, err := export.Build(ctx, c, f)
	if err != nil {
		return err
	}
	write := func(w io.Writer) error {
		if *format == "csv" {
			return export.WriteCSV(w, lib)
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(lib)
	}
	if *out == "" {
		return write(stdout)
	}
	// Whole or not at all: a failed export never leaves half a file; the
	// file is meant to be shared (0644).
	if err := atomicfile.Write(*out, 0o644, write); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	fmt.Fprintf(stderr, "exported %d incidents and %d playbooks to %s\n", len(lib.Incidents), len(lib.Playbooks), *out)
	return nil
}

const exportUsage = `Usage: casebook export [--format json|csv] [--out FILE] [filters]

Writes the whole library, or the incidents matching the filters, as
GET /api/export.json or /api/export.csv serves them. Values of one filter
are alternatives; different filters must all hold, e.g.
  casebook export --format csv --domain gpu --year 2024,2025 --out gpu.csv

Flags:
`

// filterFlag collects the values of one filter parameter.
type filterFlag struct {
	values url.Values
	param  string
}

func (f filterFlag) String() string { return "" }

func (f filterFlag) Set(v string) error {
	f.values.Add(f.param, v)
	return nil
}
