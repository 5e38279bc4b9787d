package library

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

func TestSourceBounds(t *testing.T) {
	front := "---\nid: IL-0001\n---\n"
	list := func(depth int) string {
		var b strings.Builder
		for i := range depth {
			b.WriteString(strings.Repeat("  ", i) + "- x\n")
		}
		return b.String()
	}
	tests := []struct {
		name     string
		src      string
		yaml     bool
		want     error
		wantLine int
	}{
		{"plain incident", front + "## Symptom\n\ntext\n", false, nil, 0},
		{"nested list within the bound", front + list(20), false, nil, 0},
		{"list nested 300 deep", front + list(300), false, ErrTooDeep, 4 + MaxDepth},
		{"100,000 quote markers", front + strings.Repeat(">", 100000) + "\n", false, ErrLineTooLong, 4},
		{"deep quotes on short lines", front + strings.Repeat("> ", 40) + "x\n", false, ErrTooDeep, 4},
		{"deep code inside a fence is text", front + "```\n" + strings.Repeat(" ", 200) + "x\n```\n", false, nil, 0},
		{"2 MB incident", front + strings.Repeat("word ", 400000), false, ErrSourceTooLarge, 1},
		{"front matter of nested flows", "---\nid: " + strings.Repeat("[", 50) + "\n---\n", false, ErrTooDeep, 2},
		{"YAML flow nesting", "a: " + strings.Repeat("[", 40), true, ErrTooDeep, 1},
		{"YAML block nesting", "a:\n" + strings.Repeat(" ", 80) + "b: 1\n", true, ErrTooDeep, 2},
		{"YAML brackets inside a plain scalar", "a: see [1] and [2\nb: c\n", true, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err *BoundError
			if tt.yaml {
				err = CheckYAML([]byte(tt.src))
			} else {
				err = checkDocument([]byte(tt.src))
			}
			switch {
			case tt.want == nil && err != nil:
				t.Fatalf("refused: %v at line %d", err, err.Line)
			case tt.want != nil && (err == nil || !errors.Is(err, tt.want)):
				t.Fatalf("got %v, want %v", err, tt.want)
			case err != nil && err.Line != tt.wantLine:
				t.Errorf("line %d, want %d", err.Line, tt.wantLine)
			}
		})
	}
}

// An incident past a bound is a problem at its line and costs the load
// nearly nothing; before, goldmark spent over a minute on a list nested
// 3,000 deep.
func TestBoundedIncidentIsAProblem(t *testing.T) {
	team := dirFS(t, "testdata/layers/acme")
	src := string(team[acme1].Data)
	var deep strings.Builder
	for i := range 3000 {
		deep.WriteString(strings.Repeat("  ", i%60) + "- x\n")
	}
	hostile := strings.Replace(strings.Replace(src, "id: ACME-0001", "id: ACME-0020", 1), "## Symptom", deep.String()+"\n## Symptom", 1)
	team["incidents/ACME-0020-deep.md"] = &fstest.MapFile{Data: []byte(hostile)}
	start := time.Now()
	lib, problems, err := stackOf(t, team).Load()
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("load took %s", d)
	}
	if _, ok := lib.Incident("ACME-0020"); ok {
		t.Error("the incident past the bound was loaded")
	}
	if _, ok := lib.Incident("ACME-0001"); !ok {
		t.Error("the rest of the layer was left out")
	}
	found := false
	for _, p := range problems {
		found = found || p.Path == "acme/incidents/ACME-0020-deep.md" && p.Line > 1
	}
	if !found {
		t.Errorf("no problem at the file's line:\n%s", strings.Join(problemStrings(problems), "\n"))
	}
}

// The shipped library is far inside every bound.
func TestShippedLibraryIsInsideTheBounds(t *testing.T) {
	err := fs.WalkDir(os.DirFS("../../library"), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		src, err := os.ReadFile("../../library/" + p)
		if err != nil {
			return err
		}
		var be *BoundError
		switch {
		case strings.HasSuffix(p, ".md") && strings.HasPrefix(string(src), "---"):
			be = checkDocument(src)
		case strings.HasSuffix(p, ".yaml"):
			be = CheckYAML(src)
		}
		if be != nil {
			t.Errorf("%s:%d: %v", p, be.Line, be)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
