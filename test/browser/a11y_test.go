package browser

import (
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// violation is an axe-core finding, trimmed to what a reader needs.
type violation struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	URL    string   `json:"helpUrl"`
	Nodes  []string `json:"nodes"`
}

// runAxe keeps the serious and critical violations; minor and moderate ones
// are advice, these block a reader.
const runAxe = `axe.run(document, { resultTypes: ["violations"] }).then(r => r.violations
	.filter(v => v.impact === "serious" || v.impact === "critical")
	.map(v => ({ id: v.id, impact: v.impact, help: v.help, helpUrl: v.helpUrl,
		nodes: v.nodes.slice(0, 8).map(n => n.target.join(" ") + ": " + (n.failureSummary || "").replace(/\s+/g, " ")) })))`

// axePath is where the test server serves axe-core (see start).
const axePath = "/_test/axe.min.js"

// injectAxe loads axe-core into the page, once.
func (tb *tab) injectAxe() {
	tb.t.Helper()
	eval[chromedp.Void](tb, `new Promise((ok, fail) => {
		if (window.axe) return ok();
		const s = document.createElement("script");
		s.src = "`+axePath+`";
		s.onload = () => ok();
		s.onerror = () => fail(new Error("axe-core did not load"));
		document.head.appendChild(s);
	})`, chromedp.EvalAwaitPromise)
}

// TestAccessibility checks the checkers: axe-core and the console's CSP
// reports must see a planted fault, or TestPageTypes passing every page
// type at both widths in both languages would mean nothing.
func TestAccessibility(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// The checkers must see a planted fault, or a pass means nothing.
	t.Run("checkers see planted faults", func(t *testing.T) {
		tb := e.tab(t)
		tb.open("/causes")
		tb.injectAxe()
		eval[chromedp.Void](tb, `document.querySelector("main").appendChild(document.createElement("img")), undefined`)
		if found := eval[[]violation](tb, runAxe, chromedp.EvalAwaitPromise); !slices.ContainsFunc(found, func(v violation) bool { return v.ID == "image-alt" }) {
			t.Errorf("axe missed an image without alt text: %+v", found)
		}
		eval[chromedp.Void](tb, `document.querySelector("main").setAttribute("style", "color: red"), undefined`)
		for i := 0; len(tb.cspViolations()) == 0 && i < 100; i++ {
			time.Sleep(20 * time.Millisecond)
		}
		if len(tb.cspViolations()) == 0 {
			t.Errorf("an inline style attribute raised no CSP report in the console")
		}
		tb.forget()
	})
}
