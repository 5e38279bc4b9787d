package web_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// TestHeadWhereverGet asks every kind of page and API with HEAD: link
// checkers and chat unfurlers do, and a 405 makes them report a dead link.
func TestHeadWhereverGet(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	for _, target := range []string{"/", "/incidents/IL-0171", "/playbooks", "/playbooks/pod-pending", "/graph", "/causes",
		"/terms", "/terms/component/gpu-driver", "/search?q=gpu", "/triage", "/gaps", "/feed.atom", "/api/incidents", "/healthz"} {
		get := httptest.NewRecorder()
		h.ServeHTTP(get, httptest.NewRequest(http.MethodGet, target, nil))
		head := httptest.NewRecorder()
		h.ServeHTTP(head, httptest.NewRequest(http.MethodHead, target, nil))
		if head.Code != get.Code || head.Code != http.StatusOK {
			t.Errorf("HEAD %s: %d, GET: %d", target, head.Code, get.Code)
		}
		if hc, gc := head.Header().Get("Content-Type"), get.Header().Get("Content-Type"); hc != gc {
			t.Errorf("HEAD %s: Content-Type %q, GET %q", target, hc, gc)
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodHead, "/incidents/IL-9999", nil))
	if rec.Code != http.StatusNotFound {
		t.Errorf("HEAD of a missing incident: %d, want 404", rec.Code)
	}
}

// TestCaseInsensitiveIDs follows an id typed in the wrong case to the page.
func TestCaseInsensitiveIDs(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	for _, tt := range []struct{ from, to string }{
		{"/incidents/il-0171", "/incidents/IL-0171"},
		{"/incidents/Il-0171?lang=ko", "/incidents/IL-0171?lang=ko"},
		{"/INCIDENTS/il-0171", "/incidents/IL-0171"},
		{"/playbooks/Pod-Pending", "/playbooks/pod-pending"},
		{"/Terms/Component/GPU-Driver", "/terms/component/gpu-driver"},
		{"/GRAPH", "/graph"},
	} {
		rec := get(t, h, tt.from)
		if rec.Code != http.StatusMovedPermanently || rec.Header().Get("Location") != tt.to {
			t.Errorf("GET %s: %d to %q, want 301 to %s", tt.from, rec.Code, rec.Header().Get("Location"), tt.to)
			continue
		}
		page(t, h, tt.to, http.StatusOK)
	}
	// A missing page in any case stays a 404 rather than a redirect loop.
	page(t, h, "/No/Such/Page", http.StatusNotFound)
}

// TestNotFoundOffersSearch checks that a 404 is not a dead end: it offers a
// search for what the address named, and the portal's starting points.
func TestNotFoundOffersSearch(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	for _, tt := range []struct{ target, query string }{
		{"/incidents/IL-9999", "IL-9999"},
		{"/playbooks/gpu-drivers-missing", "gpu drivers missing"},
		{"/no/such/page", "page"},
	} {
		doc := page(t, h, tt.target, http.StatusNotFound)
		form := one(t, doc, "notfound-search")
		if form.AttrOr("action", "") != "/search" || form.Find(`input[name="q"]`).AttrOr("value", "") != tt.query {
			t.Errorf("%s: search form to %q with %q, want /search with %q", tt.target, form.AttrOr("action", ""),
				form.Find(`input[name="q"]`).AttrOr("value", ""), tt.query)
		}
		for _, href := range []string{"/", "/terms", "/triage", "/playbooks"} {
			if doc.Find(`.notfound-links a[href="`+href+`"]`).Length() != 1 {
				t.Errorf("%s: no link to %s", tt.target, href)
			}
		}
	}
	doc := page(t, h, "/no/such/page?lang=ko", http.StatusNotFound)
	if title := doc.Find("h1").Text(); title != "찾을 수 없습니다" {
		t.Errorf("Korean 404 title %q", title)
	}
}

// TestTermsIndex checks /terms lists every term of the taxonomy once, each
// linking to its page, with the incidents that carry it.
func TestTermsIndex(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	var tax map[string][]struct {
		ID    string `json:"id"`
		Label string `json:"label"`
	}
	getJSON(t, h, "/api/taxonomy", http.StatusOK, &tax)
	doc := page(t, h, "/terms", http.StatusOK)
	one(t, doc, "terms-index")
	for _, facet := range []string{"cause", "component", "symptom", "factor", "domain"} {
		sec := one(t, doc, "terms-"+facet)
		if len(tax[facet]) == 0 {
			t.Fatalf("taxonomy has no %s terms", facet)
		}
		for _, term := range tax[facet] {
			a := sec.Find(`a[href="/terms/` + facet + `/` + term.ID + `"]`)
			if a.Length() != 1 || a.Text() != term.Label {
				t.Errorf("/terms: %s %s listed %d times as %q", facet, term.ID, a.Length(), a.Text())
			}
		}
	}
	gpu := one(t, doc, "terms-component").Find(`a[href="/terms/component/gpu-driver"]`).Parent().Find(".count").Text()
	if want := len(allIncidents(t, h, "component=gpu-driver")); !strings.HasPrefix(gpu, strconv.Itoa(want)+" incident") {
		t.Errorf("gpu-driver says %q, the library lists %d", gpu, want)
	}
}
