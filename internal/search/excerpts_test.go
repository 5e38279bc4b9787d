package search

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExcerptsOrder(t *testing.T) {
	h := Hit{Fragments: map[string][]string{
		"title":    {"t"},
		"terms":    {"Symptom: <mark>x</mark>"},
		"summary":  {"s"},
		"signals":  {"g1", "g2"},
		"#trigger": {"b2"},
		"#symptom": {"b1"},
	}}
	got := h.Excerpts(5)
	want := []Excerpt{{"symptom", "b1"}, {"trigger", "b2"}, {"signals", "g1"}, {"signals", "g2"}, {"summary", "s"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if n := len(h.Excerpts(10)); n != 7 {
		t.Errorf("all excerpts: %d, want 7", n)
	}
}
