package library

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
)

// A draft (from the wizard or "casebook new incident") marks what only a
// person can write with TODO. Lint reports each such place as a problem of
// its own kind, so a draft fails CI until it is filled in, and the person
// sees exactly which fields and sections are left — not a cascade of
// "unknown term" and "bad URL" errors caused by the placeholders.

var todoWord = regexp.MustCompile(`\bTODO\b`)

// isTodo reports whether a value is (or holds) a TODO placeholder. The
// substring test first: nearly no value holds one, and the regular
// expression on every field and file was a tenth of parsing a library.
func isTodo(s string) bool { return strings.Contains(s, "TODO") && todoWord.MatchString(s) }

var fieldKey = regexp.MustCompile(`^([a-z_]+):`)

// todoProblems reports every line of a content file that holds TODO: in the
// front matter by the field it belongs to, in the body by its section.
func todoProblems(p string, src []byte, doc *document) []Problem {
	if !bytes.Contains(src, []byte("TODO")) || !todoWord.Match(src) {
		return nil
	}
	var out []Problem
	lines := strings.Split(string(src), "\n")
	frontEnd := 0 // the closing "---" line
	for i := doc.frontLine; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) == "---" {
			frontEnd = i + 1
			break
		}
	}
	field := ""
	reported := map[string]bool{}
	for i, line := range lines {
		n := i + 1
		if n <= frontEnd {
			if m := fieldKey.FindStringSubmatch(line); m != nil {
				field = m[1]
			}
			if strings.HasPrefix(strings.TrimSpace(line), "#") || !isTodo(line) || reported[field] {
				continue
			}
			reported[field] = true
			out = append(out, Problem{Path: p, Line: n, Todo: true, Msg: fmt.Sprintf("TODO: fill in %q%s", field, todoHint(field))})
			continue
		}
		if !isTodo(line) {
			continue
		}
		out = append(out, Problem{Path: p, Line: n, Todo: true, Msg: fmt.Sprintf("TODO: write section %q: %s", sectionAt(doc.sections, n), excerpt(line))})
	}
	return out
}

// todoHint says what a field wants, for the fields a draft leaves open.
func todoHint(field string) string {
	switch field {
	case "causes", "components", "symptoms", "contributing_factors", "domains":
		return " with ids from the taxonomy (casebook lint suggests the nearest id for a typo)"
	case "sources":
		return ": the URL and title of the postmortem document you wrote or read"
	case "title_ko", "summary_ko":
		return " in Korean"
	case "organization":
		return ": the organisation the incident happened at"
	}
	return ""
}

func sectionAt(secs []Section, line int) string {
	name := "(before the first section)"
	for _, s := range secs {
		if s.Line <= line {
			name = s.Title
		}
	}
	return name
}

func excerpt(line string) string {
	line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "-*#>"))
	if r := []rune(line); len(r) > 80 {
		line = string(r[:79]) + "…"
	}
	return line
}
