package search

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// The forward file holds, for every document, where each term of each
// prose field (proseFields) stands. Highlights and the phrase bonus read
// it for the few documents they show, one read per document (the last
// placedDocs blocks are kept). The file stays on disk and is read with
// ReadAt: it grows with the library, too much to hold under the memory
// target.
//
// A document's block is, for each prose field: the number of its distinct
// terms and the lengths in bytes of its header and its places; the header,
// per term its number (the memory field's ids) and the length of its
// places; then the places, term after term (appendPlaces). Reading a
// block skips to its field, walks the header and decodes the places of
// the query's terms only. The file ends with the offset of every block and of
// the end, as little-endian uint64s, and fwdMagic.
const (
	fwdFileName = "casebook-forward.bin"
	fwdMagic    = "CBFW3\n"
)

var errFwdFile = errors.New("search: damaged forward file")

// fwdPart is one prose field of a document, ready for the forward file:
// the places of each of its terms, term after term in the order of the
// field's counts (kind), and the length of each term's part; and the same
// places as the positions file holds them (appendPosition), with theirs.
type fwdPart struct {
	lens    []uint32
	places  []byte
	posLens []uint32
	pos     []byte
}

// appendPlaces encodes the places of one term in one document, in order:
// per place its segment, position and start as differences from the place
// before (position and start counted from 0 when the segment changes), and
// its length.
func appendPlaces(b []byte, seg, pos, start, end int, prev *[3]int) []byte {
	b = binary.AppendVarint(b, int64(seg-prev[0]))
	if seg != prev[0] {
		*prev = [3]int{seg, 0, 0}
	}
	b = binary.AppendVarint(b, int64(pos-prev[1]))
	b = binary.AppendVarint(b, int64(start-prev[2]))
	b = binary.AppendVarint(b, int64(end-start))
	prev[1], prev[2] = pos, start
	return b
}

// forwardPart groups toks, in order, by their term (kind, of kinds terms
// with freq places each) into a fwdPart. order is scratch.
func forwardPart(toks []pendingToken, freq func(kind int) int, kinds int, order *[]int32) fwdPart {
	// A counting sort of the tokens by kind, each kind's in token order.
	at := make([]int, kinds+1)
	for k := range kinds {
		at[k+1] = at[k] + freq(k)
	}
	o := slices.Grow((*order)[:0], len(toks))[:len(toks)]
	next := slices.Clone(at[:kinds])
	for i := range toks {
		k := toks[i].kind
		o[next[k]] = int32(i)
		next[k]++
	}
	*order = o
	part := fwdPart{lens: make([]uint32, kinds), posLens: make([]uint32, kinds)}
	b, pb := make([]byte, 0, 5*len(toks)), make([]byte, 0, 2*len(toks))
	for k := range kinds {
		from, pfrom := len(b), len(pb)
		var prev [3]int
		var pprev [2]int
		for _, i := range o[at[k]:at[k+1]] {
			t := &toks[i]
			b = appendPlaces(b, t.segment, t.pos, t.start, t.end, &prev)
			pb = appendPosition(pb, t.segment, t.pos, &pprev)
		}
		part.lens[k], part.posLens[k] = uint32(len(b)-from), uint32(len(pb)-pfrom)
	}
	part.places, part.pos = b, pb
	return part
}

// fwdPlace is one place read back.
type fwdPlace struct{ segment, pos, start, end int }

// fwdPlaces walks the places of one term written by appendPlaces.
type fwdPlaces struct {
	b    []byte
	prev [3]int
	err  bool
	cur  fwdPlace
}

func (it *fwdPlaces) varint() int {
	v, k := binary.Varint(it.b)
	if k <= 0 {
		it.err = true
		it.b = nil
		return 0
	}
	it.b = it.b[k:]
	return int(v)
}

// next reads the next place into it.cur; false at the end or on damage
// (it.err).
func (it *fwdPlaces) next() bool {
	if len(it.b) == 0 {
		return false
	}
	if d := it.varint(); d != 0 {
		it.prev = [3]int{it.prev[0] + d, 0, 0}
	}
	it.prev[1] += it.varint()
	it.prev[2] += it.varint()
	end := it.prev[2] + it.varint()
	it.cur = fwdPlace{segment: it.prev[0], pos: it.prev[1], start: it.prev[2], end: end}
	return !it.err
}

// fwdWriter writes the forward file, a document at a time in rank order.
type fwdWriter struct {
	f      *os.File
	w      *bufio.Writer
	off    uint64
	offs   []uint64
	buf    []byte
	header []byte
}

func newFwdWriter(dir string, docs int) (*fwdWriter, error) {
	f, err := os.Create(filepath.Join(dir, fwdFileName))
	if err != nil {
		return nil, fmt.Errorf("search: forward file: %w", err)
	}
	return &fwdWriter{f: f, w: bufio.NewWriterSize(f, 64<<10), offs: make([]uint64, 0, docs+1)}, nil
}

// add writes the next document: per prose field, the number of its terms
// and the lengths of its header and places, then the header (each term's
// number with the length of its places) and the places.
func (fw *fwdWriter) add(ids *[numProse][]uint32, parts *[numProse]fwdPart) error {
	b := fw.buf[:0]
	for i := range parts {
		p := &parts[i]
		if len(ids[i]) != len(p.lens) {
			return fmt.Errorf("search: forward file: %d terms, %d place lists", len(ids[i]), len(p.lens))
		}
		h := fw.header[:0]
		for k, id := range ids[i] {
			h = binary.AppendUvarint(h, uint64(id))
			h = binary.AppendUvarint(h, uint64(p.lens[k]))
		}
		fw.header = h
		b = binary.AppendUvarint(b, uint64(len(ids[i])))
		b = binary.AppendUvarint(b, uint64(len(h)))
		b = binary.AppendUvarint(b, uint64(len(p.places)))
		b = append(b, h...)
		b = append(b, p.places...)
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

// forward is the forward file opened for reading. It is read with ReadAt
// rather than mapped: the kernel maps a faulted page's neighbours too, so a
// mapping of it becomes resident in full within a few hundred searches,
// where reads leave it in the page cache, outside the process's memory.
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
		return fail(fmt.Errorf("search: forward file: %w", err))
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

// fwdField is one prose field's part of a document's block: its header
// of (term number, length of its places) pairs and the places.
type fwdField struct {
	n      int
	header []byte
	places []byte
}

// fwdFieldOf is the prose field fi of a document's block; the fields
// before it are skipped by their lengths.
func fwdFieldOf(b []byte, fi int) (fwdField, error) {
	for i := 0; ; i++ {
		var v [3]uint64
		for j := range v {
			x, k := binary.Uvarint(b)
			if k <= 0 {
				return fwdField{}, errFwdFile
			}
			v[j], b = x, b[k:]
		}
		if v[1] > uint64(len(b)) || v[2] > uint64(len(b))-v[1] {
			return fwdField{}, errFwdFile
		}
		if i == fi {
			return fwdField{n: int(v[0]), header: b[:v[1]], places: b[v[1] : v[1]+v[2]]}, nil
		}
		b = b[v[1]+v[2]:]
	}
}

// next returns the next term of the header with its places, and advances
// past it; ok is false at the end.
func (f *fwdField) next() (id uint64, places []byte, ok bool, err error) {
	if f.n == 0 {
		return 0, nil, false, nil
	}
	id, k1 := binary.Uvarint(f.header)
	if k1 <= 0 {
		return 0, nil, false, errFwdFile
	}
	l, k2 := binary.Uvarint(f.header[k1:])
	if k2 <= 0 || l > uint64(len(f.places)) {
		return 0, nil, false, errFwdFile
	}
	f.header, f.n = f.header[k1+k2:], f.n-1
	places, f.places = f.places[:l], f.places[l:]
	return id, places, true, nil
}
