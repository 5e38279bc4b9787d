package web_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"casebook/internal/live"
	"casebook/internal/snapshot"
	"casebook/internal/web"
)

// fileReader serves snapshots the cluster reader wrote against the real API
// server (testdata/snapshots), standing in for a cluster at the web layer,
// and fails with the reader's own errors; the reader itself is tested
// against the harness. It is configured, like the portal, for team-a
// only.
type fileReader struct{ dir string }

func (f fileReader) Collect(_ context.Context, ns, target string) (*snapshot.Snapshot, error) {
	switch {
	case ns != "team-a":
		return nil, snapshot.NamespaceNotAllowed(ns, []string{"team-a"})
	case target == "denied":
		return nil, fmt.Errorf("%w: could not get pod %s/%s; grant get pods in namespace %s", snapshot.ErrForbidden, ns, target, ns)
	case target == "unreachable":
		return nil, fmt.Errorf("%w: could not get pod %s/%s (unavailable): connection refused", snapshot.ErrUnavailable, ns, target)
	}
	fh, err := os.Open(filepath.Join(f.dir, target+".json"))
	if err != nil {
		return nil, fmt.Errorf("%w: pod %s/%s", snapshot.ErrNotFound, ns, target)
	}
	defer fh.Close()
	snaps, err := snapshot.Decode(fh)
	if err != nil {
		return nil, err
	}
	return &snaps[0], nil
}

func (f fileReader) Scan(_ context.Context, ns string) (*snapshot.Scan, error) {
	sc := &snapshot.Scan{Version: snapshot.Version, Namespace: ns}
	for _, name := range []string{"taint", "oom"} {
		s, err := f.Collect(context.Background(), ns, name)
		if err != nil {
			return nil, err
		}
		sc.Snapshots = append(sc.Snapshots, *s)
	}
	return sc, nil
}

// clusterHandler is the portal with live triage over fileReader; the
// service's own allow-list is left empty so the reader's refusal is the
// one tested.
func clusterHandler(t *testing.T) http.Handler {
	t.Helper()
	newHandler(t) // loads the shared library
	return web.New(web.Deps{Content: shared.loader, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Limiter: testLimiter(),
		Live: live.New(live.Options{Reader: fileReader{"testdata/snapshots"}})})
}

func getDoc(t *testing.T, h http.Handler, path string) (int, *goquery.Document) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	doc, err := goquery.NewDocumentFromReader(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	return rec.Code, doc
}

func TestLiveTriagePage(t *testing.T) {
	h := clusterHandler(t)
	status, doc := getDoc(t, h, "/triage/cluster?namespace=team-a&pod=taint")
	if status != 200 {
		t.Fatalf("status %d: %s", status, doc.Text())
	}
	if got := doc.Find(`[data-testid="route"]`).Text(); got != "pending/untolerated-taint" {
		t.Fatalf("route %q, want pending/untolerated-taint", got)
	}
	probe := doc.Find(`[data-testid="crumb"]`).FilterFunction(func(_ int, s *goquery.Selection) bool {
		return strings.Contains(s.Find(`[data-testid="inferred"]`).Text(), "read from cluster")
	})
	if probe.Length() == 0 {
		t.Error("no answer marked as read from the cluster")
	}
	ev := doc.Find(`[data-testid="outcome"] [data-testid="evidence"]`).Text()
	if !strings.Contains(ev, "untolerated taint") && !strings.Contains(ev, "NoSchedule") {
		t.Errorf("outcome evidence does not show the taint: %q", ev)
	}
	if href, _ := doc.Find(`[data-testid="snapshot-download"]`).Attr("href"); !strings.Contains(href, "snapshot.json") {
		t.Errorf("no snapshot download link: %q", href)
	}

	// Overriding an answer the cluster gave: the change link asks that
	// question instead of probing it.
	change, _ := probe.First().Find("a").Attr("href")
	if !strings.Contains(change, "ask=") {
		t.Fatalf("change link %q does not ask the question", change)
	}
	status, doc = getDoc(t, h, change)
	if status != 200 || doc.Find(`[data-testid="question"]`).Length() != 1 {
		t.Fatalf("override page: %d, question shown: %d", status, doc.Find(`[data-testid="question"]`).Length())
	}
	answer, _ := doc.Find(`[data-testid="question"] [data-testid="answer"]`).Last().Attr("href")
	status, doc = getDoc(t, h, answer)
	if status != 200 {
		t.Fatalf("after override: %d", status)
	}
	if doc.Find(`[data-testid="crumb"]`).FilterFunction(func(_ int, s *goquery.Selection) bool {
		return s.Find(`[data-testid="inferred"]`).Length() == 0
	}).Length() == 0 {
		t.Error("the overriding answer is not shown as the person's")
	}
}

func TestLiveTriageLimits(t *testing.T) {
	h := clusterHandler(t)
	for _, tc := range []struct {
		path string
		want int
	}{
		{"/triage/cluster?namespace=Bad_NS&pod=x", 400},
		{"/triage/cluster?namespace=team-a&pod=../../etc", 400},
		{"/triage/cluster?namespace=team-a&pod=secret%2Fdb", 400},
		{"/triage/cluster?namespace=team-a&pod=missing", 404},
		{"/triage/cluster/snapshot.json?namespace=team-a&pod=missing", 404},
		// The reader's refusals are 403, whatever their wording.
		{"/triage/cluster?namespace=kube-system&pod=coredns-0", 403},
		{"/triage/cluster?namespace=kube-system", 403},
		{"/triage/cluster/snapshot.json?namespace=kube-system&pod=coredns-0", 403},
		{"/triage/cluster?namespace=kube-system&pod=service%2Fkube-dns", 403},
		{"/triage/cluster?namespace=kube-system&pod=ingress%2Fshop", 403},
		{"/triage/cluster?namespace=kube-system&pod=hpa%2Fapi", 403},
		{"/triage/cluster/snapshot.json?namespace=kube-system&pod=pvc%2Fdata", 403},
		{"/triage/cluster/snapshot.json?namespace=kube-system&pod=cronjob%2Fnightly", 403},
		{"/triage/cluster?namespace=team-a&pod=networkpolicy%2Fdeny-all", 400},
		{"/triage/cluster?namespace=team-a&pod=configmap%2Fapp", 400},
		{"/triage/cluster?namespace=team-a&pod=denied", 200}, // degrades to questions
		{"/triage/cluster/snapshot.json?namespace=team-a&pod=denied", 403},
		{"/triage/cluster/snapshot.json?namespace=team-a&pod=unreachable", 503},
	} {
		if status, _ := getDoc(t, h, tc.path); status != tc.want {
			t.Errorf("%s: %d, want %d", tc.path, status, tc.want)
		}
	}
	// A dead cluster does not stop the triage: the page says so and asks.
	status, doc := getDoc(t, h, "/triage/cluster?namespace=team-a&pod=unreachable")
	if status != 200 || doc.Find(`[data-testid="question"]`).Length() != 1 || !strings.Contains(doc.Text(), "connection refused") {
		t.Errorf("unreachable cluster: %d, question %d", status, doc.Find(`[data-testid="question"]`).Length())
	}
	status, doc = getDoc(t, h, "/triage/cluster?namespace=team-a")
	if status != 200 || doc.Find(`[data-testid="scan"] tbody tr`).Length() != 2 {
		t.Errorf("scan: %d with %d rows", status, doc.Find(`[data-testid="scan"] tbody tr`).Length())
	}
	// Without a reader, live triage is a clear 404, not an error.
	plain := newHandler(t)
	if status, _ := getDoc(t, plain, "/triage/cluster?namespace=team-a&pod=taint"); status != 404 {
		t.Errorf("without a cluster: %d, want 404", status)
	}
}

func TestSnapshotUpload(t *testing.T) {
	h := newHandler(t)
	upload := func(data []byte) *httptest.ResponseRecorder {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		fw, _ := mw.CreateFormFile("snapshot", "s.json")
		fw.Write(data)
		mw.Close()
		req := httptest.NewRequest("POST", "/triage/snapshot", &body)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	good, err := os.ReadFile("testdata/snapshots/oom.json")
	if err != nil {
		t.Fatal(err)
	}
	rec := upload(good)
	doc, _ := goquery.NewDocumentFromReader(rec.Body)
	if rec.Code != 200 || doc.Find(`[data-testid="route"]`).Text() != "memory/oomkilled" {
		t.Errorf("upload of oom.json: %d route %q", rec.Code, doc.Find(`[data-testid="route"]`).Text())
	}
	for name, bad := range map[string][]byte{
		"not JSON":      []byte("hello"),
		"wrong shape":   []byte(`{"version": 1, "pod": 7}`),
		"wrong version": []byte(`{"version": 99}`),
		"empty":         nil,
	} {
		rec := upload(bad)
		if rec.Code != 400 {
			t.Errorf("%s: status %d, want 400", name, rec.Code)
		}
		if !strings.Contains(rec.Body.String(), "snapshot") {
			t.Errorf("%s: the 400 does not say what is wrong: %.200s", name, rec.Body.String())
		}
	}
}

// TestLiveTriageFillsCommands: the pod, namespace, node and container a
// live read found fill the outcome's commands and its playbook link, as a
// paste's do; the names are the cluster's, not the ones typed in the URL.
func TestLiveTriageFillsCommands(t *testing.T) {
	h := clusterHandler(t)
	for _, c := range []struct {
		pod  string
		want []string
	}{
		{"oom", []string{"embed-0", "-n team-a"}},
		{"taint", []string{"llm-0", "-n team-a"}},
	} {
		status, doc := getDoc(t, h, "/triage/cluster?namespace=team-a&pod="+c.pod)
		if status != 200 || doc.Find(`[data-testid="outcome"]`).Length() != 1 {
			t.Fatalf("%s: status %d, no outcome: %s", c.pod, status, doc.Text())
		}
		cmds := doc.Find(`[data-testid="outcome"] pre`).Text()
		for _, w := range c.want {
			if !strings.Contains(cmds, w) {
				t.Errorf("%s: commands do not carry %q: %q", c.pod, w, cmds)
			}
		}
		if strings.Contains(cmds, "<pod>") || strings.Contains(cmds, "<namespace>") {
			t.Errorf("%s: placeholders left: %q", c.pod, cmds)
		}
		href, _ := doc.Find(`[data-testid="outcome"] a[href^="/playbooks/"]`).First().Attr("href")
		if !strings.Contains(href, "pod="+c.want[0]) {
			t.Errorf("%s: playbook link %q does not carry the pod", c.pod, href)
		}
	}
}
