package library

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"testing"

	"github.com/golang/snappy"

	"github.com/google/go-cmp/cmp"
)

// A parsed incident holds its sections in its Body and gives them back
// whole: ids, titles, commands, anchors, lines and the Markdown, HTML and
// plain text, English and Korean, in order, including empty texts and
// multi-byte ones.
func TestBodyKeepsEverySection(t *testing.T) {
	secs := []Section{
		{ID: "a", Title: "A", Markdown: "- one\n- **two**", HTML: "<ul>\n<li>one</li>\n<li><strong>two</strong></li>\n</ul>\n", Text: "one two",
			Commands: []string{"kubectl get pods", "nvidia-smi -q"}, Anchors: []Heading{{ID: "a-1", Title: "First", Level: 3}, {ID: "a-1-1", Title: "Deeper", Level: 4}}, Line: 12},
		{ID: "b", Title: "B", Line: 2_000_000},
		{ID: "c", Title: "대응", Markdown: "드라이버를 되돌렸다.", HTML: "<p>드라이버를 되돌렸다.</p>\n", Text: "드라이버를 되돌렸다.", Line: 4021},
	}
	want := append([]Section(nil), secs...)
	b := pack(secs)
	got, err := b.sections()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sections (-want +got):\n%s", diff)
	}
	got[0].Commands[0] = "changed"
	if again, _ := b.sections(); again[0].Commands[0] != "kubectl get pods" {
		t.Error("a reader's change reached the body: sections must be a copy")
	}
	in := &Incident{Body: b}
	if diff := cmp.Diff(want, in.FullSections()); diff != "" {
		t.Errorf("FullSections (-want +got):\n%s", diff)
	}
	// A store-read incident has no Body: its own sections.
	if got := (&Incident{Sections: want[:1]}).FullSections(); len(got) != 1 || got[0].HTML != want[0].HTML {
		t.Errorf("FullSections without a body = %+v", got)
	}
}

// A damaged or truncated body is an error, never garbage or a panic, and
// FullSections then shows no sections.
func TestBodyDamaged(t *testing.T) {
	b := pack([]Section{{ID: "a", Title: "A", Markdown: "text", Commands: []string{"x"}}})
	bad := append(Body(nil), b...)
	bad[len(bad)-1] ^= 1
	if _, err := bad.sections(); !errors.Is(err, errBody) {
		t.Errorf("a damaged body: err = %v, want errBody", err)
	}
	if got := (&Incident{Body: bad}).FullSections(); got != nil {
		t.Errorf("FullSections of a damaged body = %+v, want none", got)
	}
	if _, err := Body(b[:3]).sections(); !errors.Is(err, errBody) {
		t.Errorf("a body shorter than its checksum: err = %v, want errBody", err)
	}
}

// FuzzBodySections feeds bodies with a valid checksum over arbitrary
// bytes: decoding returns an error or sections, never panics or allocates
// without bound.
func FuzzBodySections(f *testing.F) {
	f.Add([]byte{1, 1, 'a', 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, raw []byte) {
		b := pack([]Section{{ID: "x"}})
		z := snappyEncode(raw)
		b = append(b[:4:4], z...)
		setChecksum(b)
		b.sections()
	})
}

func snappyEncode(raw []byte) []byte { return snappy.Encode(nil, raw) }

func setChecksum(b Body) { binary.LittleEndian.PutUint32(b, crc32.Checksum(b[4:], castagnoli)) }
