package browser

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// width is a screen the portal must work on: a phone held upright and a
// common laptop.
type width struct {
	name   string
	w, h   int64
	mobile bool
}

var widths = []width{
	{name: "390", w: 390, h: 844, mobile: true},
	{name: "1366", w: 1366, h: 900},
}

// pageType is one kind of page with a representative URL. status is the
// answer expected (200 unless set); reach, when set, gets the tab there
// instead of opening path (a form post).
type pageType struct {
	name   string
	path   string
	status int
	reach  func(tb *tab, lang string)
	// check, when set, asserts what this page type must show.
	check func(tb *tab)
}

// pageTypes lists every kind of page the portal serves, so that layout and
// accessibility are checked on all of them.
var pageTypes = []pageType{
	{name: "library", path: "/"},
	{name: "library-filtered", path: "/?component=gpu-driver&cause_category=software-defect"},
	{name: "search", path: "/search?q=taint+toleration+GPU+mismatch"},
	{name: "search-empty", path: "/search?q=qqqzzzxxx"},
	{name: "incident", path: "/incidents/IL-0171", check: quotesVisible},
	{name: "playbooks", path: "/playbooks"},
	{name: "playbook", path: "/playbooks/pod-pending"},
	{name: "causes", path: "/causes"},
	{name: "graph", path: "/graph"},
	{name: "graph-focus", path: "/graph?focus=component:gpu-driver"},
	{name: "trends", path: "/trends"},
	{name: "trends-filtered", path: "/trends?domain=gpu&year=2024,2025,2026"},
	{name: "terms", path: "/terms"},
	{name: "term", path: "/terms/component/gpu-driver"},
	{name: "triage", path: "/triage"},
	{name: "triage-question", path: "/triage?tree=root&a=symptom%3Dpending"},
	{name: "triage-outcome", path: taintOutcome, check: commandsVisible},
	{name: "paste-result", reach: func(tb *tab, lang string) { tb.pasteResult(describeTaint, lang) }},
	{name: "gaps", path: "/gaps"},
	{name: "not-found", path: "/no/such/page", status: http.StatusNotFound},
}

// taintOutcome is the wizard's end for a pod held by an untolerated taint.
const taintOutcome = "/triage?tree=root&a=symptom%3Dpending%2Cpending-reason%3Dtaint"

// withLang adds ?lang= to a path.
func withLang(path, lang string) string {
	if lang == "" {
		return path
	}
	if strings.Contains(path, "?") {
		return path + "&lang=" + lang
	}
	return path + "?lang=" + lang
}

// sized opens a tab with the viewport of w, for the subtests of one group
// (bound as a whole to go test's default ten minutes less a margin), in a
// browser context of its own: the language cookie one group sets must not
// reach the next.
func (e *env) sized(t *testing.T, w width) *tab {
	t.Helper()
	tb := e.tabWithin(t, 9*time.Minute, chromedp.WithNewBrowserContext())
	opts := []chromedp.EmulateViewportOption{chromedp.EmulateScale(1)}
	if w.mobile {
		opts = append(opts, chromedp.EmulateMobile)
	}
	tb.do("viewport", chromedp.EmulateViewport(w.w, w.h, opts...))
	return tb
}

// pasteResult submits a paste on the wizard's first screen and waits for
// the result.
func (tb *tab) pasteResult(text, lang string) {
	tb.t.Helper()
	tb.open(withLang("/triage", lang))
	tb.do("paste", chromedp.SetValue(chromedp.CSS(testID("paste-text")), text))
	tb.follow("submit the paste", chromedp.Click(chromedp.CSS(testID("paste-submit"))))
	tb.waitJS("the paste result", `document.querySelector('[data-testid="paste-result"]')`)
}

// overflow lists the elements that stick out of the viewport to the right,
// when the page scrolls sideways.
const overflow = `(() => {
	const vw = document.documentElement.clientWidth;
	if (document.documentElement.scrollWidth <= vw) return [];
	const out = [];
	for (const el of document.body.querySelectorAll("*")) {
		const r = el.getBoundingClientRect();
		if (r.width === 0 || r.right <= vw + 1) continue;
		// Report the outermost culprit only.
		if (out.some(o => o.el.contains(el))) continue;
		let inScroller = false;
		for (let p = el.parentElement; p; p = p.parentElement) {
			const ox = getComputedStyle(p).overflowX;
			if (ox === "auto" || ox === "scroll" || ox === "hidden") { inScroller = true; break; }
		}
		if (inScroller) continue;
		out.push({ el, d: el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + (el.className && typeof el.className === "string" ? "." + el.className.trim().split(/\s+/).join(".") : "") + " right=" + Math.round(r.right) });
	}
	return [document.documentElement.scrollWidth + " > " + vw].concat(out.slice(0, 8).map(o => o.d));
})()`

// TestPageTypes opens every kind of page at both widths, in English and in
// Korean, and fails when a page scrolls sideways or axe-core finds a
// serious or critical violation. Each language and width is one tab that
// visits every page type in turn; the four run side by side. With
// CASEBOOK_DOC_SCREENSHOTS set to a folder (make screenshots) it saves the
// first screen of each page type, in English at both widths, under
// <page>-<width>.png.
func TestPageTypes(t *testing.T) {
	t.Parallel()
	docShots := os.Getenv("CASEBOOK_DOC_SCREENSHOTS")
	e := newEnv(t)
	for _, lang := range []string{"en", "ko"} {
		for _, w := range widths {
			t.Run(lang+"/"+w.name, func(t *testing.T) {
				t.Parallel()
				group := e.sized(t, w)
				for _, p := range pageTypes {
					t.Run(p.name, func(t *testing.T) {
						tb := group.as(t)
						defer tb.checkConsole()
						checkPageType(tb, p, lang, w, docShots)
					})
				}
			})
		}
	}
}

// checkPageType opens one page type in tb and checks it.
func checkPageType(tb *tab, p pageType, lang string, w width, docShots string) {
	t := tb.t
	if p.reach != nil {
		p.reach(tb, lang)
	} else {
		want := p.status
		if want == 0 {
			want = http.StatusOK
		}
		ctx, cancel := tb.step()
		defer cancel()
		resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(tb.env.base+withLang(p.path, lang)))
		if err != nil {
			t.Fatalf("open %s: %v", p.path, err)
		}
		if resp.Status != int64(want) {
			t.Fatalf("%s answered %d, want %d", p.path, resp.Status, want)
		}
	}
	tb.waitJS("scripts done", `document.readyState === "complete" && document.documentElement.classList.contains("js") &&
		[...document.querySelectorAll(".graph-canvas[data-graph-url]")].every(el => el.cy)`)
	if got := eval[string](tb, `document.documentElement.lang`); got != lang {
		t.Errorf("page language %q, want %q", got, lang)
	}
	if over := eval[[]string](tb, overflow); len(over) > 0 {
		tb.shot("overflow")
		t.Errorf("scrolls sideways at %s px: %s", w.name, strings.Join(over, "; "))
	}
	if p.check != nil {
		p.check(tb)
	}
	tb.injectAxe()
	for _, v := range eval[[]violation](tb, runAxe, chromedp.EvalAwaitPromise) {
		t.Errorf("%s: %s (%s) %s\n\t%s", v.Impact, v.ID, v.Help, v.URL, strings.Join(v.Nodes, "\n\t"))
	}
	if docShots != "" && lang == "en" {
		eval[chromedp.Void](tb, `window.scrollTo(0, 0)`)
		ctx, cancel := tb.step()
		defer cancel()
		buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatalf("screenshot: %v", err)
		}
		if err := os.WriteFile(filepath.Join(docShots, p.name+"-"+w.name+".png"), buf, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// commandsVisible fails when a wizard result's first command is cut off
// (wider than its box) or its Copy button covers any of its text.
func commandsVisible(tb *tab) {
	tb.t.Helper()
	bad := eval[[]string](tb, `(() => {
		const out = [], blocks = document.querySelectorAll('[data-testid="first-commands"] pre');
		if (blocks.length === 0) return ["no command blocks"];
		for (const pre of blocks) {
			const code = pre.querySelector("code"), b = pre.querySelector(".copy");
			if (pre.scrollWidth > pre.clientWidth + 1) out.push("cut off: " + code.textContent);
			if (!b) { out.push("no Copy button: " + code.textContent); continue; }
			const br = b.getBoundingClientRect(), r = document.createRange();
			r.selectNodeContents(code);
			for (const tr of r.getClientRects()) {
				if (tr.left < br.right && br.left < tr.right && tr.top < br.bottom && br.top < tr.bottom) { out.push("Copy covers: " + code.textContent); break; }
			}
		}
		return out;
	})()`)
	for _, b := range bad {
		tb.t.Errorf("first commands: %s", b)
	}
}

// quotesVisible fails when an incident's source quote is missing, empty,
// hidden or wider than the side panel that holds it, or when its caption
// is not in the page's language.
func quotesVisible(tb *tab) {
	tb.t.Helper()
	bad := eval[[]string](tb, `(() => {
		const out = [], figs = document.querySelectorAll('[data-testid="sources"] [data-testid="source-quote"]');
		if (figs.length === 0) return ["no source quote under the sources"];
		const ko = document.documentElement.lang === "ko";
		for (const f of figs) {
			const q = f.querySelector("blockquote"), cap = f.querySelector("figcaption");
			if (!q || q.textContent.trim() === "") { out.push("empty quote"); continue; }
			const r = q.getBoundingClientRect();
			if (r.width === 0 || r.height === 0) out.push("hidden quote");
			if (q.scrollWidth > q.clientWidth + 1) out.push("quote wider than its box");
			const want = ko ? "출처 원문" : "What the source says";
			if (!cap || cap.textContent.trim() !== want) out.push("caption " + (cap ? cap.textContent : "missing") + ", want " + want);
		}
		return out;
	})()`)
	for _, b := range bad {
		tb.t.Errorf("source quotes: %s", b)
	}
}

// revealFacetValue opens a long facet's "show more" when the value is in
// the folded part: a plain <details>, so it works without scripts too.
func (tb *tab) revealFacetValue(facet, term string) {
	tb.t.Helper()
	more, _ := chromedp.Run(tb.ctx, chromedp.Nodes(chromedp.CSSAll(testID("facet-"+facet)+` .facet-more:not([open]) a[data-term="`+term+`"]`), chromedp.AtLeast(0)))
	if len(more) == 0 {
		return
	}
	tb.do("show more of "+facet, chromedp.Click(chromedp.CSS(testID("facet-"+facet)+` .facet-more > summary`)),
		chromedp.WaitVisible(chromedp.CSS(testID("facet-"+facet)+` a[data-term="`+term+`"]`)))
}
