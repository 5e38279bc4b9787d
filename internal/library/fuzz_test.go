package library

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseDocument feeds arbitrary bytes through the incident and playbook
// parsers: they must never panic, and a problem must name the file and a
// line inside it.
func FuzzParseDocument(f *testing.F) {
	seeds, _ := filepath.Glob("../../library/incidents/*.md")
	for _, p := range seeds[:min(len(seeds), 5)] {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{"", "---\n", "---\nid: [\n---\n", "---\nid: IL-0001\n---\n## Symptom\n```\n## not a heading\n", "---\n- a\n- b\n---\n", "---\r\nid: x\r\n---\r\n"} {
		f.Add([]byte(s))
	}
	// The bounds: nesting, line length and size just past each.
	var deep strings.Builder
	for i := range MaxDepth + 2 {
		deep.WriteString(strings.Repeat("  ", i) + "- x\n")
	}
	for _, s := range []string{deep.String(), strings.Repeat("> ", MaxDepth+1) + "x\n", strings.Repeat(">", MaxLine+1),
		"id: " + strings.Repeat("[", MaxDepth+1) + "\n", strings.Repeat("a\n", MaxMarkdown/2+1)} {
		f.Add([]byte("---\nid: IL-0001\n---\n" + s))
	}
	src, err := os.ReadFile("../../library/taxonomy.yaml")
	if err != nil {
		f.Fatal(err)
	}
	tax, _, err := ParseTaxonomy("taxonomy.yaml", src)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := strings.Count(string(data), "\n") + 1
		check := func(ps []Problem) {
			for _, p := range ps {
				if p.Path != "incidents/IL-0001-x.md" && p.Path != "playbooks/x.md" {
					t.Fatalf("problem names the wrong file: %v", p)
				}
				if p.Line < 0 || p.Line > lines+1 {
					t.Fatalf("problem line %d outside a %d-line file: %v", p.Line, lines, p)
				}
			}
		}
		_, ps := parseIncident("incidents/IL-0001-x.md", data, tax, PublicInfo)
		check(ps)
		// Past a bound, the file is one problem at the bound's line and is
		// not parsed.
		if frontClosed(data) && bytes.HasPrefix(data, []byte("---\n")) {
			if be := checkDocument(data); be != nil && (len(ps) != 1 || ps[0].Line != be.Line) {
				t.Fatalf("past a bound (%v at line %d), problems %v", be, be.Line, ps)
			}
		}
		_, ps = parsePlaybook("playbooks/x.md", data, tax)
		check(ps)
	})
}

// FuzzParseTaxonomy: a taxonomy file of any shape gives problems or an
// error, never a panic.
func FuzzParseTaxonomy(f *testing.F) {
	if b, err := os.ReadFile("../../library/taxonomy.yaml"); err == nil {
		f.Add(b)
	}
	f.Add([]byte("causes:\n  - id: a\n    category: nope\n"))
	f.Add([]byte("[1, 2"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _, _ = ParseTaxonomy("taxonomy.yaml", data)
	})
}
