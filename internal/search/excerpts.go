package search

import (
	"sort"
	"strings"
)

// Excerpt is one highlighted fragment of a hit with the field it came
// from ("summary", "signals", a body section's anchor without its "#").
type Excerpt struct {
	Field string
	HTML  string
}

// Excerpts orders a hit's fragments the way every door shows them and
// keeps the first n: body sections first (where the story is), then
// signals, the summary, and the rest (title, the named terms) by name.
func (h Hit) Excerpts(n int) []Excerpt {
	keys := make([]string, 0, len(h.Fragments))
	for k := range h.Fragments {
		keys = append(keys, k)
	}
	rank := func(k string) int {
		switch {
		case strings.HasPrefix(k, "#"):
			return 0
		case k == "signals":
			return 1
		case k == "summary":
			return 2
		}
		return 3
	}
	sort.Slice(keys, func(i, j int) bool {
		if rank(keys[i]) != rank(keys[j]) {
			return rank(keys[i]) < rank(keys[j])
		}
		return keys[i] < keys[j]
	})
	var out []Excerpt
	for _, k := range keys {
		for _, f := range h.Fragments[k] {
			if len(out) == n {
				return out
			}
			out = append(out, Excerpt{Field: strings.TrimPrefix(k, "#"), HTML: f})
		}
	}
	return out
}
