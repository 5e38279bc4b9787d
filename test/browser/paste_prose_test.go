package browser

import (
	"strings"
	"testing"
)

// TestPasteProseFallback: Korean prose pasted into the paste box is
// answered as the search box answers it, at both widths: the search's
// results come first, in Korean, with the GPU scheduling playbook among
// them, whole-word highlights, no "no route" line and nothing sticking
// out sideways.
func TestPasteProseFallback(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, w := range widths {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			tb := e.sized(t, w)
			defer tb.checkConsole()
			tb.pasteResult("GPU 노드에 파드가 안 올라가요", "ko")
			tb.shot("paste-prose-ko")
			if eval[bool](tb, `!!document.querySelector('[data-testid="paste-empty"]')`) {
				t.Error(`the page says "no route" for prose the search answers`)
			}
			ids := eval[[]string](tb, `[...document.querySelectorAll('[data-testid="paste-search"] [data-testid="case"]')].map(c => c.dataset.id)`)
			found := false
			for _, id := range ids {
				found = found || id == "gpu-workload-not-scheduled"
			}
			if !found {
				t.Errorf("the GPU scheduling playbook is not among the results %v", ids)
			}
			if h := eval[string](tb, `document.querySelector('[data-testid="paste-search"] h3').textContent`); !strings.Contains(h, "검색 결과") {
				t.Errorf("heading %q is not Korean", h)
			}
			if !eval[bool](tb, `(() => { const s = document.querySelector('[data-testid="paste-search"]'), p = document.querySelector('[data-testid="start"]');
				return !!s && (!p || s.getBoundingClientRect().top < p.getBoundingClientRect().top); })()`) {
				t.Error("the search results are not above the symptom picker")
			}
			// A highlight in Korean is a whole word: no Hangul right before
			// or after a mark.
			for _, cut := range eval[[]string](tb, `[...document.querySelectorAll('[data-testid="paste-search"] mark')].filter(m => {
				const h = /[\uac00-\ud7a3]/, b = m.previousSibling, a = m.nextSibling;
				return h.test(m.textContent) && (b && h.test((b.textContent || "").slice(-1)) || a && h.test((a.textContent || "").slice(0, 1)));
			}).map(m => m.parentElement.textContent)`) {
				t.Errorf("a highlight cuts a word: %q", cut)
			}
			if got := eval[[]string](tb, overflow); len(got) > 0 {
				t.Errorf("the page scrolls sideways: %v", got)
			}
		})
	}
}
