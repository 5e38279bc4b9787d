package browser

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// graphReady holds once cytoscape has laid out the graph of the page.
const graphReady = `(() => { const el = document.querySelector(".graph-canvas"); return el && el.cy && el.querySelector("canvas") && el.cy.nodes().length > 0; })()`

// graphStill holds once the document and its fonts are loaded and the
// graph canvas (its place on the page, its pan and zoom) has not changed
// for 250 ms.
const graphStill = `(() => {
	if (document.readyState !== "complete" || document.fonts.status !== "loaded") return false;
	const el = document.querySelector(".graph-canvas"), cy = el.cy;
	el.scrollIntoView();
	const r = el.getBoundingClientRect(), p = cy.pan();
	const k = [r.left, r.top, r.width, r.height, p.x, p.y, cy.zoom()].join(), now = performance.now();
	const s = window.__graphStill || (window.__graphStill = {});
	if (s.k !== k) { s.k = k; s.t = now; return false; }
	return now - s.t >= 250;
})()`

type point struct {
	X, Y float64
	ID   string
}

// TestGraph clicks graph nodes: on /graph a click focuses the node's
// neighbourhood and offers a link; beside the library list it filters the
// list in place.
// TestGraph runs alone, not in parallel: it clicks with the real mouse, and a
// busy browser (axe on other tabs) can turn that press into something
// cytoscape does not read as a tap.
func TestGraph(t *testing.T) {
	e := newEnv(t)

	t.Run("graph page", func(t *testing.T) {
		tb := e.tab(t)
		tb.open("/graph")
		tb.waitJS("the graph", graphReady)
		// The click below goes to coordinates read before it, so the page
		// must have stopped moving: late fonts or content above the canvas
		// once shifted it under the pointer and the click landed on a case.
		tb.waitJS("the graph to hold still", graphStill)
		// A real mouse click at the rendered position of a term node that
		// no other node overlaps, GPU driver when it stands free.
		p := eval[point](tb, `(() => {
			const el = document.querySelector(".graph-canvas"), cy = el.cy;
			el.scrollIntoView();
			const r = el.getBoundingClientRect();
			const box = n => n.renderedBoundingBox({ includeLabels: false, includeOverlays: false });
			const overlaps = (a, b) => a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2;
			const free = cy.nodes().filter(n => n.data("kind") !== "case" && cy.nodes().every(o => o === n || !overlaps(box(n), box(o))))
				.filter(n => { const p = n.renderedPosition(); return p.x > 0 && p.y > 0 && p.x < r.width && p.y < r.height; });
			const n = free.filter('[id = "component:gpu-driver"]').length ? free.filter('[id = "component:gpu-driver"]')[0] : free[0];
			if (!n) return { ID: "" };
			const pos = n.renderedPosition();
			return { X: r.left + pos.x, Y: r.top + pos.y, ID: n.id() };
		})()`)
		if p.ID == "" {
			t.Fatal("every term node overlaps another; nothing to click")
		}
		// Tabs of parallel tests share one browser; a background tab gets
		// no animation frames, and cytoscape handles pointer input in them.
		if _, err := chromedp.Call(tb.ctx, cdppage.BringToFront, cdp.Empty{}); err != nil {
			t.Fatalf("bring the tab to front: %v", err)
		}
		tb.do("click "+p.ID, chromedp.MouseClickXY(p.X, p.Y))
		tb.waitJS("the focus link", `document.querySelector('[data-testid="graph-focus-link"]')`)
		if sel := eval[string](tb, `document.querySelector(".graph-canvas").dataset.selected`); sel != p.ID {
			t.Errorf("clicked %s, the graph selected %q", p.ID, sel)
		}
		focus := eval[struct {
			Href, Text string
			Faded      int
			Hood       int
		}](tb, `(() => {
			const el = document.querySelector(".graph-canvas"), cy = el.cy;
			const a = document.querySelector('[data-testid="graph-focus-link"]');
			const n = cy.getElementById(el.dataset.selected);
			return { Href: a.getAttribute("href"), Text: a.textContent, Faded: cy.elements(".faded").length,
				Hood: n.closedNeighborhood().filter(".faded").length };
		})()`)
		if focus.Faded == 0 || focus.Hood != 0 {
			t.Errorf("after the click %d elements are faded, %d of them in the node's neighbourhood", focus.Faded, focus.Hood)
		}
		kind, term, _ := strings.Cut(p.ID, ":")
		if focus.Href != "/?"+kind+"="+term || !strings.HasPrefix(focus.Text, "Filter the list by ") {
			t.Errorf("focus link %q %q, want one to /?%s=%s", focus.Href, focus.Text, kind, term)
		}
		// Two steps out: the terms the node's cases carry stay lit, so the
		// graph answers "which causes go with GPU driver?".
		hood := eval[struct{ Terms, Faded int }](tb, `(() => {
			const el = document.querySelector(".graph-canvas"), cy = el.cy, n = cy.getElementById(el.dataset.selected);
			const terms = n.neighborhood("node").neighborhood("node").filter(m => m !== n && m.data("kind") !== "case");
			return { Terms: terms.length, Faded: terms.filter(".faded").length };
		})()`)
		if hood.Terms == 0 || hood.Faded != 0 {
			t.Errorf("of the %d terms the node's cases carry, %d are faded; want none", hood.Terms, hood.Faded)
		}
		if q := query(t, tb.location()); q.Get("focus") != p.ID {
			t.Errorf("after the click the address is %s, want focus=%s in it", tb.location(), p.ID)
		}
		tb.shot("focused")
		tb.follow("follow the focus link", chromedp.Click(chromedp.CSS(testID("graph-focus-link"))))
		if loc := tb.location(); loc != focus.Href {
			t.Errorf("focus link led to %s, want %s", loc, focus.Href)
		}
		// The address reopens the same focus.
		tb.open("/graph?focus=" + p.ID)
		tb.waitJS("the graph focused from the address", graphReady+` && document.querySelector(".graph-canvas").dataset.selected === "`+p.ID+`"`)
		// The find box focuses what it finds.
		label := eval[string](tb, `document.querySelector(".graph-canvas").cy.getElementById("`+p.ID+`").data("label")`)
		tb.open("/graph")
		tb.waitJS("the graph", graphReady)
		tb.do("find "+label, chromedp.SendKeys(testID("graph-find"), strings.ToLower(label)+kb.Enter))
		tb.waitJS("the found node focused", `(() => { const el = document.querySelector(".graph-canvas"), n = el.cy.getElementById(el.dataset.selected || ""); return n.length && String(n.data("label")).toLowerCase().includes(`+strconv.Quote(strings.ToLower(label))+`) && !n.hasClass("faded"); })()`)
	})

	t.Run("library panel filters the list", func(t *testing.T) {
		tb := e.tab(t)
		tb.open("/")
		tb.waitJS("the graph", graphReady)
		tb.markWindow()
		before := tb.page()
		// Tapping through cytoscape's API runs the same handler as a click.
		eval[chromedp.Void](tb, `document.querySelector(".graph-canvas").cy.getElementById("symptom:gpu-not-visible").emit("tap"), undefined`)
		tb.waitJS("the list filtered by the node", `location.search.includes("symptom=gpu-not-visible") && document.querySelectorAll('[data-testid="chip"]').length === 1`)
		after := tb.page()
		if !after.Marker {
			t.Errorf("the node click reloaded the page; want an htmx swap")
		}
		// The filtered set is smaller (its count line), though it may still
		// fill a page.
		if len(after.Cards) == 0 || countText(after.Count) == countText(before.Count) || slices.Equal(after.Cards, before.Cards) {
			t.Errorf("list after the click: %q %v, before %q", after.Count, after.Cards, before.Count)
		}
		tb.waitJS("the graph of the filtered set", graphReady+` && document.querySelector(".graph-canvas").dataset.graphUrl.includes("symptom=gpu-not-visible")`)
		tb.shot("filtered-by-node")
		tb.do("back", chromedp.NavigateBack())
		tb.waitJS("the unfiltered list", `!location.search.includes("symptom") && document.querySelectorAll('[data-testid="chip"]').length === 0`)
		if back := tb.page(); !slices.Equal(back.Cards, before.Cards) {
			t.Errorf("back shows %v, want %v", back.Cards, before.Cards)
		}
	})
}

// TestWithoutJavaScript checks that the filters, chips and pager are plain
// links and that the graph's fallback shows when scripts are off.
func TestWithoutJavaScript(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tb := e.tab(t)
	if _, err := chromedp.Call(tb.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatalf("disable JavaScript: %v", err)
	}
	tb.open("/?per_page=5")
	tb.do("fallback visible", chromedp.WaitVisible(chromedp.CSS(testID("graph-fallback"))), chromedp.WaitNotVisible(chromedp.CSS(".graph-canvas")))
	tb.shot("library")

	tb.revealFacetValue("component", "gpu-driver")
	tb.follow("click GPU driver", chromedp.Click(chromedp.CSS(testID("facet-component")+` a[data-term="gpu-driver"]`)))
	if q := query(t, tb.location()); q.Get("component") != "gpu-driver" || q.Get("per_page") != "5" {
		t.Errorf("after the facet click: %s", tb.location())
	}
	tb.do("one chip", chromedp.WaitVisible(chromedp.CSS(testID("chip"))))
	chips, err := chromedp.Run(tb.ctx, chromedp.Nodes(chromedp.CSSAll(testID("chip"))))
	if err != nil || len(chips) != 1 {
		t.Errorf("%d chips (%v), want 1", len(chips), err)
	}
	tb.shot("filtered")

	tb.follow("next page", chromedp.Click(chromedp.CSS(testID("next-page"))))
	if q := query(t, tb.location()); q.Get("page") != "2" || q.Get("component") != "gpu-driver" {
		t.Errorf("next page: %s", tb.location())
	}
	tb.follow("remove the chip", chromedp.Click(chromedp.CSS(testID("chip"))))
	if q := query(t, tb.location()); q.Has("component") || q.Has("page") {
		t.Errorf("after removing the chip: %s", tb.location())
	}
	if n, _ := chromedp.Run(tb.ctx, chromedp.Nodes(chromedp.CSSAll(testID("chip")), chromedp.AtLeast(0))); len(n) != 0 {
		t.Errorf("%d chips left after removing the only one", len(n))
	}

	tb.open("/graph")
	tb.do("graph fallback", chromedp.WaitVisible(chromedp.CSS(testID("graph-fallback")+` .gf-cases a`)))
	tb.shot("graph-fallback")
	tb.follow("a fallback term", chromedp.Click(chromedp.CSS(testID("graph-fallback")+` a.term-component`)))
	if q := query(t, tb.location()); !q.Has("component") {
		t.Errorf("fallback term link led to %s", tb.location())
	}
}
