package triage

import (
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRequiredAlternatives(t *testing.T) {
	for _, tc := range []struct {
		re   string
		want []string
	}{
		{`were unschedulable|^NodeUnschedulable$`, []string{"were unschedulable", "nodeunschedulable"}},
		{`(vector_search|pinecone)\S*.{0,40}(timeout|slow)`, []string{"vector_search", "pinecone"}},
		{`foo|\d+`, nil},
		{`a*`, nil},
	} {
		t.Run(tc.re, func(t *testing.T) {
			re, err := syntax.Parse("(?i)"+tc.re, syntax.Perl)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, requiredAlternatives(re.Simplify())); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestSignalAlternatives checks, like TestSignalAnchors, that every line of
// the labelled pastes a signal's regex matches holds one of its literals.
func TestSignalAlternatives(t *testing.T) {
	c := loadReal(t)
	with := 0
	for _, s := range c.Signals {
		if s.anyOf != nil {
			with++
		}
	}
	if with == 0 {
		t.Fatal("no signal has alternative literals; the prefilter is not in use")
	}
	for _, p := range readPastes(t) {
		for _, line := range strings.Split(p.text, "\n") {
			lower := strings.ToLower(line)
			for _, s := range c.Signals {
				if s.re != nil && s.anyOf != nil && s.re.MatchString(line) && !containsAny(lower, s.anyOf) {
					t.Errorf("signal %s matches %q but none of %q is in it", s.ID, line, s.anyOf)
				}
			}
		}
	}
}
