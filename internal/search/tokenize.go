package search

import (
	"bytes"
	"sync"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/registry"
)

// Most of the index build's analysis went to bleve's Unicode word
// segmentation (UAX #29, a generated state machine) and the Porter
// stemmer, both run on every word of every document. Nearly all of
// the library is ASCII, whose word boundaries take a few rules, and its
// vocabulary repeats, so a stem is worth computing once.
const (
	tokenizerFast  = "casebook_unicode"
	stemmerCached  = "casebook_porter"
	analyzerEn     = "casebook_en"
	maxCachedStems = 50_000
)

// fastTokenizer splits text into words exactly as bleve's unicode
// tokenizer does (tokenize_test.go compares them): ASCII text by the rules
// of UAX #29 that apply to ASCII, any whitespace-delimited run holding
// other bytes by the unicode tokenizer itself. UAX #29 always breaks at
// ASCII whitespace, so the runs can be segmented apart.
type fastTokenizer struct {
	slow *unicode.UnicodeTokenizer
}

// Character classes of UAX #29's word-break property, for ASCII.
const (
	wbOther byte = iota
	wbSpace
	wbLetter
	wbDigit
	wbUnderscore // ExtendNumLet
	wbMidLetter  // ':'
	wbMidNum     // ',' ';'
	wbMidNumLet  // '.' and the single quote
)

var wbClass = func() (t [128]byte) {
	for c := range 128 {
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			t[c] = wbLetter
		case c >= '0' && c <= '9':
			t[c] = wbDigit
		case c == '_':
			t[c] = wbUnderscore
		case c == ':':
			t[c] = wbMidLetter
		case c == ',' || c == ';':
			t[c] = wbMidNum
		case c == '.' || c == '\'':
			t[c] = wbMidNumLet
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f':
			t[c] = wbSpace
		}
	}
	return t
}()

func (t *fastTokenizer) Tokenize(input []byte) analysis.TokenStream {
	return t.tokenize(input, nil)
}

// tokenArena is the tokens of one analysis at a time, reused by the next:
// an index build analyses every text of the library once, and a token
// apiece was an eighth of the build's allocation. A stream tokenized into
// an arena is valid until the arena's next use; what outlives it (a term's
// bytes, its offsets) must be copied out first.
type tokenArena struct {
	toks  []analysis.Token
	out   analysis.TokenStream
	freqs [numProse]termFreqs // analyse's, emptied by finish
}

func (t *fastTokenizer) tokenize(input []byte, a *tokenArena) analysis.TokenStream {
	want := len(input)/6 + 1
	var arena []analysis.Token
	var out analysis.TokenStream
	if a != nil {
		arena, out = a.toks[:0], a.out[:0]
	}
	if cap(arena) < want {
		arena = make([]analysis.Token, 0, want)
	}
	if cap(out) < want {
		out = make(analysis.TokenStream, 0, want)
	}
	first := arena
	pos := 1
	emit := func(start, end int, typ analysis.TokenType) {
		if len(arena) == cap(arena) {
			arena = make([]analysis.Token, 0, 64)
		}
		arena = append(arena, analysis.Token{Term: input[start:end:end], Start: start, End: end, Position: pos, Type: typ})
		out = append(out, &arena[len(arena)-1])
		pos++
	}
	if a != nil {
		defer func() {
			// Keep the largest buffers for the next text; one that
			// overflowed the first grows to this text's size.
			a.toks, a.out = first[:0], out[:0]
			if len(out) > cap(first) {
				a.toks = make([]analysis.Token, 0, len(out))
			}
		}()
	}
	for i := 0; i < len(input); {
		if input[i] < 0x80 && wbClass[input[i]] == wbSpace {
			i++
			continue
		}
		// A run up to the next ASCII whitespace.
		end, ascii := i, true
		for end < len(input) && (input[end] >= 0x80 || wbClass[input[end]] != wbSpace) {
			ascii = ascii && input[end] < 0x80
			end++
		}
		switch {
		case ascii:
			asciiWords(input, i, end, emit)
		case !utf8.Valid(input[i:end]):
			// Invalid UTF-8 is segmented differently in context: leave the
			// whole text to the unicode tokenizer.
			return t.slow.Tokenize(input)
		default:
			for _, tok := range t.slow.Tokenize(input[i:end]) {
				emit(i+tok.Start, i+tok.End, tok.Type)
			}
		}
		i = end
	}
	return out
}

// asciiWords finds the words of input[from:to], which is ASCII without
// whitespace, by UAX #29: letters, digits and underscores join (WB5, WB8-10,
// WB13a-b); a letter, a colon, a full stop or an apostrophe and a letter join
// (WB6-7); a digit, a comma, a semicolon, a full stop or an apostrophe and a
// digit join (WB11-12). Everything else breaks,
// and segments without letters, digits or underscores are not words.
func asciiWords(input []byte, from, to int, emit func(start, end int, typ analysis.TokenType)) {
	i := from
	for i < to {
		c := wbClass[input[i]]
		if c != wbLetter && c != wbDigit && c != wbUnderscore {
			i++
			continue
		}
		start, hasDigit, hasLetter := i, false, false
		for i < to {
			c := wbClass[input[i]]
			if c == wbLetter || c == wbDigit || c == wbUnderscore {
				hasDigit = hasDigit || c == wbDigit
				hasLetter = hasLetter || c == wbLetter
				i++
				continue
			}
			if i+1 < to && i > start {
				prev, next := wbClass[input[i-1]], wbClass[input[i+1]]
				if prev == wbLetter && next == wbLetter && (c == wbMidLetter || c == wbMidNumLet) ||
					prev == wbDigit && next == wbDigit && (c == wbMidNum || c == wbMidNumLet) {
					i++
					continue
				}
			}
			break
		}
		// The segmenter types a word of digits and underscores alone as a
		// number, anything with a letter (or underscores alone) as a word.
		typ := analysis.AlphaNumeric
		if hasDigit && !hasLetter {
			typ = analysis.Numeric
		}
		emit(start, i, typ)
	}
}

// cachedStemmer is bleve's Porter stemmer with a cache of the stems it has
// computed, shared by every analysis; it stops growing at maxCachedStems.
type cachedStemmer struct {
	stem  *porter.PorterStemmer
	mu    sync.RWMutex
	stems map[string][]byte
}

func (s *cachedStemmer) Filter(input analysis.TokenStream) analysis.TokenStream {
	for _, tok := range input {
		if tok.KeyWord {
			continue
		}
		s.mu.RLock()
		stem, ok := s.stems[string(tok.Term)]
		s.mu.RUnlock()
		if ok {
			tok.Term = stem
			continue
		}
		word := string(tok.Term)
		s.stem.Filter(analysis.TokenStream{tok})
		stem = bytes.Clone(tok.Term)
		tok.Term = stem
		s.mu.Lock()
		if len(s.stems) < maxCachedStems {
			s.stems[word] = stem
		}
		s.mu.Unlock()
	}
	return input
}

var theStemmer = &cachedStemmer{stem: porter.NewPorterStemmer(), stems: map[string][]byte{}}

func init() {
	if err := registry.RegisterTokenizer(tokenizerFast, func(map[string]any, *registry.Cache) (analysis.Tokenizer, error) {
		return &fastTokenizer{slow: unicode.NewUnicodeTokenizer()}, nil
	}); err != nil {
		panic(err)
	}
	if err := registry.RegisterTokenFilter(stemmerCached, func(map[string]any, *registry.Cache) (analysis.TokenFilter, error) {
		return theStemmer, nil
	}); err != nil {
		panic(err)
	}
}
