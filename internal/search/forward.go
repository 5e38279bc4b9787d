package search

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// The forward file holds, for every document, the tokens of each prose
// field (bleveFields) in order: where each term of the document stands.
// Highlights and the phrase bonus read the positions of the query's terms
// in the few documents they show from here, one read per document, rather
// than through one bleve reader per query term and field advanced to each
// of those documents, which had become the largest use of bleve's postings
// (docs/performance.md, tenth pass). The file stays on disk and is read
// with ReadAt: at 10,000 incidents it is about as large as the library's
// text, too much to hold under the memory target.
//
// A document's block is, for each prose field: the number of its distinct
// terms and each one's term number (the memory field's ids), then the
// length in bytes of its token list and the list (appendForward). The file
// ends with the offset of every block and of the end, as little-endian
// uint64s, and fwdMagic.
const (
	fwdFileName = "casebook-forward.bin"
	fwdMagic    = "CBFW1\n"
)

var errFwdFile = errors.New("search: damaged forward file")

// appendForward appends toks, in order: their count, then per token its
// term's place in the document's list (kind), and its segment, position
// and start as differences from the token before (position and start
// counted from 0 when the segment changes), and its length.
func appendForward(b []byte, toks []pendingToken) []byte {
	b = binary.AppendUvarint(b, uint64(len(toks)))
	seg, pos, start := 0, 0, 0
	for i := range toks {
		t := &toks[i]
		b = binary.AppendUvarint(b, uint64(t.kind))
		b = binary.AppendVarint(b, int64(t.segment-seg))
		if t.segment != seg {
			seg, pos, start = t.segment, 0, 0
		}
		b = binary.AppendVarint(b, int64(t.pos-pos))
		b = binary.AppendVarint(b, int64(t.start-start))
		b = binary.AppendVarint(b, int64(t.end-t.start))
		pos, start = t.pos, t.start
	}
	return b
}

// fwdToken is one token read back.
type fwdToken struct {
	kind                     int
	segment, pos, start, end int
}

// fwdTokens walks a token list written by appendForward.
type fwdTokens struct {
	b               []byte
	left            int
	seg, pos, start int
	err             bool
	cur             fwdToken
}

func newFwdTokens(b []byte) fwdTokens {
	n, k := binary.Uvarint(b)
	if k <= 0 {
		return fwdTokens{err: true}
	}
	return fwdTokens{b: b[k:], left: int(n)}
}

func (it *fwdTokens) uvarint() int {
	v, k := binary.Uvarint(it.b)
	if k <= 0 {
		it.err = true
		return 0
	}
	it.b = it.b[k:]
	return int(v)
}

func (it *fwdTokens) varint() int {
	v, k := binary.Varint(it.b)
	if k <= 0 {
		it.err = true
		return 0
	}
	it.b = it.b[k:]
	return int(v)
}

// next reads the next token into it.cur; false at the end or on damage
// (it.err).
func (it *fwdTokens) next() bool {
	if it.left == 0 || it.err {
		return false
	}
	it.left--
	kind := it.uvarint()
	if d := it.varint(); d != 0 {
		it.seg += d
		it.pos, it.start = 0, 0
	}
	it.pos += it.varint()
	it.start += it.varint()
	end := it.start + it.varint()
	it.cur = fwdToken{kind: kind, segment: it.seg, pos: it.pos, start: it.start, end: end}
	return !it.err
}

// fwdWriter writes the forward file, a document at a time in rank order.
type fwdWriter struct {
	f    *os.File
	w    *bufio.Writer
	off  uint64
	offs []uint64
	buf  []byte
}

func newFwdWriter(dir string, docs int) (*fwdWriter, error) {
	f, err := os.Create(filepath.Join(dir, fwdFileName))
	if err != nil {
		return nil, fmt.Errorf("search: forward file: %w", err)
	}
	return &fwdWriter{f: f, w: bufio.NewWriterSize(f, 64<<10), offs: make([]uint64, 0, docs+1)}, nil
}

// add writes the next document: per prose field, its terms' numbers and
// its token list.
func (fw *fwdWriter) add(ids *[numProse][]uint32, tokens *[numProse][]byte) error {
	b := fw.buf[:0]
	for i := range bleveFields {
		b = binary.AppendUvarint(b, uint64(len(ids[i])))
		for _, id := range ids[i] {
			b = binary.AppendUvarint(b, uint64(id))
		}
		b = binary.AppendUvarint(b, uint64(len(tokens[i])))
		b = append(b, tokens[i]...)
	}
	fw.buf = b
	fw.offs = append(fw.offs, fw.off)
	fw.off += uint64(len(b))
	_, err := fw.w.Write(b)
	return err
}

// close writes the offsets and the magic. Like the fields file it is not
// synced: the manifest, written last and synced, checksums it, so a file
// cut short by a crash fails the next start's check and is rebuilt.
func (fw *fwdWriter) close() error {
	b := fw.buf[:0]
	for _, o := range append(fw.offs, fw.off) {
		b = binary.LittleEndian.AppendUint64(b, o)
	}
	b = append(b, fwdMagic...)
	_, err := fw.w.Write(b)
	if err == nil {
		err = fw.w.Flush()
	}
	if cerr := fw.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("search: write forward file: %w", err)
	}
	return nil
}

// abort closes the file of a build that failed (its folder is removed).
func (fw *fwdWriter) abort() { fw.f.Close() }

// forward is the forward file opened for reading.
type forward struct {
	f    *os.File
	offs []uint64 // docs+1 entries
}

func openForward(dir string, docs int) (*forward, error) {
	f, err := os.Open(filepath.Join(dir, fwdFileName))
	if err != nil {
		return nil, fmt.Errorf("search: forward file: %w", err)
	}
	fail := func(err error) (*forward, error) {
		f.Close()
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		return fail(err)
	}
	tail := int64(8*(docs+1) + len(fwdMagic))
	if st.Size() < tail {
		return fail(errFwdFile)
	}
	b := make([]byte, tail)
	if _, err := f.ReadAt(b, st.Size()-tail); err != nil {
		return fail(fmt.Errorf("search: forward file: %w", err))
	}
	if string(b[len(b)-len(fwdMagic):]) != fwdMagic {
		return fail(errFwdFile)
	}
	fw := &forward{f: f, offs: make([]uint64, docs+1)}
	for i := range fw.offs {
		fw.offs[i] = binary.LittleEndian.Uint64(b[8*i:])
		if i > 0 && fw.offs[i] < fw.offs[i-1] {
			return fail(errFwdFile)
		}
	}
	if fw.offs[0] != 0 || fw.offs[docs] != uint64(st.Size()-tail) {
		return fail(errFwdFile)
	}
	return fw, nil
}

// read returns the block of the document at rank, in buf's storage.
func (fw *forward) read(rank int, buf []byte) ([]byte, error) {
	n := int(fw.offs[rank+1] - fw.offs[rank])
	if cap(buf) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := fw.f.ReadAt(buf, int64(fw.offs[rank])); err != nil {
		return nil, fmt.Errorf("search: forward file: %w", err)
	}
	return buf, nil
}

func (fw *forward) close() error {
	if fw == nil {
		return nil
	}
	return fw.f.Close()
}

// fwdField is one prose field's part of a document's block.
type fwdField struct {
	ids    []byte // the terms' numbers, n uvarints
	n      int
	tokens []byte
}

// fwdFields splits a document's block into its prose fields.
func fwdFields(b []byte) (out [numProse]fwdField, err error) {
	for i := range out {
		n, k := binary.Uvarint(b)
		if k <= 0 {
			return out, errFwdFile
		}
		b = b[k:]
		at := 0
		for range n {
			_, k := binary.Uvarint(b[at:])
			if k <= 0 {
				return out, errFwdFile
			}
			at += k
		}
		out[i].ids, out[i].n, b = b[:at], int(n), b[at:]
		l, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < l {
			return out, errFwdFile
		}
		out[i].tokens, b = b[k:k+int(l)], b[k+int(l):]
	}
	if len(b) != 0 {
		return out, errFwdFile
	}
	return out, nil
}
