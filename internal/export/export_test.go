package export_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"log/slog"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	deflib "casebook/library"

	"casebook/internal/content"
	"casebook/internal/export"
	"casebook/internal/library"
	"casebook/internal/selection"
	"casebook/internal/store"
)

// loaded serves the embedded library: it is compiled into the test binary,
// so files edited while the tests run cannot change what they see.
func loaded(t *testing.T) *content.Content {
	t.Helper()
	loader := content.NewLoader(deflib.FS, t.TempDir(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(loader.Close)
	c, err := loader.Load(context.Background())
	if err != nil {
		t.Fatalf("load library: %v", err)
	}
	return c
}

// TestRoundTrip exports the whole library as JSON, writes the JSON back as
// a library folder and loads it: every incident and playbook must come back
// with the same fields, classification, sources and section text.
func TestRoundTrip(t *testing.T) {
	c := loaded(t)
	exp, err := export.Build(context.Background(), c, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(exp)
	if err != nil {
		t.Fatal(err)
	}
	var back export.Library
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := export.WriteLibrary(dir, &back); err != nil {
		t.Fatal(err)
	}
	want, wantProblems, err := library.Load(deflib.FS)
	if err != nil {
		t.Fatal(err)
	}
	got, gotProblems, err := library.Load(os.DirFS(dir))
	if err != nil {
		t.Fatalf("load the re-imported library: %v", err)
	}
	if len(got.Incidents) != len(want.Incidents) || len(got.Playbooks) != len(want.Playbooks) {
		t.Fatalf("re-imported %d incidents and %d playbooks, want %d and %d",
			len(got.Incidents), len(got.Playbooks), len(want.Incidents), len(want.Playbooks))
	}
	// The store keeps an incident's playbook links sorted by id, so the
	// export has them in that order rather than as written.
	for _, in := range want.Incidents {
		slices.Sort(in.Playbooks)
	}
	// Section lines move because front matter is laid out afresh; nothing
	// else may differ.
	ignore := cmpopts.IgnoreFields(library.Section{}, "Line")
	// A parsed incident keeps its sections packed (library.Body), lines
	// included: compare them unpacked.
	unpacked := func(ins []*library.Incident) []*library.Incident {
		out := make([]*library.Incident, len(ins))
		for i, in := range ins {
			out[i] = in.WithBodies()
		}
		return out
	}
	if diff := cmp.Diff(unpacked(want.Incidents), unpacked(got.Incidents), ignore); diff != "" {
		t.Errorf("incidents differ after the round trip (-original +re-imported):\n%s", diff)
	}
	if diff := cmp.Diff(want.Playbooks, got.Playbooks, ignore); diff != "" {
		t.Errorf("playbooks differ after the round trip (-original +re-imported):\n%s", diff)
	}
	for _, f := range library.Facets {
		if diff := cmp.Diff(want.Taxonomy.Terms(f), got.Taxonomy.Terms(f), cmpopts.IgnoreFields(library.Term{}, "Line")); diff != "" {
			t.Errorf("taxonomy %s differs:\n%s", f, diff)
		}
	}
	// The original may carry warnings of its own (lines differ); the copy
	// must not add new kinds of problems.
	if len(gotProblems) > len(wantProblems) {
		t.Errorf("the re-imported library has %d problems, the original %d: %v", len(gotProblems), len(wantProblems), gotProblems)
	}
}

func TestFilteredExport(t *testing.T) {
	c := loaded(t)
	f, err := selection.ParseFilter(url.Values{"domain": {"gpu"}}, c.Taxonomy, c.Orgs, c.LayerNames())
	if err != nil {
		t.Fatal(err)
	}
	exp, err := export.Build(context.Background(), c, f)
	if err != nil {
		t.Fatal(err)
	}
	if len(exp.Incidents) == 0 || len(exp.Incidents) >= c.Incidents {
		t.Fatalf("domain=gpu exported %d of %d incidents; want a non-empty part", len(exp.Incidents), c.Incidents)
	}
	linked := map[string]bool{}
	for _, in := range exp.Incidents {
		if !slices.Contains(in.Domains, "gpu") {
			t.Errorf("%s has domains %v, not gpu", in.ID, in.Domains)
		}
		for _, pb := range in.Playbooks {
			linked[pb] = true
		}
	}
	for _, pb := range exp.Playbooks {
		if !linked[pb.ID] {
			t.Errorf("playbook %s is exported but no exported incident links to it", pb.ID)
		}
	}
	if got := exp.Filter["domain"]; len(got) != 1 || got[0] != "gpu" {
		t.Errorf("filter recorded as %v", exp.Filter)
	}
}

func TestCSV(t *testing.T) {
	c := loaded(t)
	exp, err := export.Build(context.Background(), c, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := export.WriteCSV(&buf, exp); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatalf("the export is not valid CSV: %v", err)
	}
	if len(rows) != len(exp.Incidents)+1 {
		t.Fatalf("%d rows, want a header and %d incidents", len(rows), len(exp.Incidents))
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	first, in := rows[1], exp.Incidents[0]
	if first[col["id"]] != in.ID || first[col["symptoms"]] != strings.Join(in.Symptoms, ";") ||
		first[col["cause_categories"]] != strings.Join(in.CauseCategories, ";") {
		t.Errorf("first row %v does not match incident %s", first, in.ID)
	}
}

func TestCSVDefusesFormulas(t *testing.T) {
	lib := &export.Library{Incidents: []export.Incident{{ID: "IL-0001", Title: "=HYPERLINK(\"http://x\")", Summary: "-1 nodes"}}}
	var buf bytes.Buffer
	if err := export.WriteCSV(&buf, lib); err != nil {
		t.Fatal(err)
	}
	rows, _ := csv.NewReader(&buf).ReadAll()
	if rows[1][1] != `'=HYPERLINK("http://x")` || rows[1][2] != "'-1 nodes" {
		t.Errorf("cells not defused: %q", rows[1])
	}
}

func TestWriteLibraryRejectsUnsafeIDs(t *testing.T) {
	for _, lib := range []*export.Library{
		{Incidents: []export.Incident{{ID: "../../etc/passwd"}}},
		{Playbooks: []export.Playbook{{ID: "../x"}}},
	} {
		if err := export.WriteLibrary(t.TempDir(), lib); err == nil {
			t.Errorf("WriteLibrary accepted %+v", lib)
		}
	}
}
