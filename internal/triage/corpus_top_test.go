package triage

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var updateTop = flag.Bool("update-top", false, "rewrite testdata/corpus-top.golden from the classifier as it is")

// TestCorpusTopUnchanged pins the first route of every corpus text
// (testdata/corpus-top.golden). A change that only removes false cards
// (configuration lines, the routine preemption tail) must leave each first
// route as it was; a change meant to move one rewrites the file with
// -update-top, and the diff shows which texts moved.
func TestCorpusTopUnchanged(t *testing.T) {
	c := loadReal(t)
	var b strings.Builder
	for _, ct := range readCorpus(t) {
		top := "-"
		if res := c.Classify(ct.Text); len(res.Routes) > 0 {
			top = res.Routes[0].Route
		}
		fmt.Fprintf(&b, "%s %s\n", ct.Name, top)
	}
	const golden = "testdata/corpus-top.golden"
	if *updateTop {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	wantTop := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(want)), "\n") {
		name, route, _ := strings.Cut(l, " ")
		wantTop[name] = route
	}
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		name, route, _ := strings.Cut(l, " ")
		if w, ok := wantTop[name]; ok && w != route {
			t.Errorf("%s: first route %s, was %s", name, route, w)
		}
	}
}
