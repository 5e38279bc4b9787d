package web_test

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"
)

// seedGPUDriverCases are the GPU-driver cases of the seed page, which any
// component=gpu-driver list must show.
var seedGPUDriverCases = []string{"IL-0171", "IL-0138", "IL-0021"}

func TestLibraryDefaultIsNewestFirst(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	all := allIncidents(t, h, "")
	doc := page(t, h, "/", http.StatusOK)

	from, to, total := countLine(t, doc)
	want := min(20, len(all))
	if from != 1 || to != want || total != len(all) {
		t.Errorf("count line %d–%d of %d, want 1–%d of %d", from, to, total, want, len(all))
	}
	if d := cmp.Diff(ids(all)[:want], cardIDs(doc)); d != "" {
		t.Errorf("cards (-want +got):\n%s", d)
	}
	for i := 1; i < len(all); i++ {
		if all[i-1].Date < all[i].Date {
			t.Errorf("not newest first: %s (%s) before %s (%s)", all[i-1].ID, all[i-1].Date, all[i].ID, all[i].Date)
		}
	}
	if n := byTestID(doc, "chips").Length(); n != 0 {
		t.Errorf("unfiltered page shows %d chip blocks", n)
	}
	for _, param := range []string{"cause", "component", "symptom", "factor", "domain", "org", "year"} {
		if byTestID(doc, "facet-"+param).Find("a[data-term]").Length() == 0 {
			t.Errorf("facet-%s has no values", param)
		}
	}
	one(t, doc, "graph")
	one(t, doc, "graph-fallback")
	if cur := doc.Find(`nav[aria-label="Sort"] a[aria-current]`).Text(); cur != "Newest" {
		t.Errorf("current sort %q, want Newest", cur)
	}
}

func TestLibraryGPUDriver(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	doc := page(t, h, "/?component=gpu-driver", http.StatusOK)
	cards := cardIDs(doc)
	for _, id := range seedGPUDriverCases {
		if !slices.Contains(cards, id) {
			t.Errorf("seed case %s missing from %v", id, cards)
		}
	}
	from, to, total := countLine(t, doc)
	if from != 1 || to != len(cards) || total != len(cards) {
		t.Errorf("count line %d–%d of %d, but %d cards", from, to, total, len(cards))
	}
	byTestID(doc, "case").Each(func(_ int, card *goquery.Selection) {
		if card.Find(`a.term-component[href="/?component=gpu-driver"]`).Length() != 1 {
			t.Errorf("card %s has no GPU driver term link", card.AttrOr("data-id", "?"))
		}
	})

	t.Run("selected value counts the list", func(t *testing.T) {
		v := byTestID(doc, "facet-component").Find(`a[data-term="gpu-driver"]`)
		if v.AttrOr("aria-current", "") != "true" || !v.HasClass("selected") {
			t.Errorf("gpu-driver is not marked selected")
		}
		if n := countOf(t, v); n != total {
			t.Errorf("gpu-driver count %d, list has %d", n, total)
		}
	})
	t.Run("single-valued facets add up to the total", func(t *testing.T) {
		for _, param := range []string{"year", "org"} {
			sum := 0
			byTestID(doc, "facet-"+param).Find("a[data-term]").Each(func(_ int, v *goquery.Selection) {
				sum += countOf(t, v)
			})
			if sum != total {
				t.Errorf("facet-%s counts add up to %d, want %d", param, sum, total)
			}
		}
	})
	t.Run("each count is what its link gives", func(t *testing.T) {
		for _, param := range []string{"year", "org", "symptom", "factor", "cause", "domain"} {
			byTestID(doc, "facet-"+param).Find("a[data-term]").Each(func(i int, v *goquery.Selection) {
				if i >= 2 {
					return
				}
				want := countOf(t, v)
				href := v.AttrOr("href", "")
				_, _, got := countLine(t, page(t, h, href, http.StatusOK))
				if got != want {
					t.Errorf("facet-%s %s shows %d, but %s lists %d", param, v.AttrOr("data-term", ""), want, href, got)
				}
			})
		}
		byTestID(doc, "facet-cause").Find("p.facet-group").Slice(0, 2).Each(func(_ int, g *goquery.Selection) {
			want, _ := strconv.Atoi(g.Find(".count").Text())
			href := g.Find("a").AttrOr("href", "")
			if _, _, got := countLine(t, page(t, h, href, http.StatusOK)); got != want {
				t.Errorf("cause category %q shows %d, but %s lists %d", g.Find("a").Text(), want, href, got)
			}
		})
	})
	t.Run("most common line", func(t *testing.T) {
		if byTestID(doc, "common").Find("dd a").Length() == 0 {
			t.Errorf("no 'most common in this set' terms")
		}
	})
}

func countOf(t *testing.T, v *goquery.Selection) int {
	t.Helper()
	n, err := strconv.Atoi(strings.TrimSpace(v.Find(".count").Text()))
	if err != nil {
		t.Fatalf("facet value %q: count: %v", v.Text(), err)
	}
	return n
}

func TestLibraryFilterLogic(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	w := newWorld(t, h)
	all := allIncidents(t, h, "")
	tests := []struct {
		name, query string
	}{
		{"one value", "component=gpu-driver"},
		{"OR within a facet", "component=gpu-driver&component=nvidia-device-plugin"},
		{"AND across facets", "component=gpu-driver&symptom=gpu-not-visible"},
		{"OR within, AND across", "component=gpu-driver&component=node-os-image&year=2025&year=2024"},
		{"cause category and domain", "cause_category=software-defect&domain=gpu"},
		{"organisation and year", "org=amazon-eks-users-awslabs-amazon-eks-ami&year=2026&year=2023"},
		{"nothing matches", "component=gpu-driver&year=2017"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := w.expect(all, tt.query)
			doc := page(t, h, "/?per_page=100&"+tt.query, http.StatusOK)
			got := cardIDs(doc)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("cards (-want +got):\n%s", d)
			}
			if _, _, total := countLine(t, doc); total != len(want) {
				t.Errorf("count line total %d, want %d", total, len(want))
			}
		})
	}
}

func TestLibraryChips(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	const target = "/?component=gpu-driver&component=node-os-image&year=2025&sort=oldest"
	orig := query(t, target)
	doc := page(t, h, target, http.StatusOK)
	chips := byTestID(doc, "chip")
	if chips.Length() != 3 {
		t.Fatalf("%d chips, want 3", chips.Length())
	}
	removed := map[string]bool{}
	chips.Each(func(_ int, ch *goquery.Selection) {
		href := ch.AttrOr("href", "")
		rest := query(t, href)
		var gone []string
		for k, vs := range orig {
			for _, v := range vs {
				if !slices.Contains(rest[k], v) {
					gone = append(gone, k+"="+v)
				}
			}
		}
		if len(gone) != 1 {
			t.Errorf("chip %q links to %s, which drops %v; want exactly one value dropped", ch.Text(), href, gone)
			return
		}
		removed[gone[0]] = true
		if !strings.HasPrefix(ch.AttrOr("aria-label", ""), "Remove filter") {
			t.Errorf("chip %q has no 'Remove filter' label", ch.Text())
		}
		if rest.Get("sort") != "oldest" {
			t.Errorf("chip link %s loses the sort order", href)
		}
		// Following the link drops exactly that chip.
		if n := byTestID(page(t, h, href, http.StatusOK), "chip").Length(); n != 2 {
			t.Errorf("after removing %s: %d chips, want 2", gone[0], n)
		}
	})
	if d := cmp.Diff(map[string]bool{"component=gpu-driver": true, "component=node-os-image": true, "year=2025": true}, removed); d != "" {
		t.Errorf("chips remove (-want +got):\n%s", d)
	}

	clear := one(t, doc, "clear-all").AttrOr("href", "")
	if d := cmp.Diff(url.Values{"sort": {"oldest"}}, query(t, clear)); d != "" {
		t.Errorf("clear all %s: query (-want +got):\n%s", clear, d)
	}
	cleared := page(t, h, clear, http.StatusOK)
	if n := byTestID(cleared, "chip").Length(); n != 0 {
		t.Errorf("clear all leaves %d chips", n)
	}
	if _, _, total := countLine(t, cleared); total != len(allIncidents(t, h, "")) {
		t.Errorf("clear all lists %d, want every incident", total)
	}
}

func TestLibrarySort(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	all := allIncidents(t, h, "")
	newest := ids(all)
	oldest := slices.Clone(newest)
	slices.Reverse(oldest)
	byTitle := slices.Clone(all)
	slices.SortStableFunc(byTitle, func(a, b apiItem) int {
		if c := strings.Compare(strings.ToLower(a.Title), strings.ToLower(b.Title)); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	tests := []struct {
		sort, label string
		want        []string
	}{
		{"newest", "Newest", newest},
		{"oldest", "Oldest", oldest},
		{"title", "Title", ids(byTitle)},
	}
	for _, tt := range tests {
		t.Run(tt.sort, func(t *testing.T) {
			// The first page of at most 100: the library has more.
			doc := page(t, h, "/?per_page=100&sort="+tt.sort, http.StatusOK)
			if d := cmp.Diff(tt.want[:min(100, len(tt.want))], cardIDs(doc)); d != "" {
				t.Errorf("order (-want +got):\n%s", d)
			}
			if cur := doc.Find(`nav[aria-label="Sort"] a[aria-current]`).Text(); cur != tt.label {
				t.Errorf("current sort %q, want %q", cur, tt.label)
			}
		})
	}
}

func TestLibraryPaging(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	all := ids(allIncidents(t, h, ""))
	const per = 5
	if len(all) <= 2*per {
		t.Fatalf("need more than %d incidents to test paging, have %d", 2*per, len(all))
	}
	doc := page(t, h, "/?per_page=5", http.StatusOK)
	if d := cmp.Diff(all[:per], cardIDs(doc)); d != "" {
		t.Errorf("page 1 (-want +got):\n%s", d)
	}
	pager := one(t, doc, "pager")
	if cur := pager.Find(`a[aria-current="page"]`).Text(); cur != "1" {
		t.Errorf("current page %q, want 1", cur)
	}
	next := one(t, doc, "next-page").AttrOr("href", "")
	if q := query(t, next); q.Get("page") != "2" || q.Get("per_page") != "5" {
		t.Fatalf("next page link %s, want page=2 and per_page=5 kept", next)
	}

	doc = page(t, h, next, http.StatusOK)
	from, to, total := countLine(t, doc)
	if from != per+1 || to != 2*per || total != len(all) {
		t.Errorf("page 2 count line %d–%d of %d, want %d–%d of %d", from, to, total, per+1, 2*per, len(all))
	}
	if d := cmp.Diff(all[per:2*per], cardIDs(doc)); d != "" {
		t.Errorf("page 2 (-want +got):\n%s", d)
	}
	if prev := doc.Find(`[data-testid="pager"] a[rel="prev"]`).AttrOr("href", ""); query(t, prev).Get("per_page") != "5" {
		t.Errorf("previous page link %q loses per_page", prev)
	}

	last := (len(all) + per - 1) / per
	doc = page(t, h, "/?per_page=5&page="+strconv.Itoa(last), http.StatusOK)
	if d := cmp.Diff(all[(last-1)*per:], cardIDs(doc)); d != "" {
		t.Errorf("last page (-want +got):\n%s", d)
	}
	if byTestID(doc, "next-page").Length() != 0 {
		t.Errorf("last page has a next link")
	}
	page(t, h, "/?per_page=5&page="+strconv.Itoa(last+1), http.StatusNotFound)
}
