package browser

import (
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// page is what the library page shows, read in one evaluation.
type page struct {
	Count  string   `json:"count"`
	Cards  []string `json:"cards"`
	Chips  []string `json:"chips"`
	Marker bool     `json:"marker"` // the window survived: no full reload
}

const readPage = `(() => ({
	count: (document.querySelector('[data-testid="countline"]') || {}).textContent || "",
	cards: [...document.querySelectorAll('[data-testid="case"]')].map(c => c.dataset.id),
	chips: [...document.querySelectorAll('[data-testid="chip"]')].map(c => c.getAttribute("aria-label") || c.textContent.trim()),
	marker: window.__casebookMarker === 1,
}))()`

func (tb *tab) page() page {
	tb.t.Helper()
	return eval[page](tb, readPage)
}

// markWindow sets a marker that only a full page load clears, so a step can
// prove htmx swapped the list in place.
func (tb *tab) markWindow() {
	tb.t.Helper()
	eval[chromedp.Void](tb, `window.__casebookMarker = 1`)
}

func query(t *testing.T, loc string) url.Values {
	t.Helper()
	u, err := url.Parse(loc)
	if err != nil {
		t.Fatalf("location %q: %v", loc, err)
	}
	return u.Query()
}

func countText(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestLibrary walks the library the way a reader does: filter by a
// component, go back, add and remove filters, page, open an incident.
func TestLibrary(t *testing.T) {
	t.Parallel()
	e := newEnv(t)

	t.Run("filter, back, chips, paging, incident", func(t *testing.T) {
		tb := e.tab(t)
		tb.open("/")
		tb.waitJS("htmx", `window.htmx && document.documentElement.classList.contains("js")`)
		start := tb.page()
		if len(start.Cards) == 0 || len(start.Chips) != 0 {
			t.Fatalf("start page: %+v", start)
		}
		tb.shot("01-library")

		// Filter by component: htmx swaps the list and pushes the URL.
		tb.markWindow()
		tb.revealFacetValue("component", "gpu-driver")
		tb.do("click GPU driver", chromedp.Click(chromedp.CSS(testID("facet-component")+` a[data-term="gpu-driver"]`)))
		tb.waitJS("the filtered list", `location.search.includes("component=gpu-driver") && document.querySelectorAll('[data-testid="chip"]').length === 1`)
		gpu := tb.page()
		if !gpu.Marker {
			t.Errorf("filtering reloaded the whole page; want an htmx swap")
		}
		for _, id := range []string{"IL-0171", "IL-0138", "IL-0021"} {
			if !slices.Contains(gpu.Cards, id) {
				t.Errorf("GPU-driver list lacks %s: %v", id, gpu.Cards)
			}
		}
		if gpu.Count == start.Count || slices.Equal(gpu.Cards, start.Cards) {
			t.Errorf("list did not change: %q %v", gpu.Count, gpu.Cards)
		}
		if q := query(t, tb.location()); q.Get("component") != "gpu-driver" {
			t.Errorf("URL %s lacks component=gpu-driver", tb.location())
		}
		tb.shot("02-gpu-driver")

		// Back restores the unfiltered list and URL.
		tb.do("back", chromedp.NavigateBack())
		tb.waitJS("the unfiltered list", `!location.search.includes("component") && document.querySelectorAll('[data-testid="chip"]').length === 0`)
		tb.waitJS("the graph drawn again", `document.querySelector(".graph-panel .graph-canvas canvas")`)
		back := tb.page()
		if countText(back.Count) != countText(start.Count) || !slices.Equal(back.Cards, start.Cards) {
			t.Errorf("back shows %q %v, want %q %v", back.Count, back.Cards, start.Count, start.Cards)
		}
		tb.do("forward", chromedp.NavigateForward())
		tb.waitJS("the filtered list again", `location.search.includes("component=gpu-driver") && document.querySelectorAll('[data-testid="chip"]').length === 1`)
		if again := tb.page(); !slices.Equal(again.Cards, gpu.Cards) {
			t.Errorf("forward shows %v, want %v", again.Cards, gpu.Cards)
		}

		// A second facet narrows the list; its chip removes just that value.
		tb.markWindow()
		tb.revealFacetValue("year", "2025")
		tb.do("click year 2025", chromedp.Click(chromedp.CSS(testID("facet-year")+` a[data-term="2025"]`)))
		tb.waitJS("two chips", `document.querySelectorAll('[data-testid="chip"]').length === 2`)
		both := tb.page()
		if len(both.Cards) == 0 || len(both.Cards) >= len(gpu.Cards) {
			t.Errorf("GPU driver and 2025 gives %v", both.Cards)
		}
		tb.shot("03-two-chips")
		tb.do("remove the year chip", chromedp.Click(chromedp.CSS(testID("chip")+`[aria-label*="2025"]`)))
		tb.waitJS("one chip", `document.querySelectorAll('[data-testid="chip"]').length === 1 && !location.search.includes("year")`)
		one := tb.page()
		if !slices.Equal(one.Cards, gpu.Cards) || !one.Marker {
			t.Errorf("after removing the chip: %+v, want the GPU-driver list swapped in place", one)
		}
		if q := query(t, tb.location()); q.Get("component") != "gpu-driver" || q.Has("year") {
			t.Errorf("URL after removing the chip: %s", tb.location())
		}

		// Paging keeps the page size.
		tb.open("/?per_page=5")
		tb.waitJS("htmx", `window.htmx`)
		first := tb.page()
		tb.do("next page", chromedp.Click(chromedp.CSS(testID("next-page"))))
		tb.waitJS("page 2", `location.search.includes("page=2")`)
		tb.waitJS("page 2 cards", `document.querySelector('[data-testid="countline"]').textContent.trim().startsWith("6–10")`)
		second := tb.page()
		if q := query(t, tb.location()); q.Get("per_page") != "5" {
			t.Errorf("page 2 URL %s lost per_page", tb.location())
		}
		if len(second.Cards) != 5 || slices.ContainsFunc(second.Cards, func(id string) bool { return slices.Contains(first.Cards, id) }) {
			t.Errorf("page 2 %v overlaps page 1 %v", second.Cards, first.Cards)
		}
		tb.shot("04-page-2")

		// Open an incident from the list.
		id := second.Cards[0]
		tb.follow("open "+id, chromedp.Click(chromedp.CSS(testID("case")+`[data-id="`+id+`"] h3 a`)))
		tb.waitJS("the incident page", `document.querySelector('[data-testid="incident"]') && location.pathname === "/incidents/`+id+`"`)
		sections := eval[int](tb, `document.querySelectorAll('[data-testid^="section-"]').length`)
		if sections < 6 {
			t.Errorf("incident %s shows %d sections", id, sections)
		}
		if title := eval[string](tb, `document.title`); !strings.Contains(title, id) {
			t.Errorf("incident page title %q", title)
		}
		tb.shot("05-incident")
	})
}
