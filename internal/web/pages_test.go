package web_test

import (
	"encoding/xml"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"
)

// apiIncident is the part of GET /api/incidents/{id} the page tests compare
// against.
type apiIncident struct {
	apiItem
	Playbooks []string `json:"playbooks"`
	Sources   []struct {
		URL   string `json:"url"`
		Title string `json:"title"`
		Quote string `json:"quote"`
	} `json:"sources"`
}

// TestIncidentPageQuotes checks that each source's quote from the API
// appears under that source's link, verbatim in both languages, with the
// caption in the page's language.
func TestIncidentPageQuotes(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	const id = "IL-0171"
	var in apiIncident
	getJSON(t, h, "/api/incidents/"+id, http.StatusOK, &in)
	var quotes int
	for _, s := range in.Sources {
		if s.Quote != "" {
			quotes++
		}
	}
	if quotes == 0 {
		t.Fatalf("%s: the API gives no source with a quote", id)
	}
	for _, tt := range []struct{ query, caption string }{
		{"", "What the source says"},
		{"?lang=ko", "출처 원문"},
	} {
		t.Run("lang"+tt.query, func(t *testing.T) {
			items := one(t, page(t, h, "/incidents/"+id+tt.query, http.StatusOK), "sources").Children()
			if items.Length() != len(in.Sources) {
				t.Fatalf("%d sources on the page, want %d", items.Length(), len(in.Sources))
			}
			items.Each(func(i int, li *goquery.Selection) {
				fig := byTestID(li, "source-quote")
				if in.Sources[i].Quote == "" {
					if fig.Length() != 0 {
						t.Errorf("source %d has no quote but shows one", i)
					}
					return
				}
				if got := fig.Find("blockquote").Text(); got != in.Sources[i].Quote {
					t.Errorf("source %d quote %q, want %q", i, got, in.Sources[i].Quote)
				}
				if got := fig.Find("blockquote").AttrOr("cite", ""); got != in.Sources[i].URL {
					t.Errorf("source %d quote cites %q, want %q", i, got, in.Sources[i].URL)
				}
				if got := strings.TrimSpace(fig.Find("figcaption").Text()); got != tt.caption {
					t.Errorf("caption %q, want %q", got, tt.caption)
				}
			})
		})
	}
}

func TestIncidentPage(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	const id = "IL-0171"
	var in apiIncident
	getJSON(t, h, "/api/incidents/"+id, http.StatusOK, &in)
	doc := page(t, h, "/incidents/"+id, http.StatusOK)
	one(t, doc, "incident")
	if got := doc.Find("h1").First().Text(); got != in.Title {
		t.Errorf("title %q, want %q", got, in.Title)
	}

	t.Run("sections in order", func(t *testing.T) {
		var got []string
		doc.Find(`[data-testid^="section-"] > h2`).Each(func(_ int, s *goquery.Selection) { got = append(got, s.Text()) })
		want := []string{"Symptom", "Trigger", "Detection", "Response", "Follow-ups", "Lessons"}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("sections (-want +got):\n%s", d)
		}
		byTestID(doc, "section-symptom").Each(func(_ int, s *goquery.Selection) {
			if strings.TrimSpace(s.Find("p").Text()) == "" {
				t.Errorf("Symptom section has no text")
			}
		})
	})

	t.Run("terms link to the filtered list", func(t *testing.T) {
		got := map[string][]string{}
		one(t, doc, "classification").Find("a.term").Each(func(_ int, a *goquery.Selection) {
			href := a.AttrOr("href", "")
			u, err := url.Parse(href)
			if err != nil || u.Path != "/" || len(u.Query()) != 1 {
				t.Errorf("term %q links to %q, want /?facet=term", a.Text(), href)
				return
			}
			for k, v := range u.Query() {
				got[k] = append(got[k], v...)
			}
		})
		want := map[string][]string{"cause": in.Causes, "component": in.Components, "symptom": in.Symptoms,
			"factor": in.ContributingFactors, "domain": in.Domains}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("term links (-want +got):\n%s", d)
		}
		// One link per facet is enough to show the target lists this incident.
		for param, vals := range want {
			target := "/?per_page=100&" + param + "=" + vals[0]
			if ids := cardIDs(page(t, h, target, http.StatusOK)); !slices.Contains(ids, id) {
				t.Errorf("%s does not list %s", target, id)
			}
		}
	})

	t.Run("sources", func(t *testing.T) {
		links := one(t, doc, "sources").Find("li a")
		if links.Length() != len(in.Sources) || links.Length() == 0 {
			t.Fatalf("%d source links, want %d (and at least one)", links.Length(), len(in.Sources))
		}
		links.Each(func(i int, a *goquery.Selection) {
			if href := a.AttrOr("href", ""); href != in.Sources[i].URL || !strings.HasPrefix(href, "http") {
				t.Errorf("source %d links to %q, want %q", i, href, in.Sources[i].URL)
			}
			if rel := a.AttrOr("rel", ""); !strings.Contains(rel, "noopener") {
				t.Errorf("source %q has rel %q, want noopener", a.Text(), rel)
			}
		})
	})

	t.Run("related playbooks", func(t *testing.T) {
		var got []string
		one(t, doc, "playbooks").Find("a").Each(func(_ int, a *goquery.Selection) {
			href := a.AttrOr("href", "")
			got = append(got, strings.TrimPrefix(href, "/playbooks/"))
			page(t, h, href, http.StatusOK)
		})
		if d := cmp.Diff(in.Playbooks, got); d != "" || len(got) == 0 {
			t.Errorf("playbook links (-want +got):\n%s", d)
		}
	})

	t.Run("similar incidents say what they share", func(t *testing.T) {
		items := one(t, doc, "similar").Find("li")
		if items.Length() == 0 {
			t.Fatal("no similar incidents")
		}
		items.Each(func(_ int, li *goquery.Selection) {
			href := li.Find("a").AttrOr("href", "")
			other := strings.TrimPrefix(href, "/incidents/")
			if other == id {
				t.Errorf("an incident is similar to itself")
			}
			shares := strings.TrimPrefix(li.Find(".muted").Text(), "shares ")
			if shares == "" {
				t.Fatalf("similar %s does not say what it shares", other)
			}
			var o apiIncident
			getJSON(t, h, "/api/incidents/"+other, http.StatusOK, &o)
			if sharedTerms(in.apiItem, o.apiItem) == 0 {
				t.Errorf("similar %s shares no term with %s", other, id)
			}
		})
		// IL-0171 is a node auto-repair replace loop: the most similar
		// incident shares that specific failure, not just "GPU".
		top := items.First().Find(".muted").Text()
		if !strings.Contains(top, "loop") && !strings.Contains(top, "auto-repair") && !strings.Contains(top, "Auto-repair") {
			t.Errorf("the first similar incident shares %q, want the replace loop or node auto-repair", top)
		}
	})
}

// sharedTerms counts the taxonomy terms two incidents have in common.
func sharedTerms(a, b apiItem) int {
	n := 0
	for _, param := range []string{"cause", "component", "symptom", "factor", "domain"} {
		for _, t := range a.terms(param) {
			if slices.Contains(b.terms(param), t) {
				n++
			}
		}
	}
	return n
}

func TestPlaybookPage(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	const id = "gpu-missing"
	var pb struct {
		Title    string   `json:"title"`
		Symptoms []string `json:"symptoms"`
	}
	getJSON(t, h, "/api/playbooks/"+id, http.StatusOK, &pb)
	doc := page(t, h, "/playbooks/"+id, http.StatusOK)
	one(t, doc, "playbook")
	if got := doc.Find("h1").First().Text(); got != pb.Title {
		t.Errorf("title %q, want %q", got, pb.Title)
	}

	var sections []string
	doc.Find(`[data-testid^="section-"] > h2`).Each(func(_ int, s *goquery.Selection) { sections = append(sections, s.Text()) })
	if d := cmp.Diff([]string{"Detect", "Scope", "Mitigate", "Root cause", "Verify", "Record"}, sections); d != "" {
		t.Errorf("sections (-want +got):\n%s", d)
	}
	if n := doc.Find(`[data-testid^="section-"] pre > code`).Length(); n == 0 {
		t.Errorf("no commands in <pre><code> blocks")
	}

	triage := one(t, doc, "start-triage").AttrOr("href", "")
	u, err := url.Parse(triage)
	if err != nil || u.Path != "/triage" || !slices.Contains(pb.Symptoms, u.Query().Get("symptom")) || u.Query().Get("playbook") != id {
		t.Errorf("start-triage links to %q, want /triage with one of symptoms %v and playbook=%s", triage, pb.Symptoms, id)
	}

	covered := one(t, doc, "covered-incidents").Find("a")
	if covered.Length() == 0 {
		t.Fatal("no covered incidents")
	}
	covered.Each(func(_ int, a *goquery.Selection) {
		other := strings.TrimPrefix(a.AttrOr("href", ""), "/incidents/")
		var in apiIncident
		getJSON(t, h, "/api/incidents/"+other, http.StatusOK, &in)
		linked := slices.Contains(in.Playbooks, id)
		for _, s := range pb.Symptoms {
			linked = linked || slices.Contains(in.Symptoms, s)
		}
		if !linked {
			t.Errorf("covered incident %s neither names %s nor shares a symptom with it", other, id)
		}
	})
}

func TestPlaybookList(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	var list struct {
		Total int `json:"total"`
	}
	getJSON(t, h, "/api/playbooks", http.StatusOK, &list)
	doc := page(t, h, "/playbooks", http.StatusOK)
	if n := byTestID(one(t, doc, "results"), "case").Length(); n != list.Total || n == 0 {
		t.Errorf("%d playbook cards, want %d", n, list.Total)
	}
}

func TestTermPage(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	doc := page(t, h, "/terms/component/gpu-driver", http.StatusOK)
	one(t, doc, "term")
	want := sortedIDs(allIncidents(t, h, "component=gpu-driver"))
	got := cardIDs(doc)
	slices.Sort(got)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("incidents (-want +got):\n%s", d)
	}
	co := one(t, doc, "co-terms").Find("li")
	if co.Length() == 0 {
		t.Fatal("no co-occurring terms")
	}
	prev := 1 << 30
	co.Each(func(_ int, li *goquery.Selection) {
		href := li.Find("a").AttrOr("href", "")
		if !regexp.MustCompile(`^/terms/[a-z_]+/[a-z0-9-]+$`).MatchString(href) || href == "/terms/component/gpu-driver" {
			t.Errorf("co-term links to %q", href)
		}
		n, err := strconv.Atoi(li.Find(".muted").AttrOr("data-count", ""))
		if err != nil || n > prev || n < 1 || !strings.Contains(li.Find(".muted").Text(), strconv.Itoa(n)+" incident") {
			t.Errorf("co-term %q count %q after %d", li.Find("a").Text(), li.Find(".muted").Text(), prev)
		}
		prev = n
	})
	// The first co-term is common to the most cases; its count is the
	// size of the intersection.
	first := strings.Split(strings.TrimPrefix(co.First().Find("a").AttrOr("href", ""), "/terms/"), "/")
	if len(first) == 2 && first[0] != "cause_category" {
		filter := "component=gpu-driver&" + first[0] + "=" + first[1]
		if n := len(allIncidents(t, h, filter)); strconv.Itoa(n) != co.First().Find(".muted").AttrOr("data-count", "") {
			t.Errorf("co-term %s says %s, but %s lists %d", first[1], co.First().Find(".muted").AttrOr("data-count", ""), filter, n)
		}
	}
	page(t, h, "/terms/component/no-such-term", http.StatusNotFound)
	page(t, h, "/terms/no-such-facet/gpu-driver", http.StatusNotFound)
}

func TestCausesPage(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	w := newWorld(t, h)
	gpu := allIncidents(t, h, "component=gpu-driver")
	doc := page(t, h, "/causes?component=gpu-driver", http.StatusOK)
	one(t, doc, "causes")
	cats := byTestID(doc, "cause-category")
	if cats.Length() == 0 {
		t.Fatal("no cause categories")
	}
	listed := map[string][]string{} // cause -> incident ids
	cats.Each(func(_ int, cat *goquery.Selection) {
		name := cat.Find("h2 a").Text()
		want, _ := firstInt(cat.Find("h2 .muted").Text())
		seen := map[string]bool{}
		cat.Find("h3").Each(func(_ int, h3 *goquery.Selection) {
			cause := strings.TrimPrefix(h3.Find("a").AttrOr("href", ""), "/terms/cause/")
			rows := h3.Next().Find("li")
			if n, _ := firstInt(h3.Find(".muted").Text()); n != rows.Length() {
				t.Errorf("cause %s says %d, lists %d", cause, n, rows.Length())
			}
			rows.Each(func(_ int, li *goquery.Selection) {
				id := li.Find(".id").Text()
				seen[id] = true
				listed[cause] = append(listed[cause], id)
				if !regexp.MustCompile(`^.+ · \d{4}$`).MatchString(li.Find(".muted").Text()) {
					t.Errorf("%s under %s: %q lacks organisation · year", id, cause, li.Find(".muted").Text())
				}
			})
		})
		if len(seen) != want {
			t.Errorf("category %q says %d incidents, lists %d", name, want, len(seen))
		}
	})
	want := map[string][]string{}
	for _, it := range gpu {
		for _, c := range it.Causes {
			want[c] = append(want[c], it.ID)
		}
	}
	if d := cmp.Diff(want, listed); d != "" {
		t.Errorf("incidents by cause (-want +got):\n%s", d)
	}
	// Categories appear in taxonomy order, each cause under its own.
	cats.Each(func(_ int, cat *goquery.Selection) {
		catID := cat.AttrOr("id", "")
		cat.Find("h3 a").Each(func(_ int, a *goquery.Selection) {
			cause := strings.TrimPrefix(a.AttrOr("href", ""), "/terms/cause/")
			if w.categoryOf[cause] != catID {
				t.Errorf("cause %s listed under %s, its category is %s", cause, catID, w.categoryOf[cause])
			}
		})
	})
}

func TestGraphPage(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	tests := []struct {
		target, dataURL string
	}{
		{"/graph", "/api/graph?"},
		{"/graph?component=gpu-driver", "/api/graph?component=gpu-driver"},
		{"/graph?component=gpu-driver&focus=symptom:gpu-not-visible", "/api/graph?component=gpu-driver&focus=symptom:gpu-not-visible"},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			doc := page(t, h, tt.target, http.StatusOK)
			one(t, doc, "graph-page")
			canvas := one(t, doc, "graph").Find(".graph-canvas")
			if got := canvas.AttrOr("data-graph-url", ""); got != tt.dataURL {
				t.Errorf("graph data URL %q, want %q", got, tt.dataURL)
			}
			if canvas.AttrOr("aria-label", "") == "" {
				t.Errorf("graph canvas has no label")
			}
			var g apiGraph
			getJSON(t, h, tt.dataURL, http.StatusOK, &g)
			if len(g.Nodes) == 0 {
				t.Errorf("%s has no nodes", tt.dataURL)
			}
			fb := one(t, doc, "graph-fallback")
			for _, kind := range []string{"cause", "component", "symptom", "factor"} {
				if fb.Find("h3.gf-"+kind).Length() != 1 || fb.Find("a.term-"+kind).Length() == 0 {
					t.Errorf("fallback lacks a %s group with terms", kind)
				}
			}
			cases := fb.Find(".gf-cases a[href^='/incidents/IL-']")
			if cases.Length() == 0 {
				t.Errorf("fallback names no cases")
			}
			// Names, not bare ids: each case reads "IL-0021 · its title".
			cases.Each(func(_ int, a *goquery.Selection) {
				id := strings.TrimPrefix(a.AttrOr("href", ""), "/incidents/")
				if label := a.Text(); !strings.HasPrefix(label, id+" · ") || len(label) < len(id)+10 {
					t.Errorf("fallback case %s is labelled %q, want its id and title", id, label)
				}
			})
		})
	}
	// The fallback of a filtered graph lists only terms of that set.
	doc := page(t, h, "/graph?component=gpu-driver", http.StatusOK)
	gpu := allIncidents(t, h, "component=gpu-driver")
	one(t, doc, "graph-fallback").Find("a.term-symptom").Each(func(_ int, a *goquery.Selection) {
		sym := query(t, a.AttrOr("href", "")).Get("symptom")
		if !slices.ContainsFunc(gpu, func(it apiItem) bool { return slices.Contains(it.Symptoms, sym) }) {
			t.Errorf("fallback shows symptom %s, which no GPU-driver case has", sym)
		}
	})
	if n := byTestID(doc, "chip").Length(); n != 1 {
		t.Errorf("filtered graph page shows %d chips, want 1", n)
	}
	page(t, h, "/graph?focus=component:gpu-drivr", http.StatusBadRequest)
}

func TestFeed(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	rec := get(t, h, "/feed.atom")
	if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/atom+xml") {
		t.Fatalf("status %d, Content-Type %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	var feed struct {
		XMLName xml.Name `xml:"http://www.w3.org/2005/Atom feed"`
		Title   string   `xml:"title"`
		ID      string   `xml:"id"`
		Updated string   `xml:"updated"`
		Entries []struct {
			Title   string `xml:"title"`
			ID      string `xml:"id"`
			Updated string `xml:"updated"`
			Link    struct {
				Href string `xml:"href,attr"`
			} `xml:"link"`
			Author struct {
				Name string `xml:"name"`
			} `xml:"author"`
		} `xml:"entry"`
	}
	if err := xml.Unmarshal(rec.Body.Bytes(), &feed); err != nil {
		t.Fatalf("not Atom: %v", err)
	}
	if feed.Title == "" || feed.ID == "" {
		t.Errorf("feed lacks title or id: %q %q", feed.Title, feed.ID)
	}
	if _, err := time.Parse(time.RFC3339, feed.Updated); err != nil {
		t.Errorf("feed updated %q: %v", feed.Updated, err)
	}
	if len(feed.Entries) == 0 {
		t.Fatal("no entries")
	}
	newest := allIncidents(t, h, "")[0]
	for i, e := range feed.Entries {
		if _, err := time.Parse(time.RFC3339, e.Updated); err != nil {
			t.Errorf("entry %d updated %q: %v", i, e.Updated, err)
		}
		u, err := url.Parse(e.Link.Href)
		if err != nil || !u.IsAbs() || !strings.HasPrefix(u.Path, "/incidents/IL-") || e.ID == "" || e.Author.Name == "" {
			t.Errorf("entry %d: link %q, id %q, author %q", i, e.Link.Href, e.ID, e.Author.Name)
		}
	}
	// The feed is in the order entries joined the library (ties: newest
	// incident first), not the order the incidents happened.
	var want []string
	all := allIncidents(t, h, "")
	slices.SortStableFunc(all, func(a, b apiItem) int { return strings.Compare(b.Added, a.Added) })
	for _, it := range all[:len(feed.Entries)] {
		want = append(want, it.ID)
	}
	var got []string
	for _, e := range feed.Entries {
		got = append(got, e.Link.Href[strings.LastIndex(e.Link.Href, "/")+1:])
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("feed order (-want +got):\n%s", d)
	}
	if all[0].Added == "" || !strings.HasPrefix(feed.Entries[0].Updated, all[0].Added) {
		t.Errorf("first entry updated %q, want the day it was added, %q", feed.Entries[0].Updated, all[0].Added)
	}
	_ = newest
}

// TestFeedFilters checks that the feed honours the library's filters and
// that a filtered library page links its own feed.
func TestFeedFilters(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	rec := get(t, h, "/feed.atom?component=gpu-driver")
	var feed struct {
		Title   string `xml:"title"`
		Entries []struct {
			ID string `xml:"id"`
		} `xml:"entry"`
	}
	if err := xml.Unmarshal(rec.Body.Bytes(), &feed); err != nil || rec.Code != http.StatusOK {
		t.Fatalf("status %d, %v", rec.Code, err)
	}
	want := map[string]bool{}
	for _, it := range allIncidents(t, h, "component=gpu-driver") {
		want[it.ID] = true
	}
	if len(feed.Entries) != min(50, len(want)) {
		t.Errorf("filtered feed has %d entries, the filtered library %d", len(feed.Entries), len(want))
	}
	for _, e := range feed.Entries {
		if !want[e.ID[strings.LastIndex(e.ID, "/")+1:]] {
			t.Errorf("filtered feed lists %s", e.ID)
		}
	}
	if !strings.Contains(feed.Title, "GPU driver") {
		t.Errorf("filtered feed's title %q does not name its filter", feed.Title)
	}
	doc := page(t, h, "/?component=gpu-driver&page=2&per_page=5", http.StatusOK)
	if href := doc.Find(`link[type="application/atom+xml"]`).AttrOr("href", ""); href != "/feed.atom?component=gpu-driver" {
		t.Errorf("filtered library links the feed %q", href)
	}
	if title := doc.Find("title").Text(); !strings.HasPrefix(title, "GPU driver — ") || !strings.Contains(title, "2") {
		t.Errorf("tab title %q does not say the filter and the page", title)
	}
	if title := page(t, h, "/search?q=taint&component=gpu-driver", http.StatusOK).Find("title").Text(); !strings.Contains(title, "taint") || !strings.Contains(title, "GPU driver") {
		t.Errorf("search tab title %q", title)
	}
}

func TestErrorPages(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	tests := []struct {
		target string
		status int
		says   string // part of the message
	}{
		{"/incidents/IL-9999", http.StatusNotFound, "no incident IL-9999"},
		{"/incidents/not-an-id", http.StatusNotFound, "IL-0042"},
		{"/playbooks/no-such-playbook", http.StatusNotFound, ""},
		{"/no/such/page", http.StatusNotFound, "/no/such/page"},
		{"/?component=gpu-drivr", http.StatusBadRequest, `"gpu-driver"`},
		{"/?org=nobody-at-all", http.StatusBadRequest, "org"},
		{"/?year=12", http.StatusBadRequest, "year"},
		{"/?page=0", http.StatusBadRequest, "page"},
		{"/?per_page=1000", http.StatusBadRequest, "per_page"},
		{"/?sort=random", http.StatusBadRequest, "newest, oldest or title"},
		{"/causes?symptom=nope", http.StatusBadRequest, "symptom"},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			doc := page(t, h, tt.target, tt.status)
			msg := one(t, doc, "error").Find("p").First().Text()
			if !strings.Contains(msg, tt.says) {
				t.Errorf("message %q does not mention %q", msg, tt.says)
			}
			if doc.Find(`a[href="/"]`).Length() == 0 {
				t.Errorf("error page has no way back")
			}
		})
	}
}

// TestContentSecurityPolicy checks the header on every kind of page and that
// the HTML needs nothing the policy forbids: no inline scripts, event
// handler attributes or style attributes.
func TestContentSecurityPolicy(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	for _, target := range []string{"/", "/?component=gpu-driver", "/incidents/IL-0171", "/playbooks/gpu-missing",
		"/playbooks", "/terms/component/gpu-driver", "/causes", "/graph", "/incidents/IL-9999", "/?year=1"} {
		t.Run(target, func(t *testing.T) {
			rec := get(t, h, target)
			csp := rec.Header().Get("Content-Security-Policy")
			for _, want := range []string{"default-src 'self'", "script-src 'self'", "object-src 'none'"} {
				if !strings.Contains(csp, want) {
					t.Errorf("CSP %q lacks %q", csp, want)
				}
			}
			if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
				t.Errorf("CSP %q allows inline code", csp)
			}
			doc, err := goquery.NewDocumentFromReader(rec.Body)
			if err != nil {
				t.Fatal(err)
			}
			doc.Find("script").Each(func(_ int, s *goquery.Selection) {
				if src, ok := s.Attr("src"); !ok || !strings.HasPrefix(src, "/static/") {
					t.Errorf("script without a same-origin src: %q", s.Text())
				}
			})
			doc.Find("*").Each(func(_ int, s *goquery.Selection) {
				for _, a := range s.Nodes[0].Attr {
					if a.Key == "style" || strings.HasPrefix(a.Key, "on") {
						t.Errorf("<%s %s=%q> breaks the CSP", goquery.NodeName(s), a.Key, a.Val)
					}
				}
				if goquery.NodeName(s) == "style" {
					t.Errorf("inline <style> breaks the CSP")
				}
			})
		})
	}
}

// firstInt reads the number in a count label ("10 shared terms", "사례 4건").
func firstInt(s string) (int, error) {
	return strconv.Atoi(strings.ReplaceAll(regexp.MustCompile(`\d[\d,]*`).FindString(s), ",", ""))
}
