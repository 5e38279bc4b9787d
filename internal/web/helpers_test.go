package web_test

import (
	"casebook/internal/access"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"casebook/internal/content"
	"casebook/internal/drill"
	"casebook/internal/web"
)

// shared is the portal on the shipped library, loaded once for the whole
// package: the pages only read it, and a load under -race takes seconds.
var shared struct {
	once   sync.Once
	h      http.Handler
	err    error
	loader *content.Loader
	dir    string
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.loader != nil {
		shared.loader.Close()
	}
	// Each run builds a read model of the whole library (about 10 MB per
	// folder); left behind, they fill a CI machine's disk over a day.
	for _, dir := range []string{shared.dir, layered.dir} {
		if dir != "" {
			_ = os.RemoveAll(dir)
		}
	}
	os.Exit(code)
}

// newHandler serves the real shipped library with its read model built in a
// fresh data folder, so the tests see what users see.
func newHandler(t *testing.T) http.Handler {
	t.Helper()
	shared.once.Do(func() {
		log := slog.New(slog.NewTextHandler(io.Discard, nil))
		if shared.dir, shared.err = os.MkdirTemp("", "casebook-web-test-"); shared.err != nil {
			return
		}
		shared.loader = content.NewLoader(os.DirFS("../../library"), shared.dir, log)
		if _, err := shared.loader.Load(context.Background()); err != nil {
			shared.err = fmt.Errorf("load library: %w", err)
			return
		}
		shared.h = web.New(web.Deps{Content: shared.loader, Log: log, Limiter: testLimiter(), Drills: drill.NewService(os.DirFS("../../library"), nil)})
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.h
}

// get serves one GET request.
func get(t *testing.T, h http.Handler, target string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// page fetches an HTML page, checks its status and parses it.
func page(t *testing.T, h http.Handler, target string, wantStatus int) *goquery.Document {
	t.Helper()
	rec := get(t, h, target)
	if rec.Code != wantStatus {
		t.Fatalf("GET %s: status %d, want %d; body starts %.300q", target, rec.Code, wantStatus, rec.Body.String())
	}
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Fatalf("GET %s: Content-Type %q, want text/html", target, ct)
	}
	doc, err := goquery.NewDocumentFromReader(rec.Body)
	if err != nil {
		t.Fatalf("GET %s: parse HTML: %v", target, err)
	}
	return doc
}

// getJSON fetches target, checks its status and JSON content type, and
// decodes the body into v.
func getJSON(t *testing.T, h http.Handler, target string, wantStatus int, v any) {
	t.Helper()
	rec := get(t, h, target)
	if rec.Code != wantStatus {
		t.Fatalf("GET %s: status %d, want %d; body %.300q", target, rec.Code, wantStatus, rec.Body.String())
	}
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("GET %s: Content-Type %q, want application/json", target, ct)
	}
	if err := json.Unmarshal(rec.Body.Bytes(), v); err != nil {
		t.Fatalf("GET %s: decode JSON: %v; body %.300q", target, err, rec.Body.String())
	}
}

// byTestID selects elements by their data-testid.
func byTestID(s interface {
	Find(string) *goquery.Selection
}, id string) *goquery.Selection {
	return s.Find(`[data-testid="` + id + `"]`)
}

// one selects exactly one element by data-testid or fails.
func one(t *testing.T, doc *goquery.Document, id string) *goquery.Selection {
	t.Helper()
	sel := byTestID(doc, id)
	if sel.Length() != 1 {
		t.Fatalf("want one [data-testid=%s], found %d", id, sel.Length())
	}
	return sel
}

// cardIDs lists the incident ids of the case cards, in order.
func cardIDs(doc *goquery.Document) []string {
	ids := []string{}
	byTestID(doc, "case").Each(func(_ int, s *goquery.Selection) {
		ids = append(ids, s.AttrOr("data-id", ""))
	})
	return ids
}

var countRE = regexp.MustCompile(`^(\d+)–(\d+) of (\d+)`)

// countLine parses "1–20 of 47" from the count line; (0, 0, 0) means "No
// matching cases".
func countLine(t *testing.T, doc *goquery.Document) (from, to, total int) {
	t.Helper()
	text := strings.Join(strings.Fields(one(t, doc, "countline").Text()), " ")
	if strings.HasPrefix(text, "No matching cases") {
		return 0, 0, 0
	}
	m := countRE.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("count line %q does not read like 1–N of N", text)
	}
	a, _ := strconv.Atoi(m[1])
	b, _ := strconv.Atoi(m[2])
	c, _ := strconv.Atoi(m[3])
	return a, b, c
}

// query parses the query of a link, failing on a malformed href.
func query(t *testing.T, href string) url.Values {
	t.Helper()
	u, err := url.Parse(href)
	if err != nil {
		t.Fatalf("bad href %q: %v", href, err)
	}
	return u.Query()
}

// apiItem is one row of GET /api/incidents.
type apiItem struct {
	ID                  string   `json:"id"`
	Title               string   `json:"title"`
	Summary             string   `json:"summary"`
	Organization        string   `json:"organization"`
	Date                string   `json:"date"`
	Domains             []string `json:"domains"`
	Components          []string `json:"components"`
	Causes              []string `json:"causes"`
	Symptoms            []string `json:"symptoms"`
	ContributingFactors []string `json:"contributing_factors"`
	Added               string   `json:"added"`
}

// terms returns the item's terms of a list-facet parameter.
func (it apiItem) terms(param string) []string {
	switch param {
	case "component":
		return it.Components
	case "cause":
		return it.Causes
	case "symptom":
		return it.Symptoms
	case "factor":
		return it.ContributingFactors
	case "domain":
		return it.Domains
	}
	return nil
}

type facetCount struct {
	Term  string `json:"term"`
	Label string `json:"label"`
	Count int    `json:"count"`
}

type apiList struct {
	Total   int                     `json:"total"`
	Page    int                     `json:"page"`
	PerPage int                     `json:"per_page"`
	Items   []apiItem               `json:"items"`
	Facets  map[string][]facetCount `json:"facets"`
}

// allIncidents pages through GET /api/incidents with the given filter query
// and returns every item, in list order.
func allIncidents(t *testing.T, h http.Handler, filter string) []apiItem {
	t.Helper()
	var out []apiItem
	for p := 1; ; p++ {
		var l apiList
		target := "/api/incidents?per_page=100&page=" + strconv.Itoa(p)
		if filter != "" {
			target += "&" + filter
		}
		getJSON(t, h, target, http.StatusOK, &l)
		out = append(out, l.Items...)
		if len(out) >= l.Total || len(l.Items) == 0 {
			return out
		}
	}
}

func ids(items []apiItem) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.ID
	}
	return out
}

func sortedIDs(items []apiItem) []string {
	out := ids(items)
	slices.Sort(out)
	return out
}

// world is what the filter oracle needs to know besides an item: the
// category of each cause and the slug of each organisation.
type world struct {
	categoryOf map[string]string // cause id -> cause category id
	orgSlug    map[string]string // organisation name -> slug
}

func newWorld(t *testing.T, h http.Handler) world {
	t.Helper()
	w := world{categoryOf: map[string]string{}, orgSlug: map[string]string{}}
	var tax map[string][]struct {
		ID       string `json:"id"`
		Category string `json:"category"`
	}
	getJSON(t, h, "/api/taxonomy", http.StatusOK, &tax)
	for _, c := range tax["cause"] {
		w.categoryOf[c.ID] = c.Category
	}
	var l apiList
	getJSON(t, h, "/api/incidents?per_page=1", http.StatusOK, &l)
	for _, o := range l.Facets["org"] {
		w.orgSlug[o.Label] = o.Term
	}
	return w
}

// matches is the filter semantics written out independently of the store:
// values of one parameter are OR (repeated or comma-separated), parameters
// are AND.
func (w world) matches(it apiItem, q url.Values) bool {
	for param, raw := range q {
		var vals []string
		for _, v := range raw {
			vals = append(vals, strings.Split(v, ",")...)
		}
		var have []string
		switch param {
		case "cause_category":
			for _, c := range it.Causes {
				have = append(have, w.categoryOf[c])
			}
		case "org":
			have = []string{w.orgSlug[it.Organization]}
		case "year":
			have = []string{it.Date[:4]}
		case "component", "cause", "symptom", "factor", "domain":
			have = it.terms(param)
		default:
			continue // page, per_page, sort
		}
		if !slices.ContainsFunc(vals, func(v string) bool { return slices.Contains(have, v) }) {
			return false
		}
	}
	return true
}

// expect filters the whole list with the oracle.
func (w world) expect(all []apiItem, rawQuery string) []string {
	q, _ := url.ParseQuery(rawQuery)
	out := []string{}
	for _, it := range all {
		if w.matches(it, q) {
			out = append(out, it.ID)
		}
	}
	return out
}

// testLimiter is a budget no test of this package reaches: searches are
// charged for their wall time, so the default 60 a minute refused the
// tests' own searches on a loaded CI machine. The limits themselves are
// tested in internal/access and, through the whole server, in cmd/server.
func testLimiter() *access.Limiter { return access.NewLimiter(1 << 20) }
