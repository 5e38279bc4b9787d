package library

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/golang/snappy"
)

// Body is a list of sections — each one's id, title, commands, anchors
// and line, and its Markdown, HTML and plain text — framed and compressed
// with snappy. A parsed incident keeps its sections only in a Body (its
// Sections field is nil). As Go values they were most of a parsed
// library's memory at 10,000 incidents: 62.5 MB with their texts, and
// still about 14 MB of Section structs (mostly empty text fields) once the
// texts alone were packed; packing the structs too took the live heap
// after a cold load from 78.4 to 68.0 MB.
//
// Packed, they were still 17–26 MB of a served library's heap, and the
// collector lets the heap grow to twice what is live, for texts read only
// when the SQLite read model is built, when search builds or shows a
// document and when an export writes them. So once the library's snapshot
// is written, each Body moves from memory to its place in the snapshot's
// bodies file, and a warm start restores it as that place: its texts are
// read back (a pread of a few KB, in the page cache) when asked for.
//
// A Body is never changed once made, except for that move, which readers
// do not notice: FullSections decodes a copy, so readers need no lock. Its
// packed bytes start with a CRC-32C of the rest, checked on every read, so
// a damaged file shows an incident without sections instead of wrong text,
// and ReadSnapshot checks every body it restores, so a damaged snapshot is
// parsed again instead of served.
type Body struct {
	c *bodyCell // nil: no sections
}

// bodyCell is where a Body's bytes are: in memory until they move to a
// file. A move stores loc before it clears mem, so a reader that finds mem
// empty finds loc set. Two moves of one cell (a body shared by two
// libraries, each saving its snapshot) leave it at either place, which
// hold the same bytes.
type bodyCell struct {
	mem atomic.Pointer[[]byte]
	loc atomic.Pointer[bodyLoc]
}

// bodyLoc is a body's place in a bodies file. The open file is shared by
// the bodies it holds and closed by the runtime when the last of them is
// gone; deleting it (the data folder is safe to delete) leaves it readable
// while open.
type bodyLoc struct {
	f   *os.File
	off int64
	n   int
}

func memBody(b []byte) Body {
	c := &bodyCell{}
	c.mem.Store(&b)
	return Body{c: c}
}

func fileBody(f *os.File, off int64, n int) Body {
	c := &bodyCell{}
	c.loc.Store(&bodyLoc{f: f, off: off, n: n})
	return Body{c: c}
}

// GobEncode and GobDecode keep a Body out of a snapshot's gob stream:
// WriteBodies writes the bytes to the bodies file and their place after
// the incident (see snapshotSpans).
func (Body) GobEncode() ([]byte, error) { return []byte{}, nil }

// GobDecode leaves the Body empty; see GobEncode.
func (*Body) GobDecode([]byte) error { return nil }

// bytes returns the packed bytes, read from the file when they moved
// there.
func (b Body) bytes() ([]byte, error) {
	if b.c == nil {
		return nil, nil
	}
	var buf []byte
	return b.read(&buf)
}

// read returns the packed bytes: those in memory, or those in the file
// read into *buf, grown as needed (and stored back, so a pooled buffer
// keeps its growth).
func (b Body) read(buf *[]byte) ([]byte, error) {
	if m := b.c.mem.Load(); m != nil {
		return *m, nil
	}
	l := b.c.loc.Load()
	*buf = slices.Grow((*buf)[:0], l.n)[:l.n]
	if _, err := l.f.ReadAt(*buf, l.off); err != nil {
		return nil, fmt.Errorf("%w: %v", errBody, err)
	}
	return *buf, nil
}

// moveTo records that b's bytes are at off in f and lets go of them in
// memory.
func (b Body) moveTo(f *os.File, off int64) {
	if b.c == nil {
		return
	}
	m := b.c.mem.Load()
	if m == nil {
		return
	}
	b.c.loc.Store(&bodyLoc{f: f, off: off, n: len(*m)})
	b.c.mem.Store(nil)
}

// Equal reports whether b and o hold the same packed sections, wherever
// each is kept (go-cmp uses it to compare incidents).
func (b Body) Equal(o Body) bool {
	pb, err := b.bytes()
	if err != nil {
		return false
	}
	po, err := o.bytes()
	return err == nil && bytes.Equal(pb, po)
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// pack writes secs into a Body. A change to what it writes changes
// bodyLayout, so snapshots of the old layout are parsed again rather than
// misread.
func pack(secs []Section) Body {
	if len(secs) == 0 {
		return Body{}
	}
	return memBody(packBytes(secs))
}

func packBytes(secs []Section) []byte {
	n := binary.MaxVarintLen32
	for _, s := range secs {
		n += len(s.ID) + len(s.Title) + len(s.Markdown) + len(s.HTML) + len(s.Text) + 8*binary.MaxVarintLen32
		for _, c := range s.Commands {
			n += len(c) + binary.MaxVarintLen32
		}
		for _, a := range s.Anchors {
			n += len(a.ID) + len(a.Title) + 3*binary.MaxVarintLen32
		}
	}
	raw := make([]byte, 0, n)
	str := func(t string) {
		raw = binary.AppendUvarint(raw, uint64(len(t)))
		raw = append(raw, t...)
	}
	raw = binary.AppendUvarint(raw, uint64(len(secs)))
	for _, s := range secs {
		for _, t := range []string{s.ID, s.Title, s.Markdown, s.HTML, s.Text} {
			str(t)
		}
		raw = binary.AppendUvarint(raw, uint64(len(s.Commands)))
		for _, c := range s.Commands {
			str(c)
		}
		raw = binary.AppendUvarint(raw, uint64(len(s.Anchors)))
		for _, a := range s.Anchors {
			str(a.ID)
			str(a.Title)
			raw = binary.AppendUvarint(raw, uint64(a.Level))
		}
		raw = binary.AppendUvarint(raw, uint64(s.Line))
	}
	z := snappy.Encode(nil, raw)
	b := make([]byte, 4+len(z))
	binary.LittleEndian.PutUint32(b, crc32.Checksum(z, castagnoli))
	copy(b[4:], z)
	return b
}

// checkPacked reports whether packed bytes are whole: their checksum
// matches.
func checkPacked(b []byte) error {
	if len(b) < 4 || binary.LittleEndian.Uint32(b) != crc32.Checksum(b[4:], castagnoli) {
		return errBody
	}
	return nil
}

// errBody says a Body does not decode into its sections: a snapshot
// written by another build, or damaged.
var errBody = errors.New("library: section body does not decode")

// sections decodes the sections b holds.
func (b Body) sections() ([]Section, error) { return b.decode(true) }

// decode decodes the sections b holds; without full, their Markdown and
// HTML are left empty.
func (b Body) decode(full bool) ([]Section, error) {
	if b.c == nil {
		return nil, nil
	}
	// A body moved to the file is read into a scratch buffer, which the
	// decoded strings do not share.
	bp := scratch.Get().(*[]byte)
	defer putScratch(bp)
	p, err := b.read(bp)
	if err != nil {
		return nil, err
	}
	return unpack(p, full)
}

// scratch holds the buffers bodies are read and decompressed into: every
// string decode keeps is a copy, so the buffers are reused. Search builds
// a document from a body for each hit it shows that is not in its cache,
// and allocating both buffers afresh was a sixth of an uncached
// /api/search's garbage at 10,000 incidents.
var scratch = sync.Pool{New: func() any { return new([]byte) }}

// maxScratch is the largest buffer scratch keeps.
const maxScratch = 1 << 20

func putScratch(bp *[]byte) {
	if cap(*bp) <= maxScratch {
		scratch.Put(bp)
	}
}

// unpack decodes what packBytes wrote; with full false it skips each
// section's Markdown and HTML, which search does not read: they are most
// of a body's bytes, and search builds documents from bodies for every
// hit it shows that is not in its cache.
func unpack(b []byte, full bool) ([]Section, error) {
	if err := checkPacked(b); err != nil {
		return nil, err
	}
	n, err := snappy.DecodedLen(b[4:])
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errBody, err)
	}
	bp := scratch.Get().(*[]byte)
	defer putScratch(bp)
	*bp = slices.Grow((*bp)[:0], n)
	raw, err := snappy.Decode((*bp)[:n], b[4:])
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errBody, err)
	}
	d := bodyDecoder{raw: raw}
	out := make([]Section, d.count())
	for i := range out {
		s := &out[i]
		s.ID, s.Title = d.str(), d.str()
		if full {
			s.Markdown, s.HTML = d.str(), d.str()
		} else {
			d.skip()
			d.skip()
		}
		s.Text = d.str()
		if n := d.count(); n > 0 {
			s.Commands = make([]string, n)
			for j := range s.Commands {
				s.Commands[j] = d.str()
			}
		}
		if n := d.count(); n > 0 {
			s.Anchors = make([]Heading, n)
			for j := range s.Anchors {
				s.Anchors[j] = Heading{ID: d.str(), Title: d.str(), Level: d.num()}
			}
		}
		s.Line = d.num()
	}
	if d.bad || len(d.raw) != 0 {
		return nil, errBody
	}
	return out, nil
}

// bodyDecoder reads what pack wrote; bad records the first malformed or
// truncated field, after which every read returns zero.
type bodyDecoder struct {
	raw []byte
	bad bool
}

func (d *bodyDecoder) uvarint() uint64 {
	if d.bad {
		return 0
	}
	n, k := binary.Uvarint(d.raw)
	if k <= 0 {
		d.bad = true
		return 0
	}
	d.raw = d.raw[k:]
	return n
}

// count reads how many items follow, refusing more than the bytes left
// (each item takes at least one byte), so a damaged body cannot ask for a
// huge allocation.
func (d *bodyDecoder) count() int {
	n := d.uvarint()
	if n > uint64(len(d.raw)) {
		d.bad = true
		return 0
	}
	return int(n)
}

// num reads a number that sizes nothing (a line, a heading level).
func (d *bodyDecoder) num() int {
	n := d.uvarint()
	if n > math.MaxInt32 {
		d.bad = true
		return 0
	}
	return int(n)
}

// skip passes over a string without making it.
func (d *bodyDecoder) skip() {
	n := d.uvarint()
	if d.bad || n > uint64(len(d.raw)) {
		d.bad = true
		return
	}
	d.raw = d.raw[n:]
}

func (d *bodyDecoder) str() string {
	n := d.uvarint()
	if d.bad || n > uint64(len(d.raw)) {
		d.bad = true
		return ""
	}
	t := string(d.raw[:n])
	d.raw = d.raw[n:]
	return t
}

// FullSections returns the incident's sections with their Markdown, HTML
// and plain text: decoded from its Body when it was parsed, its Sections
// when it was read from the store.
func (in *Incident) FullSections() []Section { return fillOrBare(in.Body, in.Sections) }

// SectionTexts returns the incident's sections with their ids, titles,
// commands, anchors, lines and plain text, but without their Markdown and
// HTML: what search indexes and highlights, decoded for less.
func (in *Incident) SectionTexts() []Section { return textsOrBare(in.Body, in.Sections) }

// SectionTexts returns the Korean sections as Incident.SectionTexts does.
func (ko *IncidentKo) SectionTexts() []Section {
	if ko == nil {
		return nil
	}
	return textsOrBare(ko.Body, ko.Sections)
}

// FullSections returns the Korean sections with their texts.
func (ko *IncidentKo) FullSections() []Section {
	if ko == nil {
		return nil
	}
	return fillOrBare(ko.Body, ko.Sections)
}

// WithBodies returns a copy of in whose sections (English and Korean) hold
// their texts, for what writes them out: the SQLite read model, exports.
func (in *Incident) WithBodies() *Incident {
	out := *in
	out.Sections, out.Body = in.FullSections(), Body{}
	if in.Ko != nil {
		ko := *in.Ko
		ko.Sections, ko.Body = in.Ko.FullSections(), Body{}
		out.Ko = &ko
	}
	return &out
}

// fillOrBare returns secs when there is no Body, else the sections b
// holds. A Body was made by pack in this process or checked by
// ReadSnapshot, so decoding fails only when its file was damaged or cut
// short while served; the incident then shows no sections rather than
// taking the server down or showing wrong text.
func fillOrBare(b Body, secs []Section) []Section {
	if b.c == nil {
		return secs
	}
	out, err := b.sections()
	if err != nil {
		return nil
	}
	return out
}

// textsOrBare is fillOrBare without the Markdown and HTML of a Body.
func textsOrBare(b Body, secs []Section) []Section {
	if b.c == nil {
		return secs
	}
	out, err := b.decode(false)
	if err != nil {
		return nil
	}
	return out
}
