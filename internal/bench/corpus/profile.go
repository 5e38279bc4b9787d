package corpus

import (
	"math"
	"sort"
	"strings"
	"unicode"

	"casebook/internal/library"
)

// Profile summarises a library's shape, so the report can show that a
// generated library looks like the shipped one.
type Profile struct {
	Incidents int
	// MeanTerms is the mean number of terms per incident, by facet.
	MeanTerms map[library.Facet]float64
	// MeanWords is the mean number of words per section, by section title,
	// and MeanTotalWords over the whole body.
	MeanWords      map[string]float64
	MeanTotalWords float64
	// Vocabulary is the number of distinct lower-cased words; ZipfS the
	// slope of log frequency over log rank for the 1,000 most frequent.
	Vocabulary int
	ZipfS      float64
}

// Describe measures lib's profile.
func Describe(lib *library.Library) Profile {
	p := Profile{Incidents: len(lib.Incidents), MeanTerms: map[library.Facet]float64{}, MeanWords: map[string]float64{}}
	if p.Incidents == 0 {
		return p
	}
	freq := map[string]int{}
	total := 0
	for _, in := range lib.Incidents {
		for _, f := range termFacets {
			p.MeanTerms[f] += float64(len(in.Terms(f)))
		}
		for _, s := range in.FullSections() {
			toks := tokenize(s.Markdown)
			p.MeanWords[s.Title] += float64(len(toks))
			total += len(toks)
			for _, t := range toks {
				if w := normalWord(t); w != "" {
					freq[w]++
				}
			}
		}
	}
	n := float64(p.Incidents)
	for f := range p.MeanTerms {
		p.MeanTerms[f] /= n
	}
	for s := range p.MeanWords {
		p.MeanWords[s] /= n
	}
	p.MeanTotalWords = float64(total) / n
	p.Vocabulary = len(freq)
	p.ZipfS = zipfSlope(freq, 1000)
	return p
}

func normalWord(tok string) string {
	return strings.ToLower(strings.TrimFunc(tok, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }))
}

// zipfSlope fits log(freq) = c - s*log(rank) by least squares over the top
// ranks and returns s (about 1 for natural text).
func zipfSlope(freq map[string]int, top int) float64 {
	counts := make([]int, 0, len(freq))
	for _, c := range freq {
		counts = append(counts, c)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(counts)))
	if len(counts) > top {
		counts = counts[:top]
	}
	if len(counts) < 2 {
		return 0
	}
	var sx, sy, sxx, sxy float64
	for i, c := range counts {
		x, y := math.Log(float64(i+1)), math.Log(float64(c))
		sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
	}
	k := float64(len(counts))
	return -(k*sxy - sx*sy) / (k*sxx - sx*sx)
}
