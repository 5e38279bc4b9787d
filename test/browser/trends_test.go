package browser

import (
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// TestTrends reads /trends as people do: without JavaScript a bar is a
// plain link to the incidents it counts, the page prints with its charts,
// and beside the whole library the graph draws terms until one is
// focused. Layout and accessibility at both widths in both languages are
// checked with every other page in TestPageTypes.
func TestTrends(t *testing.T) {
	t.Parallel()
	e := newEnv(t)

	t.Run("without JavaScript", func(t *testing.T) {
		tb := e.tab(t)
		if _, err := chromedp.Call(tb.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
			t.Fatalf("disable JavaScript: %v", err)
		}
		tb.open("/trends?domain=gpu")
		if n := eval[int](tb, `document.querySelectorAll("svg.chart-svg").length`); n != 4 {
			t.Fatalf("%d charts drawn, want 4", n)
		}
		bar := eval[struct{ Href, Count string }](tb, `(() => {
			const a = document.querySelector('[data-testid="chart-components"] svg a[data-count]');
			return { Href: a.getAttribute("href"), Count: a.dataset.count };
		})()`)
		tb.follow("click the first component bar", chromedp.Click(chromedp.CSS(testID("chart-components")+` svg a[data-count] rect`)))
		if loc := tb.location(); loc != bar.Href {
			t.Errorf("the bar led to %s, want %s", loc, bar.Href)
		}
		if got := countText(tb.page().Count); !strings.Contains(got, " of "+bar.Count+" ") {
			t.Errorf("the bar says %s incidents; the library shows %q", bar.Count, got)
		}
	})

	t.Run("print", func(t *testing.T) {
		tb := e.tab(t)
		tb.open("/trends")
		if _, err := chromedp.Call(tb.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "print"}); err != nil {
			t.Fatalf("print media: %v", err)
		}
		shown := eval[struct{ Charts, Tables int }](tb, `({
			Charts: [...document.querySelectorAll("svg.chart-svg")].filter(s => s.getBoundingClientRect().height > 50).length,
			Tables: [...document.querySelectorAll('[data-testid="chart-table"]')].filter(s => s.getBoundingClientRect().height > 50).length })`)
		if shown.Charts != 4 || shown.Tables != 4 {
			t.Errorf("printed: %d charts and %d tables, want 4 and 4", shown.Charts, shown.Tables)
		}
		if nav := eval[bool](tb, `getComputedStyle(document.querySelector(".top")).display === "none"`); !nav {
			t.Errorf("the navigation prints")
		}
	})

	t.Run("side graph terms only", func(t *testing.T) {
		tb := e.tab(t)
		tb.open("/")
		tb.waitJS("the graph", graphReady)
		before := eval[struct{ Terms, Cases int }](tb, `(() => { const cy = document.querySelector(".graph-canvas").cy;
			return { Terms: cy.nodes("[kind != 'case']").length, Cases: cy.nodes("[kind = 'case']").length }; })()`)
		if before.Terms == 0 || before.Cases != 0 {
			t.Fatalf("beside the whole library the graph draws %d terms and %d cases, want terms only", before.Terms, before.Cases)
		}
		// The tap is handled at once; the list it filters loads after.
		focused := eval[struct {
			Cases, Count int
			Link         string
		}](tb, `(() => { const cy = document.querySelector(".graph-canvas").cy, n = cy.getElementById("component:gpu-driver");
			n.emit("tap");
			const a = document.querySelector('[data-testid="graph-focus-link"]');
			return { Cases: n.neighborhood("node[kind = 'case']").length, Count: n.data("count"), Link: a ? a.getAttribute("href") : "" }; })()`)
		if focused.Cases == 0 || focused.Cases != focused.Count {
			t.Errorf("focusing GPU driver drew %d of its %d cases", focused.Cases, focused.Count)
		}
		if focused.Link != "/?component=gpu-driver" {
			t.Errorf("the focus link is %q", focused.Link)
		}
		tb.waitJS("the list filtered by the term", `location.search.includes("component=gpu-driver") && document.querySelectorAll('[data-testid="chip"]').length === 1`)
		tb.open("/graph")
		tb.waitJS("the graph page", graphReady)
		if n := eval[int](tb, `document.querySelector(".graph-canvas").cy.nodes("[kind = 'case']").length`); n < 61 {
			t.Errorf("the graph page draws %d cases, want every one", n)
		}
	})
}
