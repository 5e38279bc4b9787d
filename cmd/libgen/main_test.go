package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunWritesALibrary(t *testing.T) {
	out := t.TempDir()
	var stdout bytes.Buffer
	if err := run([]string{"-n", "5", "-seed", "3", "-out", out}, &stdout, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "wrote 5 incidents") {
		t.Errorf("stdout = %q", stdout.String())
	}
	incidents, _ := filepath.Glob(filepath.Join(out, "incidents", "IL-000*.md"))
	if len(incidents) != 5 {
		t.Errorf("wrote %d incident files, want 5", len(incidents))
	}
	for _, p := range []string{"taxonomy.yaml", "playbooks", "triage"} {
		if _, err := os.Stat(filepath.Join(out, p)); err != nil {
			t.Errorf("no %s: %v", p, err)
		}
	}
	// A second run into the same folder needs -force.
	if err := run([]string{"-n", "5", "-out", out}, io.Discard, io.Discard); err == nil {
		t.Error("a second run into a full folder succeeded without -force")
	}
	if err := run([]string{"-n", "5", "-out", out, "-force"}, io.Discard, io.Discard); err != nil {
		t.Errorf("-force: %v", err)
	}
}

func TestRunNeedsOut(t *testing.T) {
	if err := run([]string{"-n", "5"}, io.Discard, io.Discard); err == nil {
		t.Error("run without -out succeeded")
	}
}
