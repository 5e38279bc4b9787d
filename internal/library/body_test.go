package library

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"sync"
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
	// Search's decoding: everything but the Markdown and HTML.
	texts := in.SectionTexts()
	for i := range want {
		w := want[i]
		w.Markdown, w.HTML = "", ""
		if diff := cmp.Diff(w, texts[i]); diff != "" {
			t.Errorf("SectionTexts[%d] (-want +got):\n%s", i, diff)
		}
	}
	// Moved to a file (as once the snapshot is written), the same
	// sections come back, read from there; the memory is let go.
	f := bodiesFile(t, []byte("before"), packBytes(want))
	b.moveTo(f, int64(len("before")))
	if b.c.mem.Load() != nil {
		t.Error("a moved body still holds its bytes in memory")
	}
	if diff := cmp.Diff(want, in.FullSections()); diff != "" {
		t.Errorf("FullSections read from the file (-want +got):\n%s", diff)
	}
	// A store-read incident has no Body: its own sections.
	if got := (&Incident{Sections: want[:1]}).FullSections(); len(got) != 1 || got[0].HTML != want[0].HTML {
		t.Errorf("FullSections without a body = %+v", got)
	}
}

// A damaged or truncated body is an error, never garbage or a panic, and
// FullSections then shows no sections.
func TestBodyDamaged(t *testing.T) {
	b := packBytes([]Section{{ID: "a", Title: "A", Markdown: "text", Commands: []string{"x"}}})
	bad := bytes.Clone(b)
	bad[len(bad)-1] ^= 1
	if _, err := memBody(bad).sections(); !errors.Is(err, errBody) {
		t.Errorf("a damaged body: err = %v, want errBody", err)
	}
	if got := (&Incident{Body: memBody(bad)}).FullSections(); got != nil {
		t.Errorf("FullSections of a damaged body = %+v, want none", got)
	}
	if _, err := memBody(b[:3]).sections(); !errors.Is(err, errBody) {
		t.Errorf("a body shorter than its checksum: err = %v, want errBody", err)
	}
	// In a file: damaged there, or the file cut short while served.
	f := bodiesFile(t, bad)
	if got := (&Incident{Body: fileBody(f, 0, len(bad))}).FullSections(); got != nil {
		t.Errorf("FullSections of a damaged body in its file = %+v, want none", got)
	}
	f = bodiesFile(t, b)
	if err := os.Truncate(f.Name(), int64(len(b)/2)); err != nil {
		t.Fatal(err)
	}
	if _, err := fileBody(f, 0, len(b)).sections(); !errors.Is(err, errBody) {
		t.Errorf("a body whose file was cut short: err = %v, want errBody", err)
	}
}

// Readers of a body while it moves to its file (the snapshot is written
// in the background, after the library is served) always get its
// sections; go test -race checks the move is safe.
func TestBodyMovesUnderReaders(t *testing.T) {
	want := []Section{{ID: "a", Title: "A", Markdown: "text", HTML: "<p>text</p>", Text: "text"}}
	p := packBytes(want)
	f := bodiesFile(t, p)
	bodies := make([]Body, 200)
	for i := range bodies {
		bodies[i] = memBody(bytes.Clone(p))
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, b := range bodies {
				if got, err := b.sections(); err != nil || len(got) != 1 || got[0].HTML != want[0].HTML {
					t.Errorf("sections during the move = %+v, %v", got, err)
					return
				}
			}
		}()
	}
	for _, b := range bodies {
		b.moveTo(f, 0)
	}
	wg.Wait()
}

// bodiesFile writes parts one after the other to a file and opens it for
// reading.
func bodiesFile(t *testing.T, parts ...[]byte) *os.File {
	t.Helper()
	name := filepath.Join(t.TempDir(), "bodies")
	if err := os.WriteFile(name, bytes.Join(parts, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// FuzzBodySections feeds bodies with a valid checksum over arbitrary
// bytes: decoding returns an error or sections, never panics or allocates
// without bound.
func FuzzBodySections(f *testing.F) {
	f.Add([]byte{1, 1, 'a', 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, raw []byte) {
		b := append(make([]byte, 4), snappyEncode(raw)...)
		setChecksum(b)
		unpack(b, true)
		unpack(b, false)
	})
}

func snappyEncode(raw []byte) []byte { return snappy.Encode(nil, raw) }

func setChecksum(b []byte) { binary.LittleEndian.PutUint32(b, crc32.Checksum(b[4:], castagnoli)) }
