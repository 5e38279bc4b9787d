package search

import (
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
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
	terms []string // the distinct terms matched in text
	order int      // the earliest segment holding the text, for a stable order
}

// shown is how a query's excerpts are shown: the query's Korean words
// (plan.korean), which a Korean highlight must hold, and whether the
// reader reads Korean.
type shown struct {
	korean []string
	ko     bool
}

// fragments builds highlighted excerpts of d from the match locations the
// index reported. Offsets point into the very strings document() indexes,
// which is why nothing needs to be stored in the index. A match in Hangul
// is widened to its whole word and kept only when that word holds one of
// the query's Korean words (koreanWord). For a Korean reader, the places
// in Korean text are shown when there are any; the English twin's text
// only when nothing Korean matched.
func fragments(d *document, locs []matchLoc, sh shown) map[string][]string {
	if d == nil {
		return nil
	}
	// Places are found by their key and text as a pair (the same section
	// text is in several fields), by a walk over the few places of one
	// document, rather than maps of places and of terms per place, which
	// made much of a search's garbage. Concatenating key and text as the key
	// copied every matched section once per match location.
	var places []place
	for _, l := range locs {
		segs := d.field(l.field)
		i := l.array
		if i >= len(segs) || segs[i].key == "" || l.end > len(segs[i].text) || l.start >= l.end {
			continue
		}
		s := segs[i]
		sp := span{l.start, l.end}
		if hasHangul(s.text[l.start:l.end]) {
			var ok bool
			if sp, ok = koreanWord(s.text, sp, sh.korean); !ok {
				continue
			}
		}
		order := i*len(highlightFields) + slices.Index(highlightFields, l.field)
		k := slices.IndexFunc(places, func(p place) bool { return p.key == s.key && p.text == s.text })
		if k < 0 {
			k = len(places)
			places = append(places, place{key: s.key, text: s.text, order: order})
		}
		p := &places[k]
		p.order = min(p.order, order)
		p.spans = append(p.spans, sp)
		if !slices.Contains(p.terms, l.term) {
			p.terms = append(p.terms, l.term)
		}
	}
	if sh.ko && slices.ContainsFunc(places, func(p place) bool { return hasHangul(p.text) }) {
		places = slices.DeleteFunc(places, func(p place) bool { return englishText(p) })
	}
	sort.SliceStable(places, func(i, j int) bool {
		a, b := &places[i], &places[j]
		if (a.key == "title") != (b.key == "title") {
			return a.key == "title"
		}
		if sh.ko && hasHangul(a.text) != hasHangul(b.text) {
			return hasHangul(a.text)
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
	for i := range places {
		p := &places[i]
		shown, seen := out[p.key]
		if !seen {
			if p.key != "title" && keys == maxFragmentKeys {
				continue
			}
			if p.key != "title" {
				keys++
			}
			shown = make([]string, 0, maxPerKey)
		}
		if len(shown) < maxPerKey {
			out[p.key] = append(shown, excerpt(p.text, p.spans))
		}
	}
	return out
}

// englishText is a place in the English twin (title, summary, a body
// section's prose or commands), which a Korean reader gets in Korean where
// it matched there: a body's commands repeat in every playbook, and the
// Korean prose around them says more. Signals and sources are the messages
// and titles as published, the same on both pages.
func englishText(p place) bool {
	return !hasHangul(p.text) && (p.key == "title" || p.key == "summary" || strings.HasPrefix(p.key, "#"))
}

// koreanWord widens a match in Hangul (a syllable pair of the bigram
// analysis, "그레" of "업그레이드") to the whole run of Hangul around it,
// the word as written with its particle ("업그레이드가"), and keeps it only
// when that word holds one of the query's Korean words: a pair the query
// shares with an unrelated word ("이미" of "이미지" in "이미 배포된") is
// not a match a reader would recognise. With no Korean words to check
// against, the word is kept.
func koreanWord(text string, sp span, korean []string) (span, bool) {
	for sp.start > 0 {
		r, n := utf8.DecodeLastRuneInString(text[:sp.start])
		if !isHangul(r) {
			break
		}
		sp.start -= n
	}
	for sp.end < len(text) {
		r, n := utf8.DecodeRuneInString(text[sp.end:])
		if !isHangul(r) {
			break
		}
		sp.end += n
	}
	if len(korean) == 0 {
		return sp, true
	}
	word := text[sp.start:sp.end]
	for _, k := range korean {
		if strings.Contains(word, k) {
			return sp, true
		}
	}
	return sp, false
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
	b.Grow(to - from + len(spans)*len("<mark></mark>") + 2*len("…") + 16)
	if from > 0 {
		b.WriteString("…")
	}
	pos := from
	for _, s := range spans {
		if s.start < pos || s.end > to {
			continue
		}
		writePlain(&b, text[pos:s.start])
		b.WriteString("<mark>")
		writeEscaped(&b, text[s.start:s.end])
		b.WriteString("</mark>")
		pos = s.end
	}
	writePlain(&b, text[pos:to])
	if to < len(text) {
		b.WriteString("…")
	}
	return b.String()
}

// writePlain writes s escaped; text holding line breaks or tabs has its
// white space folded into single spaces, since code blocks are shown
// inline in a result list.
func writePlain(b *strings.Builder, s string) {
	if strings.ContainsAny(s, "\n\t") {
		lead, trail := strings.HasPrefix(s, " ") || strings.HasPrefix(s, "\n"), strings.HasSuffix(s, " ") || strings.HasSuffix(s, "\n")
		if lead {
			b.WriteByte(' ')
		}
		for i, f := range strings.Fields(s) {
			if i > 0 {
				b.WriteByte(' ')
			}
			writeEscaped(b, f)
		}
		if trail {
			b.WriteByte(' ')
		}
		return
	}
	writeEscaped(b, s)
}

// htmlEscaper escapes as html.EscapeString does (the same five
// replacements); its WriteString writes into the excerpt's builder without
// making the escaped string first.
var htmlEscaper = strings.NewReplacer(`&`, "&amp;", `'`, "&#39;", `<`, "&lt;", `>`, "&gt;", `"`, "&#34;")

func writeEscaped(b *strings.Builder, s string) { htmlEscaper.WriteString(b, s) }

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
