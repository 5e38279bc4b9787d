package library

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/golang/snappy"
)

// Body is the text of a list of sections — each one's Markdown, HTML and
// plain text — framed and compressed with snappy. A parsed incident keeps
// its sections' ids, titles, commands and anchors as they are (triage, the
// gap checks and the lint read them) and their three texts in a Body: the
// texts are most of a parsed library's memory (about 50 MB at 10,000
// incidents, English and Korean) and are read only when the SQLite read
// model is built and when search shows an excerpt, so the library holds
// them at about a third of their size. A Body is never changed once made;
// FullSections decodes a copy, so readers need no lock. Its first four
// bytes are a CRC-32C of the rest, which ReadSnapshot checks for every body
// it restores, so a damaged snapshot is parsed again instead of served.
type Body []byte

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// pack moves the Markdown, HTML and plain text of secs into a Body and
// clears them in secs. A change to what it writes changes bodyLayout, so
// snapshots of the old layout are parsed again rather than misread.
func pack(secs []Section) Body {
	if len(secs) == 0 {
		return nil
	}
	n := 0
	for _, s := range secs {
		n += len(s.Markdown) + len(s.HTML) + len(s.Text) + 3*binary.MaxVarintLen32
	}
	raw := make([]byte, 0, n)
	for i := range secs {
		s := &secs[i]
		for _, t := range []string{s.Markdown, s.HTML, s.Text} {
			raw = binary.AppendUvarint(raw, uint64(len(t)))
			raw = append(raw, t...)
		}
		s.Markdown, s.HTML, s.Text = "", "", ""
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

// fill returns a copy of secs with their texts from b.
func (b Body) fill(secs []Section) ([]Section, error) {
	if b == nil {
		return secs, nil
	}
	if err := b.check(); err != nil {
		return nil, err
	}
	raw, err := snappy.Decode(nil, b[4:])
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errBody, err)
	}
	out := make([]Section, len(secs))
	copy(out, secs)
	for i := range out {
		for _, t := range []*string{&out[i].Markdown, &out[i].HTML, &out[i].Text} {
			n, k := binary.Uvarint(raw)
			if k <= 0 || uint64(len(raw)-k) < n {
				return nil, errBody
			}
			*t, raw = string(raw[k:k+int(n)]), raw[k+int(n):]
		}
	}
	if len(raw) != 0 {
		return nil, errBody
	}
	return out, nil
}

// FullSections returns the incident's sections with their Markdown, HTML
// and plain text. An incident read from the store has them already.
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

// fillOrBare decodes a Body made by pack in this process or checked by
// ReadSnapshot, which cannot fail short of corrupt memory; if it ever did,
// the sections come back without their texts rather than taking the
// server down.
func fillOrBare(b Body, secs []Section) []Section {
	out, err := b.fill(secs)
	if err != nil {
		return secs
	}
	return out
}
