package search

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// appendBody appends the JSON of everything in r but the query, byte for
// byte what encoding/json writes for resultBody (TestAppendBodyAsJSON
// holds it to that). encoding/json walked the answer by reflection, sorted
// each map's keys through reflect.Value and allocated as it went.
func (r *Result) appendBody(b []byte) ([]byte, error) {
	for i := range r.Hits {
		if f := r.Hits[i].Score; math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, errNotFinite
		}
	}
	b = append(b, `{"total":`...)
	b = strconv.AppendInt(b, int64(r.Total), 10)
	b = append(b, `,"hits":`...)
	b = appendList(b, r.Hits, appendHit)
	b = append(b, `,"facets":`...)
	b = appendMap(b, r.Facets, func(b []byte, fcs []FacetCount) []byte { return appendList(b, fcs, appendFacetCount) })
	b = append(b, `,"suggested_filters":`...)
	b = appendList(b, r.SuggestedFilters, appendSuggestion)
	if r.Exact != "" {
		b = append(b, `,"exact":`...)
		b = appendJSONString(b, r.Exact)
	}
	if r.Best != nil {
		b = append(b, `,"best":`...)
		b = appendBest(b, r.Best)
	}
	if r.Partial {
		b = append(b, `,"partial":true`...)
	}
	if r.Help != nil {
		b = append(b, `,"help":`...)
		b = appendHelp(b, r.Help)
	}
	return append(b, '}'), nil
}

// appendHit writes h; its score is finite (appendBody checked).
func appendHit(b []byte, h *Hit) []byte {
	b = append(b, `{"id":`...)
	b = appendJSONString(b, h.ID)
	b = append(b, `,"kind":`...)
	b = appendJSONString(b, h.Kind)
	b = append(b, `,"title":`...)
	b = appendJSONString(b, h.Title)
	b = append(b, `,"summary":`...)
	b = appendJSONString(b, h.Summary)
	if h.TitleKo != "" {
		b = append(b, `,"title_ko":`...)
		b = appendJSONString(b, h.TitleKo)
	}
	if h.SummaryKo != "" {
		b = append(b, `,"summary_ko":`...)
		b = appendJSONString(b, h.SummaryKo)
	}
	b = append(b, `,"score":`...)
	b = appendFloat(b, h.Score)
	if h.Exact {
		b = append(b, `,"exact":true`...)
	}
	if h.Best {
		b = append(b, `,"best":true`...)
	}
	if len(h.Fragments) > 0 {
		b = append(b, `,"fragments":`...)
		b = appendMap(b, h.Fragments, appendStrings)
	}
	return append(b, '}')
}

func appendBest(b []byte, x *Best) []byte {
	b = append(b, `{"route":`...)
	b = appendJSONString(b, x.Route)
	b = append(b, `,"playbook":`...)
	b = appendJSONString(b, x.Playbook)
	b = append(b, `,"section":`...)
	b = appendJSONString(b, x.Section)
	b = append(b, `,"title":`...)
	b = appendJSONString(b, x.Title)
	if x.TitleKo != "" {
		b = append(b, `,"title_ko":`...)
		b = appendJSONString(b, x.TitleKo)
	}
	b = append(b, `,"url":`...)
	b = appendJSONString(b, x.URL)
	if len(x.Commands) > 0 {
		b = append(b, `,"commands":`...)
		b = appendStrings(b, x.Commands)
	}
	return append(b, '}')
}

func appendFacetCount(b []byte, fc *FacetCount) []byte {
	b = append(b, `{"term":`...)
	b = appendJSONString(b, fc.Term)
	b = append(b, `,"label":`...)
	b = appendJSONString(b, fc.Label)
	b = append(b, `,"count":`...)
	b = strconv.AppendInt(b, int64(fc.Count), 10)
	return append(b, '}')
}

func appendSuggestion(b []byte, s *Suggestion) []byte {
	b = append(b, `{"facet":`...)
	b = appendJSONString(b, string(s.Facet))
	b = append(b, `,"term":`...)
	b = appendJSONString(b, s.Term)
	b = append(b, `,"label":`...)
	b = appendJSONString(b, s.Label)
	if s.LabelKo != "" {
		b = append(b, `,"label_ko":`...)
		b = appendJSONString(b, s.LabelKo)
	}
	b = append(b, `,"count":`...)
	b = strconv.AppendInt(b, int64(s.Count), 10)
	return append(b, '}')
}

func appendHelp(b []byte, h *Help) []byte {
	b = append(b, '{')
	if h.DidYouMean != "" {
		b = append(b, `"did_you_mean":`...)
		b = appendJSONString(b, h.DidYouMean)
	}
	if len(h.DropFilters) > 0 {
		if h.DidYouMean != "" {
			b = append(b, ',')
		}
		b = append(b, `"drop_filters":`...)
		b = appendList(b, h.DropFilters, func(b []byte, d *DropFilter) []byte {
			b = append(b, `{"facet":`...)
			b = appendJSONString(b, d.Facet)
			b = append(b, `,"terms":`...)
			b = appendStrings(b, d.Terms)
			b = append(b, `,"count":`...)
			b = strconv.AppendInt(b, int64(d.Count), 10)
			return append(b, '}')
		})
	}
	return append(b, '}')
}

func appendStrings(b []byte, ss []string) []byte {
	return appendList(b, ss, func(b []byte, s *string) []byte { return appendJSONString(b, *s) })
}

// appendList writes xs as a JSON array of what each writes, or null for a
// nil slice, as encoding/json does.
func appendList[T any](b []byte, xs []T, each func([]byte, *T) []byte) []byte {
	if xs == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = each(b, &xs[i])
	}
	return append(b, ']')
}

// appendMap writes m as a JSON object with its keys sorted, or null for a
// nil map, as encoding/json does.
func appendMap[V any](b []byte, m map[string]V, each func([]byte, V) []byte) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, k)
		b = append(b, ':')
		b = each(b, m[k])
	}
	return append(b, '}')
}

// errNotFinite is a score encoding/json would refuse to encode.
var errNotFinite = errors.New("search: score is not a finite number")

// appendFloat writes a finite f as encoding/json does (ES6 number
// formatting).
func appendFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 → e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

const hexDigits = "0123456789abcdef"

// jsonSafe marks the ASCII bytes written as they are.
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// appendJSONString writes s as a JSON string the way encoding/json does with
// HTML escaping on (its default): <, > and & as \u003c, \u003e, \u0026,
// U+2028 and U+2029 escaped, invalid UTF-8 as \ufffd. Safe ASCII bytes
// are looked up in a table and copied a run at a time; two- and three-byte
// sequences (Hangul is three) are checked in place, and only other bytes
// go through utf8.DecodeRuneInString.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if jsonSafe[c] {
				i++
				// After a safe ASCII byte, eight at a time: most of an
				// answer is ASCII (tried only here, not before each
				// Hangul syllable).
				for i+8 <= len(s) && safe8(load8(s, i)) {
					i += 8
				}
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		if c >= 0xC2 && c <= 0xDF && i+1 < len(s) && isCont(s[i+1]) {
			i += 2
			continue
		}
		if c >= 0xE0 && c <= 0xEF && i+2 < len(s) && isCont(s[i+2]) {
			c1 := s[i+1]
			lo, hi := byte(0x80), byte(0xBF)
			switch c {
			case 0xE0:
				lo = 0xA0 // no overlong forms
			case 0xED:
				hi = 0x9F // no surrogates
			}
			if c1 >= lo && c1 <= hi {
				if c == 0xE2 && c1 == 0x80 && (s[i+2] == 0xA8 || s[i+2] == 0xA9) {
					b = append(b, s[start:i]...)
					b = append(b, '\\', 'u', '2', '0', '2', hexDigits[s[i+2]&0xF])
					i += 3
					start = i
					continue
				}
				i += 3
				continue
			}
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// isCont reports whether c is a UTF-8 continuation byte.
func isCont(c byte) bool { return c&0xC0 == 0x80 }

// load8 reads the eight bytes of s from i, little-endian.
func load8(s string, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// safe8 reports whether the eight bytes of x are all ASCII that JSON
// writes as they are (jsonSafe), by the bit tricks for finding a byte
// below a bound or equal to a value in a word.
func safe8(x uint64) bool {
	q := x ^ (ones * '"')
	bs := x ^ (ones * '\\')
	lt := x ^ (ones * '<')
	gt := x ^ (ones * '>')
	am := x ^ (ones * '&')
	bad := x | (x - ones*0x20) | // ≥ 0x80, or a control byte
		((q - ones) &^ q) | ((bs - ones) &^ bs) | ((lt - ones) &^ lt) | ((gt - ones) &^ gt) | ((am - ones) &^ am)
	return bad&highs == 0
}
