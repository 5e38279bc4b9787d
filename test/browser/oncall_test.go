package browser

import (
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// contrastIn runs axe's colour-contrast rule on the elements of a selector.
const contrastIn = `(sel) => axe.run(document.querySelector(sel), { runOnly: ["color-contrast"], resultTypes: ["violations"] })
	.then(r => r.violations.flatMap(v => v.nodes.map(n => n.target.join(" ") + ": " + (n.failureSummary || "").replace(/\s+/g, " "))))`

// TestOnCallPath walks the path of issue 34 at both widths in both
// languages: / opens with the paste box above the library; the on-call
// paste gives one card whose commands name its pod; the drill terminal's
// example commands pass axe's colour contrast and its run button keeps one
// line.
func TestOnCallPath(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	data, err := os.ReadFile("../../internal/triage/testdata/pastes/false-01-vllm-probe-settings-and-preemption-tail.txt")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(l, "#!") {
			lines = append(lines, l)
		}
	}
	paste := strings.Join(lines, "\n")
	for _, lang := range []string{"en", "ko"} {
		for _, w := range widths {
			t.Run(lang+"/"+w.name, func(t *testing.T) {
				t.Parallel()
				group := e.sized(t, w)
				t.Run("home", func(t *testing.T) {
					tb := group.as(t)
					defer tb.checkConsole()
					tb.open(withLang("/", lang))
					if !eval[bool](tb, `(() => { const p = document.querySelector('[data-testid="home"] textarea'), l = document.querySelector("#library");
						return !!p && !!l && p.getBoundingClientRect().top < innerHeight && p.getBoundingClientRect().top < l.getBoundingClientRect().top; })()`) {
						tb.shot("home")
						t.Error("the paste box is not on the first screen above the library")
					}
					tb.shot("home-" + lang)
				})
				t.Run("paste", func(t *testing.T) {
					tb := group.as(t)
					defer tb.checkConsole()
					tb.pasteResult(paste, lang)
					if n := eval[int](tb, `document.querySelectorAll('[data-testid="paste-route"]').length`); n != 1 {
						t.Errorf("%d cards, want 1", n)
					}
					cmds := eval[string](tb, `document.querySelector('[data-testid="paste-route"] [data-testid="first-commands"]').textContent`)
					if !strings.Contains(cmds, "vllm-llama3-8b-7d9c6b5f4-k2m8p -n llm-serving") {
						t.Errorf("commands do not name the pod: %q", cmds)
					}
					if got := eval[string](tb, `document.querySelector('[data-testid="paste-text"]').value`); strings.Contains(got, "hf_qZkPbVnRtXyWcLmDfGhJsAeUiOp") {
						t.Error("the paste box shows the token")
					}
					tb.shot("paste-" + lang)
				})
				t.Run("drill-terminal", func(t *testing.T) {
					tb := group.as(t)
					defer tb.checkConsole()
					tb.open(withLang("/drills/call-worker-oom", lang))
					tb.injectAxe()
					for _, v := range eval[[]string](tb, "("+contrastIn+`)(".terminal")`, chromedp.EvalAwaitPromise) {
						t.Errorf("terminal contrast: %s", v)
					}
					if n := eval[int](tb, `(() => { const r = document.createRange(); r.selectNodeContents(document.querySelector('[data-testid="cmd-run"]')); return r.getClientRects().length; })()`); n != 1 {
						t.Errorf("the run button's label takes %d lines", n)
					}
				})
			})
		}
	}
}
