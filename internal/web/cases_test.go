package web_test

import (
	"context"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"casebook/internal/triage"
)

// TestOutcomeListsItsRouteCases walks the wizard to the untolerated-taint
// outcome and checks that the incidents it lists are exactly the incidents
// of that route (newest first, at most eight), not every incident that
// links the pod-pending playbook.
func TestOutcomeListsItsRouteCases(t *testing.T) {
	h := newHandler(t)
	st := triage.State{Tree: "pending", Answers: []triage.Given{{Question: "pending-reason", Choice: "taint"}}}
	doc := page(t, h, "/triage?"+url.Values{"tree": {st.Tree}, "a": {st.Encode()}}.Encode(), http.StatusOK)
	var got []string
	one(t, doc, "outcome-incidents").Find("a").Each(func(_ int, a *goquery.Selection) {
		got = append(got, strings.TrimPrefix(a.AttrOr("href", ""), "/incidents/"))
	})
	want := routeIncidents(t, "pending/untolerated-taint")
	if len(want) < 3 {
		t.Fatalf("route pending/untolerated-taint has %d incidents, want at least 3", len(want))
	}
	if len(want) > 8 {
		want = want[:8]
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("outcome lists %v, want the route's incidents %v", got, want)
	}
}

// TestPlaybookCases checks that a playbook's Cases part names, for each
// section a route ends in, the incidents of that route, and links the
// section.
func TestPlaybookCases(t *testing.T) {
	h := newHandler(t)
	doc := page(t, h, "/playbooks/pod-pending", http.StatusOK)
	cases := one(t, doc, "playbook-cases")
	routes := map[string][]string{}
	cases.Find("ul[data-route]").Each(func(_ int, ul *goquery.Selection) {
		var ins []string
		ul.Find("a").Each(func(_ int, a *goquery.Selection) {
			ins = append(ins, strings.TrimPrefix(a.AttrOr("href", ""), "/incidents/"))
		})
		routes[ul.AttrOr("data-route", "")] = ins
		if href := ul.Prev().Find("a").AttrOr("href", ""); !strings.HasPrefix(href, "#") || doc.Find(href).Length() == 0 {
			t.Errorf("cases of %s link %q, which is not a section of the page", ul.AttrOr("data-route", ""), href)
		}
	})
	for _, r := range []string{"pending/untolerated-taint", "pending/insufficient-resources", "pending/resource-quota"} {
		want := routeIncidents(t, r)
		got := routes[r]
		sort.Strings(want)
		sort.Strings(got)
		if strings.Join(got, " ") != strings.Join(want, " ") || len(got) < 3 {
			t.Errorf("cases of %s: %v, want %v (at least 3)", r, got, want)
		}
	}
}

// routeIncidents reads the incidents of a route from the read model the
// handler serves, newest first.
func routeIncidents(t *testing.T, route string) []string {
	t.Helper()
	ins, err := shared.loader.Current().Store.IncidentsForRoute(context.Background(), route, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, in := range ins {
		out = append(out, in.ID)
	}
	return out
}
