package answer

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

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
	res, err := Paste(context.Background(), cat, ix, text)
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
	res, err := Paste(context.Background(), cat, ix, text)
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
	res, err := Paste(context.Background(), cat, failing{}, "Readiness probe failed: HTTP probe failed with statuscode: 503")
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
