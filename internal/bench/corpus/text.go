package corpus

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"unicode"
)

// model is a word-bigram model of some real text. Sampling a successor
// uniformly from the list of observed successors is sampling by bigram
// frequency, and sampling uniformly from the token stream is sampling by
// unigram frequency, which for prose is Zipf-like by nature.
type model struct {
	stream []int32           // every token, in order
	next   map[int32][]int32 // observed successors of each token
	starts []int32           // tokens that open a sentence
}

// lexicon interns the tokens of all models, so the models of single
// documents cost a few slices each.
type lexicon struct {
	words []string
	ids   map[string]int32
}

func newLexicon() *lexicon { return &lexicon{ids: map[string]int32{}} }

func (l *lexicon) id(w string) int32 {
	if id, ok := l.ids[w]; ok {
		return id
	}
	id := int32(len(l.words))
	l.words = append(l.words, w)
	l.ids[w] = id
	return id
}

func newModel() *model { return &model{next: map[int32][]int32{}} }

// add appends the tokens of one text; a sentence never continues into the
// next text.
func (m *model) add(lex *lexicon, tokens []string) {
	prev := int32(-1)
	for _, t := range tokens {
		id := lex.id(t)
		m.stream = append(m.stream, id)
		if prev < 0 || endsSentence(lex.words[prev]) {
			if startsSentence(t) {
				m.starts = append(m.starts, id)
			}
		} else {
			m.next[prev] = append(m.next[prev], id)
		}
		prev = id
	}
}

func (m *model) empty() bool { return len(m.stream) == 0 || len(m.starts) == 0 }

var (
	linkRE     = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	emphasisRE = regexp.MustCompile(`\*\*|__`)
)

// tokenize splits Markdown prose into whitespace-separated tokens, keeping
// punctuation attached as it is written and each `code span` as one token.
// Links keep their text; headings, fences and tables are skipped, list
// markers dropped.
func tokenize(markdown string) []string {
	var out []string
	fenced := false
	for _, line := range strings.Split(markdown, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if fenced || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "|") {
			continue
		}
		line = strings.TrimPrefix(strings.TrimPrefix(line, "- "), "* ")
		line = linkRE.ReplaceAllString(line, "$1")
		line = emphasisRE.ReplaceAllString(line, "")
		out = appendTokens(out, line)
	}
	return out
}

func appendTokens(out []string, s string) []string {
	for len(s) > 0 {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			break
		}
		end := strings.IndexAny(s, " \t")
		if s[0] == '`' {
			// A code span runs to its closing backtick, spaces included,
			// plus any punctuation glued to it.
			if j := strings.IndexByte(s[1:], '`'); j >= 0 {
				end = j + 2
				for end < len(s) && s[end] != ' ' && s[end] != '\t' {
					end++
				}
			}
		}
		if end < 0 {
			end = len(s)
		}
		tok := s[:end]
		if strings.Count(tok, "`")%2 == 1 {
			tok = strings.ReplaceAll(tok, "`", "")
		}
		if tok != "" {
			out = append(out, tok)
		}
		s = s[end:]
	}
	return out
}

func endsSentence(tok string) bool {
	tok = strings.TrimRight(tok, `)"'`)
	return strings.HasSuffix(tok, ".") || strings.HasSuffix(tok, "!") || strings.HasSuffix(tok, "?")
}

// startsSentence accepts tokens a paragraph can open with without Markdown
// reading them as a heading, list, quote or fence.
func startsSentence(tok string) bool {
	r := []rune(tok)
	return len(r) > 0 && unicode.IsUpper(r[0]) && !strings.ContainsAny(tok, "`*#|<>[]")
}

// isWord reports whether a token is plain enough for a title or a front
// matter line: letters, digits and inner punctuation only.
func isWord(tok string) bool {
	for i, r := range tok {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
		case strings.ContainsRune("-./", r) && i > 0:
		default:
			return false
		}
	}
	return tok != ""
}

// writer generates text from a document model mixed with the global one.
type writer struct {
	r      *rand.Rand
	lex    *lexicon
	local  *model // the real incident this one is modelled on
	global *model
	tail   *tailWords
	// tailRank draws ranks in the tail lexicon; nil without a tail.
	tailRank *rand.Zipf
	// follow is the chance of continuing the bigram chain rather than
	// drawing a word by unigram frequency.
	follow float64
	// localShare is the chance a sentence draws from the local model.
	localShare float64
}

func (w *writer) pick(m *model) *model {
	if m == w.local && w.local.empty() {
		return w.global
	}
	return m
}

// sentences writes at least n tokens of whole sentences.
func (w *writer) sentences(b *strings.Builder, n int, plain bool) {
	written := 0
	for written < n {
		m := w.global
		if w.r.Float64() < w.localShare {
			m = w.pick(w.local)
		}
		written += w.sentence(b, m, n-written, plain)
	}
}

// sentence writes one sentence of about max tokens: it ends at the chain's
// first full stop from three tokens on, or is cut with one at a quarter
// over max, so that sections keep the measured lengths. It returns its
// length.
func (w *writer) sentence(b *strings.Builder, m *model, max int, plain bool) int {
	if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") && !strings.HasSuffix(b.String(), " ") {
		b.WriteByte(' ')
	}
	cur := m.starts[w.r.IntN(len(m.starts))]
	for plain && !isWord(w.lex.words[cur]) {
		cur = m.starts[w.r.IntN(len(m.starts))]
	}
	n := 0
	for steps := 0; ; steps++ {
		if steps > 8*max+64 {
			b.WriteByte('.')
			return n
		}
		tok := w.lex.words[cur]
		if plain && !isWord(strings.TrimRight(tok, ".,;")) {
			tok = ""
		}
		if tok != "" {
			if n > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(tok)
			n++
		}
		if endsSentence(tok) && n >= 3 {
			return n
		}
		if n >= max+max/4 || (n >= max && max < 4) {
			b.WriteByte('.')
			return n
		}
		succ := m.next[cur]
		switch {
		case w.tail != nil && w.r.Float64() < w.tail.share:
			if n > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(tailWord(w.tailRank.Uint64()))
			n++
			cur = m.stream[w.r.IntN(len(m.stream))]
		case len(succ) > 0 && w.r.Float64() < w.follow:
			cur = succ[w.r.IntN(len(succ))]
		default:
			cur = m.stream[w.r.IntN(len(m.stream))]
		}
	}
}

// phrase writes n plain words, for titles, without a final full stop.
func (w *writer) phrase(m *model, n int) string {
	var b strings.Builder
	w.sentence(&b, m, n, true)
	s := strings.TrimRight(b.String(), ".,;: ")
	words := strings.Fields(s)
	if len(words) > n+2 {
		words = words[:n+2]
	}
	for i, word := range words {
		words[i] = strings.TrimRight(word, ".,;:")
	}
	return strings.Join(words, " ")
}

// tailWords stands for the rare words a larger library brings: names,
// identifiers and jargon that a 47-incident library has never seen. Real
// vocabularies keep growing with the corpus (Heaps' law); drawing the
// rare words by Zipf rank from a lexicon that grows with N reproduces that.
type tailWords struct {
	share float64 // of tokens
	s     float64 // Zipf exponent
	size  uint64
}

var syllables = []string{"ka", "ro", "ven", "tal", "mi", "dor", "sel", "qua", "ni", "bex", "lo", "tur",
	"an", "pri", "zo", "fen", "gal", "ost", "ur", "wey", "cal", "dri", "mo", "rix"}

// tailWord spells the rare word of rank k from syllables, so the same rank
// is the same word in every document.
func tailWord(k uint64) string {
	var b strings.Builder
	k += uint64(len(syllables) * len(syllables))
	for k > 0 {
		b.WriteString(syllables[k%uint64(len(syllables))])
		k /= uint64(len(syllables))
	}
	return b.String()
}
