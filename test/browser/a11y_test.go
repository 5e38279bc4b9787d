package browser

import (
	"net/http"
	"os"
	"slices"
	"strings"
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

// TestAccessibility runs axe-core on every kind of page, after scripts have
// drawn what they draw, and fails on serious or critical violations.
func TestAccessibility(t *testing.T) {
	t.Parallel()
	axe, err := os.ReadFile("vendor/axe-core/axe.min.js")
	if err != nil {
		t.Fatalf("axe-core: %v", err)
	}
	e := newEnv(t)
	pages := []struct{ path string }{
		{path: "/"},
		{path: "/?component=gpu-driver&year=2025"},
		{path: "/incidents/IL-0171"},
		{path: "/playbooks"},
		{path: "/playbooks/gpu-missing"},
		{path: "/graph"},
		{path: "/causes"},
		{path: "/terms/component/gpu-driver"},
		{path: "/incidents/IL-9999"},
		{path: "/search?q=gpu"},
		{path: "/triage"},
	}
	// The checkers must see a planted fault, or a pass means nothing.
	t.Run("checkers see planted faults", func(t *testing.T) {
		tb := e.tab(t)
		tb.open("/causes")
		eval[chromedp.Void](tb, string(axe)+";undefined")
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
	for _, p := range pages {
		name := strings.Trim(p.path, "/")
		if name == "" {
			name = "library"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tb := e.tab(t)
			resp, err := chromedp.Run(tb.ctx, chromedp.NavigateResponse(e.base+p.path))
			if err != nil {
				t.Fatalf("open %s: %v", p.path, err)
			}
			switch {
			case p.path == "/incidents/IL-9999" && resp.Status != http.StatusNotFound,
				p.path != "/incidents/IL-9999" && resp.Status != http.StatusOK:
				t.Fatalf("%s answered %d", p.path, resp.Status)
			}
			// Check the page as a reader sees it: with the graph drawn.
			tb.waitJS("scripts done", `document.documentElement.classList.contains("js") &&
				[...document.querySelectorAll(".graph-canvas[data-graph-url]")].every(el => el.cy)`)
			if !eval[bool](tb, `typeof axe !== "undefined"`) {
				eval[chromedp.Void](tb, string(axe)+";undefined")
			}
			found := eval[[]violation](tb, runAxe, chromedp.EvalAwaitPromise)
			for _, v := range found {
				t.Errorf("%s: %s (%s) %s\n\t%s", v.Impact, v.ID, v.Help, v.URL, strings.Join(v.Nodes, "\n\t"))
			}
			if len(found) > 0 {
				tb.shot("violations")
			}
		})
	}
}
