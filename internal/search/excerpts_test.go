package search

import (
	"html"
	"strings"
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

// TestWritePlain holds the excerpt writer to what it wrote before it wrote
// into the builder: html.EscapeString of the text, white space folded where
// the text has line breaks or tabs.
func TestWritePlain(t *testing.T) {
	reference := func(s string) string {
		if strings.ContainsAny(s, "\n\t") {
			lead, trail := strings.HasPrefix(s, " ") || strings.HasPrefix(s, "\n"), strings.HasSuffix(s, " ") || strings.HasSuffix(s, "\n")
			s = strings.Join(strings.Fields(s), " ")
			if lead {
				s = " " + s
			}
			if trail {
				s += " "
			}
		}
		return html.EscapeString(s)
	}
	for _, s := range []string{"", "plain words", `<a href="x">'q' & r</a>`, "kubectl get pods\n  -n kube-system\t| grep <none>",
		" \n ", "\tlead tab", "trail\n", "노드가 \u00a0 NotReady\n상태", "a  b", "&&&", "x\r\ny"} {
		var b strings.Builder
		writePlain(&b, s)
		if got, want := b.String(), reference(s); got != want {
			t.Errorf("writePlain(%q) = %q, want %q", s, got, want)
		}
	}
}
