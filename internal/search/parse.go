package search

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// userQuery is a query as typed, split into loose words and "quoted
// phrases".
type userQuery struct {
	words   []string // outside quotes, in order, without duplicates
	phrases []string // inside quotes
	loose   string   // the text outside quotes, for the implicit phrase
}

func (q *userQuery) empty() bool { return len(q.words) == 0 && len(q.phrases) == 0 }

// smartQuotes are normalised to '"' because people paste queries from chat
// and documents.
var smartQuotes = strings.NewReplacer("“", `"`, "”", `"`, "„", `"`, "＂", `"`)

// parseQuery splits s into words and quoted phrases. It rejects only what
// it cannot read unambiguously: invalid UTF-8, control characters, an
// unclosed quote and queries too long to be typed.
func parseQuery(s string) (*userQuery, error) {
	if !utf8.ValidString(s) {
		return nil, badQuery("the query is not valid UTF-8")
	}
	if len(s) > maxQueryBytes {
		return nil, badQuery("the query is %d bytes long; the limit is %d", len(s), maxQueryBytes)
	}
	for _, r := range s {
		if unicode.IsControl(r) && r != '\t' && r != '\n' && r != '\r' {
			return nil, badQuery("the query contains control character %U", r)
		}
	}
	s = smartQuotes.Replace(s)
	if strings.Count(s, `"`)%2 == 1 {
		return nil, badQuery(`unclosed quote: close the phrase with " or remove the quote`)
	}
	q := &userQuery{}
	var loose []string
	seen := map[string]bool{}
	for i, part := range strings.Split(s, `"`) {
		if i%2 == 1 {
			if p := strings.Join(strings.Fields(part), " "); p != "" {
				q.phrases = append(q.phrases, p)
			}
			continue
		}
		for _, w := range strings.Fields(part) {
			loose = append(loose, w)
			if k := strings.ToLower(w); !seen[k] {
				seen[k] = true
				q.words = append(q.words, w)
			}
		}
	}
	q.loose = strings.Join(loose, " ")
	if len(loose) > maxQueryWords {
		return nil, badQuery("the query has %d words; the limit is %d (paste the error line that matters, or use the triage page for a whole log)", len(loose), maxQueryWords)
	}
	if len(q.phrases) > maxPhrases {
		return nil, badQuery("the query has %d quoted phrases; the limit is %d", len(q.phrases), maxPhrases)
	}
	return q, nil
}
