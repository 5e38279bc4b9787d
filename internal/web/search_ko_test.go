package web_test

import (
	"net/http"
	"strings"
	"testing"
	"unicode"

	"github.com/PuerkitoBio/goquery"
)

// TestKoreanSearchExcerptsAreNotTheEnglishSummary: a Korean results page
// shows each incident's Korean summary on its card, so an excerpt of the
// English summary below it ("요약: In August 2025 …") repeats the card in the
// other language. English body excerpts still show why a card matched.
func TestKoreanSearchExcerptsAreNotTheEnglishSummary(t *testing.T) {
	h := newHandler(t)
	for _, q := range []string{"GPU", "OOMKilled", "taint"} {
		doc := page(t, h, "/search?lang=ko&q="+q, http.StatusOK)
		summaryLabel := "요약"
		n := 0
		doc.Find("p.fragment").Each(func(_ int, s *goquery.Selection) {
			n++
			label := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s.Find("span.muted").Text()), ":"))
			if label != summaryLabel {
				return
			}
			text := strings.TrimSpace(strings.TrimPrefix(s.Text(), s.Find("span.muted").Text()))
			if !strings.ContainsFunc(text, func(r rune) bool { return unicode.Is(unicode.Hangul, r) }) {
				t.Errorf("%q: a Korean page excerpts the English summary: %.120q", q, text)
			}
		})
		if n == 0 {
			t.Errorf("%q: no excerpts at all on the Korean results page", q)
		}
	}
}
