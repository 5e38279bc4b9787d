package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"casebook/internal/search"
)

// A query that names a symptom answers with the route's playbook section
// first: the API's best object and first hit, and on the page a card above
// the results with the section, its first commands and the wizard opened
// at the route, in the page's language; the incidents stay below it.
func TestSearchPutsTheSymptomsSectionFirst(t *testing.T) {
	h := newHandler(t)
	for _, c := range []struct {
		query, lang, route, title string
	}{
		{"nvidia device plugin crashloop", "en", "gpu/device-plugin", "Layer 3: device plugin"},
		{"CUDA OOM vllm", "en", "memory/cuda-oom", ""},
		{"GPU 노드에 파드가 안 올라감", "ko", "", ""},
		{"파드 메모리 부족으로 재시작", "ko", "memory/oomkilled", ""},
	} {
		var res search.Result
		getJSON(t, h, "/api/search?q="+url.QueryEscape(c.query), http.StatusOK, &res)
		if res.Best == nil || len(res.Hits) == 0 || res.Hits[0].ID != res.Best.Playbook || !res.Hits[0].Best {
			t.Errorf("%q: best %+v, first hit %v", c.query, res.Best, res.Hits[:min(1, len(res.Hits))])
			continue
		}
		if c.route != "" && res.Best.Route != c.route {
			t.Errorf("%q: best route %s, want %s", c.query, res.Best.Route, c.route)
		}
		if !strings.HasPrefix(res.Best.URL, "/playbooks/"+res.Best.Playbook+"#") {
			t.Errorf("%q: best URL %q", c.query, res.Best.URL)
		}
		doc := page(t, h, "/search?lang="+c.lang+"&q="+url.QueryEscape(c.query), http.StatusOK)
		card := doc.Find(`[data-testid="best"]`)
		if card.Length() != 1 {
			t.Errorf("%q: %d best cards", c.query, card.Length())
			continue
		}
		link := card.Find(`[data-testid="best-link"]`)
		if link.AttrOr("href", "") != res.Best.URL {
			t.Errorf("%q: the card links %q, want %q", c.query, link.AttrOr("href", ""), res.Best.URL)
		}
		want := res.Best.Title
		if c.lang == "ko" && res.Best.TitleKo != "" {
			want = res.Best.TitleKo
		}
		if got := strings.TrimSpace(link.Text()); got != want || c.title != "" && got != c.title {
			t.Errorf("%q: the card's title %q, want %q", c.query, got, want)
		}
		if card.Find(`[data-testid="best-commands"] pre`).Length() == 0 {
			t.Errorf("%q: the card shows no commands", c.query)
		}
		wizard := card.Find(`[data-testid="best-wizard"]`).AttrOr("href", "")
		outcome := page(t, h, wizard, http.StatusOK)
		if got := outcome.Find(`[data-testid="playbook-link"]`).AttrOr("href", ""); got != res.Best.URL {
			t.Errorf("%q: the wizard link %q ends at %q, want the section %q", c.query, wizard, got, res.Best.URL)
		}
		if doc.Find(`[data-testid="results"] li`).Length() < 2 {
			t.Errorf("%q: the incidents are not listed below the card", c.query)
		}
	}
	// An organisation, an incident id or a quoted error comes first.
	for _, q := range []string{"IL-0171", `"Failed to initialize NVML"`, "Zalando"} {
		var res search.Result
		getJSON(t, h, "/api/search?q="+url.QueryEscape(q), http.StatusOK, &res)
		if res.Best != nil {
			t.Errorf("%q: best %+v, want none", q, res.Best)
		}
	}
}
