package search

import (
	_ "embed"
	"fmt"
	"slices"
	"strings"

	"casebook/internal/library"
)

// glossaryText maps what Korean SREs type to the English the library's
// text mostly uses (see the file's header).
//
//go:embed glossary.txt
var glossaryText string

// glossary is parsed once; a malformed line is a programming error caught
// by the package's tests at start-up.
var glossary = mustParseGlossary(glossaryText)

// koGlossary finds Korean expressions in query words.
type koGlossary struct {
	entries []glossEntry
}

type glossEntry struct {
	words   []string // normalised, as queryWords leaves them
	compact string   // the words without spaces: "안보임" for "안 보임"
	english []string
}

// glossSpan is an expression found at a query word: words [start, end).
type glossSpan struct {
	end     int
	english []string
}

func mustParseGlossary(text string) *koGlossary {
	g, err := parseGlossary(text)
	if err != nil {
		panic(err)
	}
	return g
}

func parseGlossary(text string) (*koGlossary, error) {
	g := &koGlossary{}
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ko, en, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("search: glossary line %d: no '='", n+1)
		}
		var english []string
		for _, e := range strings.Split(en, ";") {
			if e = strings.TrimSpace(e); e != "" {
				english = append(english, e)
			}
		}
		if len(english) == 0 {
			return nil, fmt.Errorf("search: glossary line %d: no English", n+1)
		}
		for _, k := range strings.Split(ko, ",") {
			var words []string
			for _, f := range strings.Fields(k) {
				words = append(words, queryWords(strings.ToLower(f))...)
			}
			if len(words) == 0 {
				return nil, fmt.Errorf("search: glossary line %d: empty Korean spelling", n+1)
			}
			g.entries = append(g.entries, glossEntry{words: words, compact: strings.Join(words, ""), english: english})
		}
	}
	return g, nil
}

// withNames is g and the taxonomy's names: each alias renders as its name.
func (g *koGlossary) withNames(names []library.Name) *koGlossary {
	out := &koGlossary{entries: slices.Clip(g.entries)}
	for _, n := range names {
		for _, a := range n.Aliases {
			var words []string
			for _, f := range strings.Fields(strings.ToLower(a)) {
				words = append(words, queryWords(f)...)
			}
			if len(words) > 0 {
				out.entries = append(out.entries, glossEntry{words: words, compact: strings.Join(words, ""), english: []string{n.Name}})
			}
		}
	}
	return out
}

// spans finds the longest expression starting at each query word.
func (g *koGlossary) spans(words []string) map[int]glossSpan {
	lower := make([]string, len(words))
	for i, w := range words {
		lower[i] = strings.ToLower(w)
	}
	out := map[int]glossSpan{}
	for i := 0; i < len(lower); i++ {
		best := glossSpan{}
		for _, e := range g.entries {
			end := -1
			if len(e.words) > 1 && lower[i] == e.compact {
				end = i + 1
			} else if i+len(e.words) <= len(lower) {
				end = i + len(e.words)
				for j, w := range e.words {
					if lower[i+j] != w {
						end = -1
						break
					}
				}
			}
			if end > best.end {
				best = glossSpan{end: end, english: e.english}
			}
		}
		if best.end > 0 {
			out[i] = best
			i = best.end - 1
		}
	}
	return out
}
