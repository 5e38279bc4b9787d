package browser

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"

	"casebook/internal/content"
	"casebook/internal/library"
	"casebook/internal/web"
)

// TestSourceFacet picks the team's layer in the Source facet of a portal
// serving the public library and a team's layer, then opens a team
// incident and finds its layer and edit link.
func TestSourceFacet(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := t.TempDir()
	team := filepath.Join(dir, "acme")
	if err := os.CopyFS(team, os.DirFS("../../internal/library/testdata/layers/acme")); err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	stack := library.NewStack(library.Layer{FS: os.DirFS("../../library"), Root: "library"}, library.Layer{FS: os.DirFS(team), Root: team, Dir: team})
	loader := content.NewStackLoader(stack, filepath.Join(dir, "data"), log)
	t.Cleanup(loader.Close)
	if _, err := loader.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(web.New(web.Deps{Content: loader, Log: log}))
	t.Cleanup(srv.Close)
	layered := &env{base: srv.URL, browser: e.browser, shots: e.shots}

	tb := layered.tab(t)
	tb.open("/")
	tb.waitJS("htmx", `window.htmx && document.documentElement.classList.contains("js")`)
	tb.markWindow()
	tb.do("click the acme source", chromedp.Click(chromedp.CSS(testID("facet-layer")+` a[data-term="acme"]`)))
	tb.waitJS("the team's incidents", `location.search.includes("layer=acme") && document.querySelectorAll('[data-testid="chip"]').length === 1`)
	got := tb.page()
	slices.Sort(got.Cards)
	if !slices.Equal(got.Cards, []string{"ACME-0001", "ACME-0002"}) {
		t.Errorf("Source acme lists %v, want ACME-0001 and ACME-0002", got.Cards)
	}
	if !got.Marker {
		t.Error("choosing a source reloaded the whole page; want an htmx swap")
	}
	tb.shot("layers-01-source-acme")

	tb.follow("open ACME-0001", chromedp.Click(chromedp.CSS(`[data-testid="case"][data-id="ACME-0001"] h3 a`)))
	tb.waitJS("the incident's provenance", `document.querySelector('[data-testid="provenance"]')`)
	prov := eval[map[string]string](tb, `(() => ({
		layer: document.querySelector('[data-testid="provenance"]').dataset.layer,
		edit: (document.querySelector('[data-testid="edit-link"]') || {}).href || "",
	}))()`)
	if prov["layer"] != "acme" || prov["edit"] != "https://git.example.com/acme/casebook/-/edit/main/library/incidents/ACME-0001-gateway-sent-traffic-to-drained-pool.md" {
		t.Errorf("incident provenance = %v", prov)
	}
	tb.shot("layers-02-incident")
}
