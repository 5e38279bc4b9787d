package search

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"
)

// Korean text is analysed in three steps, the same at index and at query
// time, so a typed word and the text meet halfway:
//
//  1. scriptSplit cuts tokens where Latin and Hangul meet: "GPU가" is "GPU"
//     and "가", "파드의OOM" is "파드의" and "OOM". Korean writers attach
//     particles to English words as to Korean ones.
//  2. stripParticle drops the particle a noun carries ("노드가" → "노드",
//     "드라이버를" → "드라이버", "파드에서" → "파드"), so that a particle never
//     blocks a match. A bare particle left by step 1 is dropped.
//  3. hangulFilter and bleve's CJK bigram filter split what remains into
//     syllable pairs, which still match compounds written without spaces
//     ("자동복구" holds "자동" and "복구").
//
// A full morphological analyser would do better on verbs; none is kept up
// in Go, and the nouns people search by are what this handles.
const (
	scriptSplitName  = "casebook_script_split"
	particleName     = "casebook_ko_particles"
	hangulFilterName = "casebook_hangul_bigrams"
)

// koreanParticles are the endings Korean attaches to nouns, longest first so
// "에서" is tried before "서" would be.
var koreanParticles = []string{
	"에서부터", "으로부터", "에서는", "에서도", "으로는", "으로도", "에게서", "이라고", "이라는",
	"에서", "으로", "에게", "까지", "부터", "처럼", "하고", "이랑", "이나", "보다", "마다", "에는", "에도", "과는", "와는", "라고", "이란", "이며",
	"이", "가", "을", "를", "은", "는", "의", "에", "로", "와", "과", "도", "만", "나", "랑", "란",
}

// koreanEndings turn a noun into a verb or adjective and are dropped like
// particles: "교체됨" is 교체 (replacement), "실패했음" is 실패 (failure).
// Sino-Korean nouns with 하다/되다 are how Korean writes most technical
// verbs, so this covers what people type about failures.
var koreanEndings = []string{
	"되었습니다", "되었는데", "되었어요", "됐습니다", "했습니다", "되었음", "되었다", "되어서", "됐는데", "했는데", "하는데", "되는데",
	"됐어요", "했어요", "해요", "돼요", "됩니다", "합니다", "됐음", "했음", "됐다", "했다", "되고", "하고", "되는", "하는", "되면", "하면",
	"돼서", "해서", "되지", "하지", "인데", "됨", "함", "된", "한", "중", "임",
}

// koreanStopWords are adverbs and fillers that say nothing about the
// failure; they may match but are never required.
var koreanStopWords = map[string]bool{
	"자꾸": true, "계속": true, "왜": true, "어떻게": true, "너무": true, "갑자기": true, "좀": true, "또": true, "그냥": true,
	"이상하게": true, "자주": true, "항상": true, "가끔": true, "다": true, "모두": true, "전부": true, "방법": true, "해결": true,
	"문제": true, "현상": true, "상태": true, "관련": true, "경우": true, "때": true, "후": true, "이후": true, "뒤": true,
}

// isParticle reports whether s is only a particle.
func isParticle(s string) bool {
	for _, p := range koreanParticles {
		if s == p {
			return true
		}
	}
	return false
}

// stripParticle removes one particle from the end of a Hangul word. A
// one-syllable particle is removed only from a stem of two syllables or
// more, because many short nouns end in a syllable that is also a particle
// (평가, 추가, 속도, 결과).
func stripParticle(w string) string {
	n := utf8.RuneCountInString(w)
	for _, e := range koreanEndings {
		if strings.HasSuffix(w, e) && n-utf8.RuneCountInString(e) >= 2 {
			return w[:len(w)-len(e)]
		}
	}
	for _, p := range koreanParticles {
		if !strings.HasSuffix(w, p) {
			continue
		}
		stem := utf8.RuneCountInString(p)
		rest := n - stem
		if rest >= 2 || (stem >= 2 && rest >= 1) {
			return w[:len(w)-len(p)]
		}
	}
	return w
}

func isHangul(r rune) bool { return unicode.Is(unicode.Hangul, r) }

// splitScripts cuts s where Hangul and other letters meet.
func splitScripts(s string) []string {
	var out []string
	start, prev := 0, -1
	for i, r := range s {
		cur := 0
		if isHangul(r) {
			cur = 1
		}
		if prev >= 0 && cur != prev {
			out = append(out, s[start:i])
			start = i
		}
		prev = cur
	}
	return append(out, s[start:])
}

type scriptSplitFilter struct{}

func (scriptSplitFilter) Filter(in analysis.TokenStream) analysis.TokenStream {
	out := make(analysis.TokenStream, 0, len(in))
	for _, t := range in {
		term := string(t.Term)
		if !hasHangul(term) {
			out = append(out, t)
			continue
		}
		parts := splitScripts(term)
		if len(parts) == 1 {
			out = append(out, t)
			continue
		}
		off := t.Start
		for _, p := range parts {
			out = append(out, &analysis.Token{Term: []byte(p), Start: off, End: off + len(p), Position: t.Position, Type: t.Type})
			off += len(p)
		}
	}
	return out
}

type particleFilter struct{}

func (particleFilter) Filter(in analysis.TokenStream) analysis.TokenStream {
	out := in[:0]
	for _, t := range in {
		term := string(t.Term)
		if !hasHangul(term) {
			out = append(out, t)
			continue
		}
		if isParticle(term) {
			continue
		}
		if s := stripParticle(term); len(s) != len(term) {
			t.Term = []byte(s)
			t.End = t.Start + len(s)
		}
		out = append(out, t)
	}
	return out
}

// hangulFilter marks Hangul tokens as ideographic so that bleve's CJK
// bigram filter splits them. bleve's unicode tokenizer types Hangul words
// as alphanumeric, and its "cjk" analyzer therefore keeps "자동복구" whole.
type hangulFilter struct{}

func (hangulFilter) Filter(in analysis.TokenStream) analysis.TokenStream {
	for _, t := range in {
		if t.Type == analysis.AlphaNumeric && hasHangul(string(t.Term)) {
			t.Type = analysis.Ideographic
		}
	}
	return in
}

func init() {
	// Filters are looked up by name whenever an index using them is
	// opened, so they are registered for the life of the program.
	for name, f := range map[string]analysis.TokenFilter{
		scriptSplitName: scriptSplitFilter{}, particleName: particleFilter{}, hangulFilterName: hangulFilter{},
	} {
		f := f
		err := registry.RegisterTokenFilter(name, func(map[string]any, *registry.Cache) (analysis.TokenFilter, error) {
			return f, nil
		})
		if err != nil {
			panic(err)
		}
	}
}

// queryWords splits a typed word into the words search looks for: script
// runs apart, particles off Hangul runs, bare particles gone. "GPU가" is
// ["GPU"], "노드에서" is ["노드"], "nvidia.com/gpu" stays whole.
func queryWords(w string) []string {
	if !hasHangul(w) {
		return []string{w}
	}
	var out []string
	for _, p := range splitScripts(w) {
		if !hasHangul(p) {
			if strings.TrimFunc(p, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) != "" {
				out = append(out, p)
			}
			continue
		}
		p = strings.TrimFunc(p, func(r rune) bool { return !isHangul(r) && !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		if p == "" || isParticle(p) {
			continue
		}
		out = append(out, stripParticle(p))
	}
	return out
}
