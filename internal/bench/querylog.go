package bench

import (
	"math/rand/v2"
	"sort"
	"strings"
	"unicode"

	"casebook/internal/library"
)

// A query log is what a search box receives over a day: a few queries
// asked again and again, a long tail asked once. QueryLog builds one from
// the library it is run against, so every query can find something, and
// samples it with a Zipf distribution, the shape query logs have.

// LogSpec sizes a query log.
type LogSpec struct {
	Distinct int     // distinct queries, at least
	Requests int     // length of the sampled log
	Skew     float64 // Zipf exponent s (> 1)
	Seed     uint64
}

// DefaultLog is the log of the benchmark: 6,000 distinct queries, 100,000
// requests, s = 1.1.
var DefaultLog = LogSpec{Distinct: 6000, Requests: 100_000, Skew: 1.1, Seed: 1}

// QueryLog is a sampled log: Queries are the distinct queries, most
// popular first; Log is the sequence of requests as indexes into Queries.
type QueryLog struct {
	Queries []Query
	Log     []int
}

// koreanForms are how Korean SREs attach particles and endings to the
// words they type.
var koreanForms = []string{"", "가", "이", "를", "에서", " 안 됨", " 실패", " 장애", " 원인"}

// stopWords are left out of the word combinations drawn from titles.
var stopWords = map[string]bool{"the": true, "a": true, "an": true, "of": true, "and": true, "or": true, "to": true, "in": true,
	"on": true, "for": true, "by": true, "with": true, "its": true, "it": true, "was": true, "were": true, "is": true, "at": true,
	"from": true, "that": true, "this": true, "as": true, "be": true, "had": true, "has": true, "after": true, "into": true, "but": true}

// BuildQueryLog draws the distinct queries from lib — taxonomy labels,
// Korean labels and aliases (with particles), playbook signals (pasted
// error lines), two- to four-word spans of incident titles, typos of
// those, and mixed Korean-English pairs — then samples the log.
func BuildQueryLog(lib *library.Library, spec LogSpec) *QueryLog {
	rng := rand.New(rand.NewPCG(spec.Seed, 0x5eed))
	seen := map[string]bool{}
	var out []Query
	add := func(cat, text string) {
		text = strings.Join(strings.Fields(text), " ")
		if text == "" || len(text) > 200 || seen[strings.ToLower(text)] {
			return
		}
		seen[strings.ToLower(text)] = true
		out = append(out, Query{Category: cat, Text: text})
	}
	var koNames, enNames []string
	for _, f := range library.Facets {
		for _, t := range lib.Taxonomy.Terms(f) {
			add("label", t.Label)
			enNames = append(enNames, t.Label)
			if t.LabelKo != "" {
				add("korean", t.LabelKo)
				koNames = append(koNames, t.LabelKo)
			}
			for _, a := range t.Aliases {
				if hasHangulRune(a) {
					add("korean", a)
					koNames = append(koNames, a)
				} else {
					add("label", a)
					enNames = append(enNames, a)
				}
			}
		}
	}
	for _, k := range koNames {
		add("korean", k+koreanForms[rng.IntN(len(koreanForms))])
	}
	for _, pb := range lib.Playbooks {
		for _, s := range pb.Signals {
			add("error", s)
		}
	}
	for _, q := range Mix() {
		add(q.Category, q.Text)
	}
	// Spans of titles: what people remember of an incident.
	var titles [][]string
	for _, in := range lib.Incidents {
		var words []string
		for _, w := range strings.Fields(in.Title) {
			w = strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
			if w != "" && !stopWords[strings.ToLower(w)] {
				words = append(words, strings.ToLower(w))
			}
		}
		if len(words) >= 2 {
			titles = append(titles, words)
		}
	}
	for tries := 0; len(out) < spec.Distinct && tries < spec.Distinct*20 && len(titles) > 0; tries++ {
		words := titles[rng.IntN(len(titles))]
		n := 2 + rng.IntN(3)
		if n > len(words) {
			n = len(words)
		}
		at := rng.IntN(len(words) - n + 1)
		span := append([]string(nil), words[at:at+n]...)
		switch r := rng.Float64(); {
		case r < 0.12: // a typo in the longest word
			longest := 0
			for i, w := range span {
				if len(w) > len(span[longest]) {
					longest = i
				}
				_ = w
			}
			span[longest] = typo(rng, span[longest])
			add("typo", strings.Join(span, " "))
		case r < 0.22 && len(koNames) > 0: // mixed Korean and English
			add("korean", span[0]+" "+koNames[rng.IntN(len(koNames))])
		default:
			add("words", strings.Join(span, " "))
		}
	}
	// The popular queries are the short, general ones: labels first, then
	// the rest in a seeded order.
	sort.SliceStable(out, func(i, j int) bool { return popularity(out[i]) < popularity(out[j]) })
	head := 0
	for head < len(out) && popularity(out[head]) == 0 {
		head++
	}
	tail := out[head:]
	rng.Shuffle(len(tail), func(i, j int) { tail[i], tail[j] = tail[j], tail[i] })
	ql := &QueryLog{Queries: out}
	z := rand.NewZipf(rand.New(rand.NewPCG(spec.Seed, 0x21bf)), spec.Skew, 1, uint64(len(out)-1))
	for range spec.Requests {
		ql.Log = append(ql.Log, int(z.Uint64()))
	}
	return ql
}

// popularity orders queries: taxonomy labels (0) before the rest (1).
func popularity(q Query) int {
	if q.Category == "label" {
		return 0
	}
	return 1
}

// typo swaps, drops or doubles a letter, as people mistype.
func typo(rng *rand.Rand, w string) string {
	r := []rune(w)
	if len(r) < 4 {
		return w
	}
	i := 1 + rng.IntN(len(r)-2)
	switch rng.IntN(3) {
	case 0:
		r[i], r[i+1] = r[i+1], r[i]
	case 1:
		r = append(r[:i], r[i+1:]...)
	default:
		r = append(r[:i+1], r[i:]...)
	}
	return string(r)
}

func hasHangulRune(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Hangul, r) {
			return true
		}
	}
	return false
}

// Distinct is how many different queries the sampled log asks.
func (ql *QueryLog) Distinct() int {
	seen := map[int]bool{}
	for _, i := range ql.Log {
		seen[i] = true
	}
	return len(seen)
}

// Paths renders the log as request paths on prefix ("/api/search?").
func (ql *QueryLog) Paths(prefix string) []string {
	rendered := make([]string, len(ql.Queries))
	for i, q := range ql.Queries {
		rendered[i] = prefix + q.URLQuery()
	}
	out := make([]string, len(ql.Log))
	for i, k := range ql.Log {
		out[i] = rendered[k]
	}
	return out
}
