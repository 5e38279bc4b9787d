package library

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A parsed incident holds its section texts in its Body and gives them
// back whole: Markdown, HTML and plain text, English and Korean, in order,
// including empty texts and multi-byte ones.
func TestBodyKeepsEveryText(t *testing.T) {
	secs := []Section{
		{ID: "a", Title: "A", Markdown: "- one\n- **two**", HTML: "<ul>\n<li>one</li>\n<li><strong>two</strong></li>\n</ul>\n", Text: "one two", Commands: []string{"kubectl get pods"}},
		{ID: "b", Title: "B"},
		{ID: "c", Title: "대응", Markdown: "드라이버를 되돌렸다.", HTML: "<p>드라이버를 되돌렸다.</p>\n", Text: "드라이버를 되돌렸다."},
	}
	want := append([]Section(nil), secs...)
	b := pack(secs)
	for _, s := range secs {
		if s.Markdown != "" || s.HTML != "" || s.Text != "" {
			t.Fatalf("pack left section %s's texts in place", s.ID)
		}
	}
	if secs[0].Commands == nil || secs[2].Title != "대응" {
		t.Fatal("pack cleared more than the texts")
	}
	got, err := b.fill(secs)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fill (-want +got):\n%s", diff)
	}
	if secs[0].Markdown != "" {
		t.Error("fill changed the sections it was given instead of a copy")
	}
	// Fewer sections than the body holds, or a damaged body: an error,
	// and FullSections gives the bare sections rather than garbage.
	if _, err := b.fill(secs[:2]); !errors.Is(err, errBody) {
		t.Errorf("fill with a section missing: err = %v, want errBody", err)
	}
	bad := append(Body(nil), b...)
	bad[len(bad)-1] ^= 1
	if _, err := bad.fill(secs); !errors.Is(err, errBody) {
		t.Errorf("fill of a damaged body: err = %v, want errBody", err)
	}
	in := &Incident{Sections: secs, Body: bad}
	if got := in.FullSections(); len(got) != 3 || got[0].Markdown != "" {
		t.Errorf("FullSections of a damaged body = %+v, want the bare sections", got)
	}
}
