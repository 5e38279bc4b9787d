package search

import (
	"regexp"
	"strings"
	"testing"

	"casebook/internal/i18n"
)

// TestKoreanWordBoundaries: a match the bigram analysis reports inside a
// Korean word is shown as the whole word, and only when the word holds the
// word the reader typed.
func TestKoreanWordBoundaries(t *testing.T) {
	for _, c := range []struct {
		name   string
		text   string
		match  string // the bytes the index reported, found in text
		korean []string
		want   string // the highlighted word, "" when dropped
	}{
		{"pair inside a word widens to the word", "클러스터 업그레이드 뒤에", "그레", []string{"업그레이드"}, "업그레이드"},
		{"the particle is part of the word", "업그레이드가 끝난 뒤", "업그", []string{"업그레이드"}, "업그레이드가"},
		{"a compound holding the query word", "노드풀을 새로 만들었다", "노드", []string{"노드"}, "노드풀을"},
		{"a pair shared with an unrelated word is dropped", "이미 배포된 버전", "이미", []string{"이미지"}, ""},
		{"Latin next to Hangul stays outside", "GPU가 안 보임", "가", []string{"가"}, "가"},
		{"stops at punctuation", "(재시작), 다시", "시작", []string{"재시작"}, "재시작"},
		{"no Korean words to check: the word is kept", "드라이버 재설치", "설치", nil, "재설치"},
		{"the word at the end of the text", "원인은 드라이버", "라이", []string{"드라이버"}, "드라이버"},
	} {
		t.Run(c.name, func(t *testing.T) {
			i := strings.Index(c.text, c.match)
			if i < 0 {
				t.Fatalf("%q not in %q", c.match, c.text)
			}
			sp, ok := koreanWord(c.text, span{i, i + len(c.match)}, c.korean)
			got := ""
			if ok {
				got = c.text[sp.start:sp.end]
			}
			if got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

var markedRE = regexp.MustCompile(`<mark>(.*?)</mark>`)

// TestKoreanHighlightsOnTheRealLibrary: Korean queries on a Korean page
// highlight whole words and show the Korean body's excerpts; the same
// query on an English page keeps the English excerpts it had.
func TestKoreanHighlightsOnTheRealLibrary(t *testing.T) {
	for _, q := range []string{"업그레이드", "노드 자동 복구", "드라이버 재설치"} {
		res := search(t, Request{Query: q, Lang: i18n.KO})
		marks, korean := 0, 0
		for _, h := range res.Hits {
			for key, frags := range h.Fragments {
				for _, f := range frags {
					if hasHangul(f) {
						korean++
					}
					for _, m := range markedRE.FindAllStringSubmatchIndex(f, -1) {
						marks++
						word := f[m[2]:m[3]]
						after := strings.TrimPrefix(f[m[1]:], "</mark>")
						before := f[:m[0]]
						if hasHangul(word) && (startsHangul(after) || endsHangul(before)) {
							t.Errorf("%q: %s %s: the mark %q cuts a word: %q", q, h.ID, key, word, f)
						}
					}
				}
			}
		}
		if marks == 0 || korean == 0 {
			t.Errorf("%q: %d marks, %d Korean excerpts", q, marks, korean)
		}
	}
}

// TestKoreanPageExcerptsFromKoreanBody: an English word found in both the
// English and the Korean text of an entry is shown from the Korean text on
// a Korean page, never beside the English twin's text.
func TestKoreanPageExcerptsFromKoreanBody(t *testing.T) {
	for _, q := range []string{"ImagePullBackOff", "OOMKilled", "CoreDNS"} {
		res := search(t, Request{Query: q, Lang: i18n.KO, PerPage: 20})
		korean := 0
		for _, h := range res.Hits {
			hasKo := false
			for _, frags := range h.Fragments {
				for _, f := range frags {
					hasKo = hasKo || hasHangul(f)
				}
			}
			if !hasKo {
				continue
			}
			korean++
			for key, frags := range h.Fragments {
				for _, f := range frags {
					if (strings.HasPrefix(key, "#") || key == "summary" || key == "title") && !hasHangul(f) {
						t.Errorf("%q: %s %s: English excerpt %q beside Korean ones on a Korean page", q, h.ID, key, f)
					}
				}
			}
		}
		if korean == 0 {
			t.Errorf("%q: no hit has a Korean excerpt", q)
		}
	}
}

func startsHangul(s string) bool {
	for _, r := range s {
		return isHangul(r)
	}
	return false
}

func endsHangul(s string) bool {
	r := []rune(s)
	return len(r) > 0 && isHangul(r[len(r)-1])
}
