package search

import (
	"html"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	bsearch "github.com/blevesearch/bleve/v2/search"
)

const (
	fragmentBytes   = 220 // about two lines of a result list
	fragmentLead    = 50  // context kept before the first match
	maxFragmentKeys = 3   // places shown per hit besides the title
	maxPerKey       = 2
)

// keyOrder ranks places with equally many matched terms: the summary says
// what happened, a signal is what the user pasted, prose explains more than
// code.
var keyOrder = map[string]int{"summary": 0, "signals": 1, "sources": 9}

type span struct{ start, end int }

// highlightFields are the fields whose match locations fragments reads, in
// the order that breaks ties between equally good places (with the segment's
// position in its field first): the locations arrive in a map, and the
// same query must show the same excerpts every time.
var highlightFields = []string{fieldAll, fieldWords, fieldCode, fieldKorean}

type place struct {
	key   string
	text  string
	spans []span
	terms map[string]bool
	order int // the earliest segment holding the text, for a stable order
}

// fragments builds highlighted excerpts of d from the match locations the
// index reported. Offsets point into the very strings document() indexes,
// which is why nothing needs to be stored in the index.
func fragments(d *document, locs bsearch.FieldTermLocationMap) map[string][]string {
	if d == nil {
		return nil
	}
	// Places are keyed by their key and text as a pair: concatenating the
	// two copied every matched section once per match location, which was
	// half of the highlighting.
	type placeKey struct{ key, text string }
	byText := map[placeKey]*place{}
	var places []*place
	for field, terms := range locs {
		segs := d.text[field]
		fieldOrder := slices.Index(highlightFields, field)
		for term, ls := range terms {
			for _, l := range ls {
				i := 0
				if len(l.ArrayPositions) > 0 {
					i = int(l.ArrayPositions[0])
				}
				if i >= len(segs) || segs[i].key == "" || int(l.End) > len(segs[i].text) || l.Start >= l.End {
					continue
				}
				s := segs[i]
				order := i*len(highlightFields) + fieldOrder
				pk := placeKey{s.key, s.text}
				p := byText[pk]
				if p == nil {
					p = &place{key: s.key, text: s.text, terms: map[string]bool{}, order: order}
					byText[pk] = p
					places = append(places, p)
				}
				p.order = min(p.order, order)
				p.spans = append(p.spans, span{int(l.Start), int(l.End)})
				p.terms[term] = true
			}
		}
	}
	sort.SliceStable(places, func(i, j int) bool {
		a, b := places[i], places[j]
		if (a.key == "title") != (b.key == "title") {
			return a.key == "title"
		}
		if len(a.terms) != len(b.terms) {
			return len(a.terms) > len(b.terms)
		}
		if rankKey(a.key) != rankKey(b.key) {
			return rankKey(a.key) < rankKey(b.key)
		}
		return a.order < b.order
	})
	out := map[string][]string{}
	keys := 0
	for _, p := range places {
		if _, seen := out[p.key]; !seen {
			if p.key != "title" && keys == maxFragmentKeys {
				continue
			}
			if p.key != "title" {
				keys++
			}
		}
		if len(out[p.key]) < maxPerKey {
			out[p.key] = append(out[p.key], excerpt(p.text, p.spans))
		}
	}
	return out
}

func rankKey(k string) int {
	if r, ok := keyOrder[k]; ok {
		return r
	}
	return 5 // body sections
}

// excerpt cuts the window of text with the most matches, escapes it and
// wraps the matches in <mark>.
func excerpt(text string, spans []span) string {
	spans = mergeSpans(spans)
	from, to := 0, len(text)
	if len(text) > fragmentBytes {
		best, bestN := 0, 0
		for i, s := range spans {
			n := 0
			for _, t := range spans[i:] {
				if t.end <= s.start+fragmentBytes-fragmentLead {
					n++
				}
			}
			if n > bestN {
				best, bestN = i, n
			}
		}
		from = snapStart(text, max(0, spans[best].start-fragmentLead), spans[best].start)
		to = snapEnd(text, min(len(text), from+fragmentBytes))
	}
	var b strings.Builder
	if from > 0 {
		b.WriteString("…")
	}
	pos := from
	for _, s := range spans {
		if s.start < pos || s.end > to {
			continue
		}
		b.WriteString(plain(text[pos:s.start]))
		b.WriteString("<mark>")
		b.WriteString(html.EscapeString(text[s.start:s.end]))
		b.WriteString("</mark>")
		pos = s.end
	}
	b.WriteString(plain(text[pos:to]))
	if to < len(text) {
		b.WriteString("…")
	}
	return b.String()
}

// plain escapes text and folds line breaks and indentation into single
// spaces, since code blocks are shown inline in a result list.
func plain(s string) string {
	if strings.ContainsAny(s, "\n\t") {
		lead, trail := strings.HasPrefix(s, " ") || strings.HasPrefix(s, "\n"), strings.HasSuffix(s, " ") || strings.HasSuffix(s, "\n")
		s = strings.Join(strings.Fields(s), " ")
		if lead {
			s = " " + s
		}
		if trail {
			s += " "
		}
	}
	return html.EscapeString(s)
}

func mergeSpans(spans []span) []span {
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	out := spans[:0]
	for _, s := range spans {
		if n := len(out); n > 0 && s.start <= out[n-1].end {
			out[n-1].end = max(out[n-1].end, s.end)
			continue
		}
		out = append(out, s)
	}
	return out
}

// snapStart moves i forward to the start of a word, but not past limit.
func snapStart(text string, i, limit int) int {
	if i == 0 {
		return 0
	}
	if j := strings.IndexAny(text[i:limit], " \n"); j >= 0 {
		return i + j + 1
	}
	for i > 0 && !utf8.RuneStart(text[i]) {
		i--
	}
	return i
}

// snapEnd moves i back to the end of a word.
func snapEnd(text string, i int) int {
	if i >= len(text) {
		return len(text)
	}
	if j := strings.LastIndexAny(text[:i], " \n"); j > i-40 && j > 0 {
		return j
	}
	for i > 0 && !utf8.RuneStart(text[i]) {
		i--
	}
	return i
}
