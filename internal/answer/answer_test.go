package answer

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"casebook/internal/i18n"
	"casebook/internal/library"
	"casebook/internal/search"
	"casebook/internal/triage"
)

// shipped loads the library that ships with Casebook, its triage catalogue
// and a real search index over it.
func shipped(t *testing.T) (*triage.Catalog, *search.Index, *library.Library) {
	t.Helper()
	fsys := os.DirFS("../../library")
	lib, _, err := library.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	cat, _ := triage.Load(fsys)
	ix, err := search.Open(t.TempDir(), lib)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ix.Close() })
	return cat, ix, lib
}

// TestPasteNoDeadEnd: a DNS failure in words the classifier does not know
// still ends in the library's DNS incidents.
func TestPasteNoDeadEnd(t *testing.T) {
	cat, ix, lib := shipped(t)
	text := "Warning: php_network_getaddresses: getaddrinfo for db-primary.payments failed: Try again\n" +
		"retries exhausted after 3 attempts; the resolver in the cluster (CoreDNS) answered nothing\n"
	res, err := Paste(context.Background(), cat, ix, text, i18n.EN)
	if err != nil {
		t.Fatal(err)
	}
	if res.Match == triage.MatchConfident {
		t.Fatalf("the paste is meant to be one the classifier is not sure of; got %+v", res.Routes)
	}
	if len(res.Related) == 0 {
		t.Fatal("no related entries")
	}
	dns := 0
	for _, r := range res.Related {
		if r.URL == "" || r.Title == "" || r.ID == "" || (r.Kind != "incident" && r.Kind != "playbook") {
			t.Errorf("incomplete related entry %+v", r)
		}
		if in, ok := lib.Incident(r.ID); ok && contains(in.Symptoms, "dns-resolution-failure") {
			dns++
		}
		if r.Kind == "playbook" && strings.HasPrefix(r.URL, "/playbooks/dns-resolution") {
			dns++
		}
	}
	if dns == 0 {
		t.Errorf("no DNS incident or playbook among %+v", res.Related)
	}
}

func TestPasteConfidentKeepsRoutes(t *testing.T) {
	cat, ix, _ := shipped(t)
	text := "  Warning  FailedScheduling  default-scheduler  0/3 nodes are available: 3 node(s) had untolerated taint {nvidia.com/gpu: present}."
	res, err := Paste(context.Background(), cat, ix, text, i18n.EN)
	if err != nil {
		t.Fatal(err)
	}
	if res.Match != triage.MatchConfident || res.Routes[0].Route != "pending/untolerated-taint" {
		t.Fatalf("got %s %+v", res.Match, res.Routes)
	}
	if len(res.Related) == 0 || len(res.Related) > MaxRelated {
		t.Errorf("related: %+v", res.Related)
	}
}

type failing struct{}

func (failing) Search(context.Context, search.Request) (*search.Result, error) {
	return nil, errors.New("index closed")
}

// A failed search still answers with the routes.
func TestPasteSearchFails(t *testing.T) {
	cat, _, _ := shipped(t)
	res, err := Paste(context.Background(), cat, failing{}, "Readiness probe failed: HTTP probe failed with statuscode: 503", i18n.EN)
	if err == nil {
		t.Error("want the search's error")
	}
	if len(res.Routes) == 0 || res.Routes[0].Route != "pod/probe-failure" || res.Related == nil {
		t.Errorf("got %+v", res)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestProseFallback: the paste box searches what a person typed the way
// the search box does, and reads output (an error line, a describe) by its
// evidence; the cases are in testdata/prose.txt.
func TestProseFallback(t *testing.T) {
	cat, _, _ := shipped(t)
	raw, err := os.ReadFile("testdata/prose.txt")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, block := range strings.Split(string(raw), "\n\n") {
		head, text, ok := strings.Cut(block, "\n")
		if i := strings.Index(head, "== "); !ok || i < 0 {
			if strings.HasPrefix(strings.TrimSpace(block), "#") {
				continue
			}
			t.Fatalf("testdata/prose.txt: block without a \"== \" line: %q", block)
		}
		want := strings.TrimPrefix(strings.TrimSpace(head[strings.Index(head, "== "):]), "== ") == "search"
		n++
		q := proseQuery(text, cat.Classify(text))
		if got := q != ""; got != want {
			t.Errorf("%q: searched as prose = %v, want %v (match %s)", text, got, want, cat.Classify(text).Match)
		}
		if want && q != strings.Join(strings.Fields(text), " ") {
			t.Errorf("%q: query %q is not the paste's words", text, q)
		}
	}
	if n < 8 {
		t.Fatalf("read %d cases", n)
	}
}

// TestPasteProseFindsPlaybook: Korean prose pasted into the box finds what
// the same words find in the search box, the GPU scheduling playbook.
func TestPasteProseFindsPlaybook(t *testing.T) {
	cat, ix, _ := shipped(t)
	for _, c := range []struct {
		text string
		lang i18n.Lang
	}{{"GPU 노드에 파드가 안 올라가요", i18n.KO}, {"GPU pods are not scheduled on the GPU nodes", i18n.EN}} {
		res, err := Paste(context.Background(), cat, ix, c.text, c.lang)
		if err != nil {
			t.Fatal(err)
		}
		if res.Searched != c.text || res.Found == nil {
			t.Fatalf("%q: not searched as prose: %+v", c.text, res)
		}
		box, err := ix.Search(context.Background(), search.Request{Query: c.text, PerPage: MaxRelated, Lang: c.lang})
		if err != nil {
			t.Fatal(err)
		}
		if len(box.Hits) == 0 || len(res.Found.Hits) == 0 || box.Hits[0].ID != res.Found.Hits[0].ID {
			t.Fatalf("%q: paste found %+v, the search box %+v", c.text, res.Found.Hits, box.Hits)
		}
		gpu := false
		for _, r := range res.Related {
			gpu = gpu || strings.HasPrefix(r.URL, "/playbooks/gpu-workload-not-scheduled")
		}
		if !gpu {
			t.Errorf("%q: the GPU scheduling playbook is not among %+v", c.text, res.Related)
		}
	}
}
