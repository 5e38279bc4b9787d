package web_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"casebook/internal/gaps"
	"casebook/internal/inventory"
	"casebook/internal/web"
)

// gapsHandler is the portal with the gap checks, against a "cluster" that
// returns the inventory read from the harness's planted cluster.
func gapsHandler(t *testing.T, live bool) http.Handler {
	t.Helper()
	newHandler(t) // loads the shared library
	opts := gaps.ServiceOptions{Checks: func() *gaps.Set { return shared.loader.Current().Checks }}
	if live {
		opts.Collect = func(context.Context) (*inventory.Inventory, error) {
			f, err := os.Open("../gaps/testdata/planted.json")
			if err != nil {
				return nil, err
			}
			defer f.Close()
			return inventory.Decode(f)
		}
	}
	return web.New(web.Deps{Content: shared.loader, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Limiter: testLimiter(), Gaps: gaps.NewService(opts)})
}

func gapsDoc(t *testing.T, rec *httptest.ResponseRecorder, status int) *goquery.Document {
	t.Helper()
	if rec.Code != status {
		t.Fatalf("status %d, want %d: %s", rec.Code, status, rec.Body.String())
	}
	d, err := goquery.NewDocumentFromReader(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestGapsPageLive(t *testing.T) {
	d := gapsDoc(t, get(t, gapsHandler(t, true), "/gaps"), http.StatusOK)
	if got := d.Find(`[data-testid="gaps-summary"]`).Text(); !strings.Contains(got, "23 found") || !strings.Contains(got, "16 passed") {
		t.Errorf("summary %q", got)
	}
	var order []string
	d.Find(`section[data-testid^="severity-"]`).Each(func(_ int, s *goquery.Selection) { order = append(order, s.AttrOr("data-testid", "")) })
	if strings.Join(order, " ") != "severity-critical severity-high severity-medium" {
		t.Errorf("severity order %v", order)
	}
	cp := d.Find(`[data-testid="gap-single-control-plane-node"]`)
	if cp.Find(`[data-testid="gap-status"]`).Text() != "found" || !strings.Contains(cp.Find(`[data-testid="gap-objects"]`).Text(), "node/cp-") {
		t.Errorf("single control plane: %q", cp.Text())
	}
	if href, _ := cp.Find(`[data-testid="gap-incident"]`).First().Attr("href"); href != "/incidents/IL-0138" {
		t.Errorf("incident link %q", href)
	}
	if href, _ := d.Find(`[data-testid="gap-device-plugin-not-ready-on-gpu-node"] [data-testid="gap-playbook"]`).First().Attr("href"); href != "/playbooks/gpu-missing#layer-3-device-plugin" {
		t.Errorf("playbook link %q", href)
	}
	if d.Find(`[data-testid="gaps-passed"] #gke-containerd2-gpu-toolkit`).Length() != 1 {
		t.Error("the passing check is not listed as passed")
	}
}

func TestGapsPageWithoutCluster(t *testing.T) {
	h := gapsHandler(t, false)
	d := gapsDoc(t, get(t, h, "/gaps"), http.StatusOK)
	if !strings.Contains(d.Find(`[data-testid="gaps-howto"]`).Text(), "casebook gaps --kubeconfig") || d.Find(`form[action="/gaps"]`).Length() != 1 {
		t.Fatalf("no instructions or upload form: %s", d.Text())
	}
	// The upload checks a file without any cluster.
	data, err := os.ReadFile("../gaps/testdata/planted.json")
	if err != nil {
		t.Fatal(err)
	}
	post := func(body []byte) *httptest.ResponseRecorder {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		fw, _ := mw.CreateFormFile("inventory", "inventory.json")
		fw.Write(body)
		mw.Close()
		req := httptest.NewRequest(http.MethodPost, "/gaps", &buf)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	d = gapsDoc(t, post(data), http.StatusOK)
	if got := d.Find(`[data-testid="gaps-summary"]`).Text(); !strings.Contains(got, "23 found") || !strings.Contains(got, "inventory.json") {
		t.Errorf("summary %q", got)
	}
	d = gapsDoc(t, post([]byte(`{"version":1,"kind":"Inventory","secrets":[]}`)), http.StatusUnprocessableEntity)
	if !strings.Contains(d.Find(`[data-testid="gaps-error"]`).Text(), `unknown field "secrets"`) {
		t.Errorf("error %q", d.Find(`[data-testid="gaps-error"]`).Text())
	}
}

func TestIncidentPageChecks(t *testing.T) {
	d := gapsDoc(t, get(t, gapsHandler(t, false), "/incidents/IL-0004"), http.StatusOK)
	var hrefs []string
	heading := d.Find("aside h2").FilterFunction(func(_ int, h *goquery.Selection) bool { return h.Text() == "Check my cluster" })
	heading.Next().Find("a").Each(func(_ int, a *goquery.Selection) { hrefs = append(hrefs, a.AttrOr("href", "")) })
	if strings.Join(hrefs, " ") != "/gaps#karpenter-node-repair-gpu-pools /gaps#webhook-ca-bundle-expiring /gaps#webhook-fail-intercepts-kube-system" {
		t.Fatalf("check links %v", hrefs)
	}
}

// TestGapsCatalogueWithoutCluster checks that /gaps without a cluster
// lists every check of the library with what it looks for, its incidents
// and its fix, and that every "check my cluster" link of every incident
// page lands on one of them.
func TestGapsCatalogueWithoutCluster(t *testing.T) {
	t.Parallel()
	h := gapsHandler(t, false)
	checks := shared.loader.Current().Checks.Checks
	if len(checks) < 30 {
		t.Fatalf("the library has %d checks", len(checks))
	}
	for _, lang := range []string{"en", "ko"} {
		d := gapsDoc(t, get(t, h, "/gaps?lang="+lang), http.StatusOK)
		if n := d.Find(`[data-testid="gaps-catalogue"] article.gap-check`).Length(); n != len(checks) {
			t.Errorf("%s: catalogue lists %d checks, the library has %d", lang, n, len(checks))
		}
		for _, chk := range checks {
			a := d.Find(`article#` + chk.ID)
			if a.Length() != 1 {
				t.Errorf("%s: no article #%s", lang, chk.ID)
				continue
			}
			looks := a.Find(`[data-testid="check-looks-for"]`).Text()
			if strings.Contains(looks, "{") || a.Find("var").Length() == 0 {
				t.Errorf("%s: %s looks for %q", lang, chk.ID, looks)
			}
			if a.Find(`[data-testid="gap-incident"]`).Length() != len(chk.Incidents) || strings.TrimSpace(a.Find(".fix").Text()) == "" {
				t.Errorf("%s: %s shows %d incidents (want %d) and fix %q", lang, chk.ID, a.Find(`[data-testid="gap-incident"]`).Length(),
					len(chk.Incidents), a.Find(".fix").Text())
			}
		}
	}
	d := gapsDoc(t, get(t, h, "/gaps"), http.StatusOK)
	linked := 0
	for _, chk := range checks {
		for _, id := range chk.Incidents {
			inc := page(t, h, "/incidents/"+id, http.StatusOK)
			inc.Find(`a[href^="/gaps#"]`).Each(func(_ int, s *goquery.Selection) {
				linked++
				anchor := strings.TrimPrefix(s.AttrOr("href", ""), "/gaps#")
				if d.Find("#"+anchor).Length() != 1 {
					t.Errorf("%s links to /gaps#%s, which /gaps does not have", id, anchor)
				}
			})
		}
	}
	if linked == 0 {
		t.Error("no incident page links to a check")
	}
}
