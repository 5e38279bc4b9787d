package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"casebook/internal/content"
	"casebook/internal/draft"
	"casebook/internal/library"
	"casebook/internal/web"
)

// layered is the portal on the shipped library with a team's layer on top
// (the acme fixture copied to a folder outside any Git work tree, so the
// change times come from the files), loaded once for the tests below.
var layered struct {
	once    sync.Once
	h       http.Handler
	err     error
	changed time.Time
	dir     string // removed by TestMain
}

func newLayeredHandler(t *testing.T) http.Handler {
	t.Helper()
	layered.once.Do(func() {
		log := slog.New(slog.NewTextHandler(io.Discard, nil))
		dir, err := os.MkdirTemp("", "casebook-web-layers-")
		if err != nil {
			layered.err = err
			return
		}
		layered.dir = dir
		team := filepath.Join(dir, "acme")
		if err := os.CopyFS(team, os.DirFS("../library/testdata/layers/acme")); err != nil {
			layered.err = err
			return
		}
		layered.changed = time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
		f := filepath.Join(team, "incidents", "ACME-0001-gateway-sent-traffic-to-drained-pool.md")
		if err := os.Chtimes(f, layered.changed, layered.changed); err != nil {
			layered.err = err
			return
		}
		stack := library.NewStack(library.Layer{FS: os.DirFS("../../library"), Root: "library"},
			library.Layer{FS: os.DirFS(team), Root: team, Dir: team})
		loader := content.NewStackLoader(stack, filepath.Join(dir, "data"), log)
		if _, err := loader.Load(context.Background()); err != nil {
			layered.err = err
			return
		}
		// The loader and folder live as long as the test binary: TestMain
		// removes the folder after the tests.
		layered.h = web.New(web.Deps{Content: loader, Log: log, Limiter: testLimiter()})
	})
	if layered.err != nil {
		t.Fatal(layered.err)
	}
	return layered.h
}

func pageDoc(t *testing.T, h http.Handler, target string, header ...string) *goquery.Document {
	t.Helper()
	rec := get(t, h, target, header...)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", target, rec.Code, rec.Body.String())
	}
	doc, err := goquery.NewDocumentFromReader(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// facetValues maps a facet's values (data-term) to their labels and counts.
func sourceValues(doc *goquery.Document) map[string]string {
	out := map[string]string{}
	doc.Find(`[data-testid="facet-layer"] a[data-term]`).Each(func(_ int, a *goquery.Selection) {
		out[a.AttrOr("data-term", "")] = strings.Join(strings.Fields(a.Text()), " ")
	})
	return out
}

func TestSourceFacet(t *testing.T) {
	h := newLayeredHandler(t)
	doc := pageDoc(t, h, "/")
	vals := sourceValues(doc)
	if !strings.HasPrefix(vals["public"], "Public library ") || vals["acme"] != "acme 2" {
		t.Fatalf("Source facet = %q, want the public library and acme 2", vals)
	}
	// Choosing the team's layer lists its incidents alone, each marked.
	doc = pageDoc(t, h, "/?layer=acme")
	var ids, marks []string
	doc.Find(`[data-testid="case"]`).Each(func(_ int, c *goquery.Selection) {
		ids = append(ids, c.AttrOr("data-id", ""))
		marks = append(marks, c.Find(`[data-testid="card-layer"]`).Text())
	})
	if strings.Join(ids, ",") != "ACME-0002,ACME-0001" && strings.Join(ids, ",") != "ACME-0001,ACME-0002" {
		t.Errorf("?layer=acme lists %v, want the two ACME incidents", ids)
	}
	for i, m := range marks {
		if m != "acme" {
			t.Errorf("card %s is marked %q, want acme", ids[i], m)
		}
	}
	if chip := doc.Find(`[data-testid="chip"]`).Text(); !strings.Contains(chip, "Source") || !strings.Contains(chip, "acme") {
		t.Errorf("active filters = %q, want a Source: acme chip", chip)
	}
	if got := doc.Find(`[data-testid="facet-layer"] a.selected`).AttrOr("data-term", ""); got != "acme" {
		t.Errorf("selected Source = %q, want acme", got)
	}
	// A public incident never carries a layer mark.
	doc = pageDoc(t, h, "/?layer=public")
	if n := doc.Find(`[data-testid="card-layer"]`).Length(); n != 0 {
		t.Errorf("?layer=public shows %d layer marks, want none", n)
	}
	if n := doc.Find(`[data-testid="case"]`).Length(); n == 0 {
		t.Error("?layer=public lists nothing")
	}
	// Search has the facet too.
	doc = pageDoc(t, h, "/search?q=gateway")
	if vals := sourceValues(doc); vals["acme"] == "" {
		t.Errorf("search Source facet = %q, want acme", vals)
	}
	// In Korean.
	doc = pageDoc(t, h, "/?lang=ko")
	if got := doc.Find(`[data-testid="facet-layer"] summary`).Text(); got != "출처" {
		t.Errorf("Korean Source facet title = %q, want 출처", got)
	}
	if vals := sourceValues(doc); !strings.HasPrefix(vals["public"], "공개 라이브러리 ") {
		t.Errorf("Korean public layer = %q, want 공개 라이브러리", vals["public"])
	}
	if rec := get(t, h, "/?layer=acm"); rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "acme") {
		t.Errorf("?layer=acm: %d, want 400 suggesting acme", rec.Code)
	}
}

func TestSourceFacetHiddenWithOneLayer(t *testing.T) {
	doc := pageDoc(t, newHandler(t), "/")
	if n := doc.Find(`[data-testid="facet-layer"]`).Length(); n != 0 {
		t.Error("a library of one layer shows a Source facet with nothing to choose")
	}
}

func TestProvenanceOnPages(t *testing.T) {
	h := newLayeredHandler(t)
	doc := pageDoc(t, h, "/incidents/ACME-0001")
	prov := doc.Find(`[data-testid="provenance"]`)
	if got := prov.AttrOr("data-layer", ""); got != "acme" {
		t.Fatalf("incident layer = %q, want acme", got)
	}
	wantEdit := "https://git.example.com/acme/casebook/-/edit/main/library/incidents/ACME-0001-gateway-sent-traffic-to-drained-pool.md"
	if got := prov.Find(`[data-testid="edit-link"]`).AttrOr("href", ""); got != wantEdit {
		t.Errorf("edit link = %q, want %q", got, wantEdit)
	}
	if got := prov.Find(`[data-testid="changed"] time`).AttrOr("datetime", ""); got != layered.changed.Format(time.RFC3339) {
		t.Errorf("last changed = %q, want the file's time %s", got, layered.changed.Format(time.RFC3339))
	}
	if got := prov.Find(`[data-testid="changed"]`).Text(); !strings.Contains(got, "file modification time") {
		t.Errorf("last changed says %q, want it to name the file's modification time", got)
	}
	if got := prov.Find(`[data-testid="source-path"]`).Text(); got != "incidents/ACME-0001-gateway-sent-traffic-to-drained-pool.md" {
		t.Errorf("source path = %q", got)
	}

	// The team's playbook that replaces the public one says so.
	doc = pageDoc(t, h, "/playbooks/pod-pending")
	if got := doc.Find(`[data-testid="overrides"]`).Text(); !strings.Contains(got, "acme") || !strings.Contains(got, "Public library") {
		t.Errorf("override note = %q, want it to name acme and the public library", got)
	}
	if got := doc.Find(`[data-testid="provenance"]`).AttrOr("data-layer", ""); got != "acme" {
		t.Errorf("overriding playbook layer = %q, want acme", got)
	}
	doc = pageDoc(t, h, "/playbooks/pod-pending?lang=ko")
	if got := doc.Find(`[data-testid="overrides"]`).Text(); !strings.Contains(got, "레이어") {
		t.Errorf("Korean override note = %q", got)
	}

	// A public page names its layer and file; the embedded or in-repo
	// public library has no edit URL template, so no edit link.
	doc = pageDoc(t, h, "/playbooks/gpu-missing")
	prov = doc.Find(`[data-testid="provenance"]`)
	if prov.AttrOr("data-layer", "") != "public" || prov.Find(`[data-testid="edit-link"]`).Length() != 0 {
		t.Errorf("public playbook provenance: layer %q, edit links %d", prov.AttrOr("data-layer", ""), prov.Find(`[data-testid="edit-link"]`).Length())
	}
	if doc.Find(`[data-testid="overrides"]`).Length() != 0 {
		t.Error("a public playbook that replaces nothing shows an override note")
	}
}

// The wizard's write-up is the team layer's next incident: named and
// numbered for the layer, with the commands that add it, and it passes lint
// in the layer apart from the fields only a person can fill (each reported
// as TODO).
func TestWriteupBecomesTeamIncident(t *testing.T) {
	h := newLayeredHandler(t)
	target := "/triage"
	var doc *goquery.Document
	for step := 0; ; step++ {
		doc = pageDoc(t, h, target)
		if doc.Find(`[data-testid="outcome"]`).Length() > 0 {
			break
		}
		next, ok := doc.Find(`[data-testid="answer"]`).First().Attr("href")
		if !ok || step > 15 {
			t.Fatalf("no outcome after %d answers at %s", step, target)
		}
		target = next
	}
	file := doc.Find(`[data-testid="writeup-file"]`).Text()
	if !strings.Contains(file, "ACME-0003") || !strings.Contains(file, "incidents/ACME-0003-") {
		t.Errorf("write-up file = %q, want the acme layer's next id ACME-0003 under incidents/", file)
	}
	cmds := doc.Find(`[data-testid="writeup-commands"]`).Text()
	for _, want := range []string{"git checkout -b incident/acme-0003", "casebook lint .", "git add incidents/ACME-0003-"} {
		if !strings.Contains(cmds, want) {
			t.Errorf("commands lack %q:\n%s", want, cmds)
		}
	}
	if got := doc.Find(`[data-testid="writeup-layers"] a`).Text(); got != "Public library" {
		t.Errorf("other layers offered = %q, want the public library", got)
	}
	href, _ := doc.Find(`[data-testid="writeup"]`).Attr("href")
	rec := get(t, h, href)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", href, rec.Code, rec.Body.String())
	}
	disp := rec.Header().Get("Content-Disposition")
	name := strings.TrimSuffix(strings.TrimPrefix(disp, `attachment; filename="`), `"`)
	if !strings.HasPrefix(name, "ACME-0003-") || !strings.HasSuffix(name, ".md") {
		t.Fatalf("download is named %q, want ACME-0003-<slug>.md", name)
	}

	// Put the file where the page says, in a copy of the team's layer, and
	// lint the stack.
	team := filepath.Join(t.TempDir(), "acme")
	if err := os.CopyFS(team, os.DirFS("../library/testdata/layers/acme")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(team, "incidents", name), rec.Body.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	stack := library.NewStack(library.Layer{FS: os.DirFS("../../library"), Root: "library"}, library.Layer{FS: os.DirFS(team), Root: "acme"})
	_, problems, err := stack.Load()
	if err != nil {
		t.Fatal(err)
	}
	todos := 0
	for _, p := range problems {
		if !strings.Contains(p.Path, name) {
			continue
		}
		if !p.Todo {
			t.Errorf("the downloaded draft fails lint on more than its TODOs: %s:%d: %s", p.Path, p.Line, p.Msg)
		}
		todos++
	}
	if todos == 0 {
		t.Error("lint reports no TODO in the draft; a person still has to write what happened")
	}

	// A draft for the public library numbers itself among the IL ids.
	other, _ := doc.Find(`[data-testid="writeup-layers"] a`).Attr("href")
	rec = get(t, h, other)
	if disp := rec.Header().Get("Content-Disposition"); rec.Code != http.StatusOK || !strings.Contains(disp, `filename="IL-`) {
		t.Errorf("public draft: %d %q, want an IL- file", rec.Code, disp)
	}
	if rec := get(t, h, href+"&layer=nope"); rec.Code != http.StatusBadRequest {
		t.Errorf("unknown layer: %d, want 400", rec.Code)
	}
}

// With no team layer loaded, the wizard's write-up claims no id of the
// public library's numbering: the draft and the page carry the placeholder
// and say how to start a layer, which numbers it.
func TestWriteupWithoutTeamLayer(t *testing.T) {
	h := newHandler(t)
	target := "/triage"
	var doc *goquery.Document
	for step := 0; ; step++ {
		doc = pageDoc(t, h, target)
		if doc.Find(`[data-testid="outcome"]`).Length() > 0 {
			break
		}
		next, ok := doc.Find(`[data-testid="answer"]`).First().Attr("href")
		if !ok || step > 15 {
			t.Fatalf("no outcome after %d answers at %s", step, target)
		}
		target = next
	}
	note := doc.Find(`[data-testid="writeup-no-layer"]`).Text()
	if !strings.Contains(note, draft.Placeholder) || !strings.Contains(note, "docs/layers.md") {
		t.Errorf("no-layer note = %q, want the placeholder and docs/layers.md", note)
	}
	if doc.Find(`[data-testid="writeup-file"]`).Length() != 0 {
		t.Error("the page names a file of the public library for a team's write-up")
	}
	if cmds := doc.Find(`[data-testid="writeup-commands"]`).Text(); !strings.Contains(cmds, "casebook new incident --layer DIR") {
		t.Errorf("commands do not start a layer:\n%s", cmds)
	}
	href, _ := doc.Find(`[data-testid="writeup"]`).Attr("href")
	rec := get(t, h, href)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s: %d", href, rec.Code)
	}
	md := rec.Body.String()
	if !strings.Contains(md, "\nid: "+draft.Placeholder+"\n") || strings.Contains(md, "\nid: IL-") {
		t.Errorf("draft's id is not the placeholder:\n%.400s", md)
	}
	if !strings.Contains(md, "casebook new incident --layer DIR") {
		t.Errorf("draft does not say how to number it:\n%.400s", md)
	}
}
