package library

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"

	"github.com/golang/snappy"
)

// Body is a list of sections — each one's id, title, commands, anchors
// and line, and its Markdown, HTML and plain text — framed and compressed
// with snappy. A parsed incident keeps its sections only in a Body (its
// Sections field is nil). As Go values they were most of a parsed
// library's memory at 10,000 incidents: 62.5 MB with their texts, and
// still about 14 MB of Section structs (mostly empty text fields) once the
// texts alone were packed; packing the structs too took the live heap
// after a cold load from 78.4 to 68.0 MB. Sections are read only when the
// SQLite read model is built, when search builds or shows a document and
// when an export writes them. A Body is never changed once made; FullSections
// decodes a copy, so readers need no lock. Its first four bytes are a
// CRC-32C of the rest, which ReadSnapshot checks for every body it
// restores, so a damaged snapshot is parsed again instead of served.
type Body []byte

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// pack writes secs into a Body. A change to what it writes changes
// bodyLayout, so snapshots of the old layout are parsed again rather than
// misread.
func pack(secs []Section) Body {
	if len(secs) == 0 {
		return nil
	}
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
	b := make(Body, 4+len(z))
	binary.LittleEndian.PutUint32(b, crc32.Checksum(z, castagnoli))
	copy(b[4:], z)
	return b
}

// check reports whether b is whole: its checksum matches.
func (b Body) check() error {
	if b == nil {
		return nil
	}
	if len(b) < 4 || binary.LittleEndian.Uint32(b) != crc32.Checksum(b[4:], castagnoli) {
		return errBody
	}
	return nil
}

// errBody says a Body does not decode into its sections: a snapshot
// written by another build, or damaged.
var errBody = errors.New("library: section body does not decode")

// sections decodes the sections b holds.
func (b Body) sections() ([]Section, error) {
	if err := b.check(); err != nil {
		return nil, err
	}
	raw, err := snappy.Decode(nil, b[4:])
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errBody, err)
	}
	d := bodyDecoder{raw: raw}
	out := make([]Section, d.count())
	for i := range out {
		s := &out[i]
		for _, t := range []*string{&s.ID, &s.Title, &s.Markdown, &s.HTML, &s.Text} {
			*t = d.str()
		}
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
	out.Sections, out.Body = in.FullSections(), nil
	if in.Ko != nil {
		ko := *in.Ko
		ko.Sections, ko.Body = in.Ko.FullSections(), nil
		out.Ko = &ko
	}
	return &out
}

// fillOrBare returns secs when there is no Body, else the sections b
// holds. A Body was made by pack in this process or checked by
// ReadSnapshot, so decoding cannot fail short of corrupt memory; if it ever
// did, the incident shows no sections rather than taking the server down.
func fillOrBare(b Body, secs []Section) []Section {
	if b == nil {
		return secs
	}
	out, err := b.sections()
	if err != nil {
		return nil
	}
	return out
}
