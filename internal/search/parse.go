package search

import (
	"fmt"
	"strconv"
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
// it cannot read: invalid UTF-8, control characters and queries too long
// to be typed. An unclosed quote runs to the end of the query, as in web
// search engines: a phrase whose closing quote was forgotten, or a pasted
// error cut after a quote (`is forbidden: User "system:serviceaccount:`),
// is searched rather than refused.
func parseQuery(s string) (*userQuery, error) {
	if !utf8.ValidString(s) {
		return nil, badQueryMsg("query.utf8")
	}
	if len(s) > MaxQueryBytes {
		return nil, badQueryMsg("query.bytes", "bytes", strconv.Itoa(len(s)), "max", strconv.Itoa(MaxQueryBytes))
	}
	for _, r := range s {
		if unicode.IsControl(r) && r != '\t' && r != '\n' && r != '\r' {
			return nil, badQueryMsg("query.control", "char", fmt.Sprintf("%U", r))
		}
	}
	s = smartQuotes.Replace(s)
	if strings.Count(s, `"`)%2 == 1 {
		s += `"`
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
		return nil, badQueryMsg("query.words", "count", strconv.Itoa(len(loose)), "max", strconv.Itoa(maxQueryWords))
	}
	if len(q.phrases) > maxPhrases {
		return nil, badQueryMsg("query.phrases", "count", strconv.Itoa(len(q.phrases)), "max", strconv.Itoa(maxPhrases))
	}
	return q, nil
}
