package web_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// TestGraphMatrix: the graph page's cause × symptom table reads at a
// glance and every number is the count of the cases its link opens, on the
// whole library and on a filtered set, in English and Korean.
func TestGraphMatrix(t *testing.T) {
	h := newHandler(t)
	for _, target := range []string{"/graph", "/graph?domain=gpu", "/graph?lang=ko"} {
		doc := page(t, h, target, http.StatusOK)
		m := one(t, doc, "graph-matrix")
		if n := m.Find("thead th").Length(); n < 3 {
			t.Errorf("%s: the matrix has %d column heads", target, n)
		}
		if n := m.Find("tbody tr").Length(); n < 2 {
			t.Errorf("%s: the matrix has %d rows", target, n)
		}
		cells := m.Find(`[data-testid="matrix-cell"]`)
		if cells.Length() == 0 {
			t.Fatalf("%s: no cell counts a case", target)
		}
		checked := 0
		cells.Each(func(_ int, a *goquery.Selection) {
			if checked >= 6 {
				return
			}
			checked++
			href := a.AttrOr("href", "")
			u, err := url.Parse(href)
			if err != nil || u.Path != "/" || u.Query().Get("cause") == "" || u.Query().Get("symptom") == "" {
				t.Errorf("%s: cell link %q is not the library filtered by a cause and a symptom", target, href)
				return
			}
			q := u.Query()
			q.Del("lang")
			want, _ := strconv.Atoi(strings.TrimSpace(a.Text()))
			if got := len(allIncidents(t, h, q.Encode())); got != want {
				t.Errorf("%s: cell %s says %d, the library lists %d", target, href, want, got)
			}
		})
	}
	if th := page(t, h, "/graph?lang=ko", http.StatusOK).Find(`[data-testid="graph-matrix"] h2`).Text(); th != "원인과 증상" {
		t.Errorf("Korean matrix heading %q", th)
	}
}
