package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"casebook/internal/export"
)

func exportIDs(t *testing.T, data []byte) []string {
	t.Helper()
	var lib export.Library
	if err := json.Unmarshal(data, &lib); err != nil {
		t.Fatalf("export is not the JSON document: %v", err)
	}
	var ids []string
	for _, in := range lib.Incidents {
		ids = append(ids, in.ID)
	}
	return ids
}

// TestExportCommandMatchesAPI: the command writes what /api/export.json
// serves for the same filters.
func TestExportCommandMatchesAPI(t *testing.T) {
	data := t.TempDir()
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"export", "--data", data, "--domain", "gpu", "--year", "2024,2025"}, noEnv, strings.NewReader(""), &out, &errOut); err != nil {
		t.Fatalf("export: %v\n%s", err, errOut.String())
	}
	got := exportIDs(t, out.Bytes())

	s := hardStart(t, "--data", t.TempDir())
	resp, err := http.Get(s.URL + "/api/export.json?domain=gpu&year=2024&year=2025")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := exportIDs(t, body)
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("command exported %v\nAPI exported %v", got, want)
	}
}

func TestExportCommandCSVToFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "gpu.csv")
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"export", "--data", t.TempDir(), "--format", "csv", "--out", file, "--cause-category", "capacity"}, noEnv, strings.NewReader(""), &out, &errOut)
	if err != nil {
		t.Fatalf("export: %v\n%s", err, errOut.String())
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) < 2 || rows[0][0] != "id" {
		t.Fatalf("rows %v, err %v", rows, err)
	}
	cat := slices.Index(rows[0], "cause_categories")
	for _, r := range rows[1:] {
		if !slices.Contains(strings.Split(r[cat], ";"), "capacity") {
			t.Errorf("%s has cause categories %q", r[0], r[cat])
		}
	}
	if out.Len() != 0 {
		t.Errorf("--out also wrote to stdout: %.100s", out.String())
	}
}

func TestExportCommandErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--component", "nvidia-device-plugn"},
		{"--format", "xml"},
		{"stray-argument"},
	} {
		var out, errOut bytes.Buffer
		err := run(context.Background(), append([]string{"export", "--data", t.TempDir()}, args...), noEnv, strings.NewReader(""), &out, &errOut)
		if err == nil {
			t.Errorf("export %v succeeded", args)
		}
	}
}
