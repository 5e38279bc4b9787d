package search

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"unsafe"

	"github.com/blevesearch/vellum"
	"github.com/blevesearch/vellum/levenshtein"
)

// Every field is held in memory as compact posting lists, and every query
// is matched and scored from them: the short fields (titles, summaries,
// signals, organisations, source titles, Korean titles, the unstemmed typo
// vocabulary and identifiers) and the prose fields ("all", "code", "ko"),
// without positions. They cost a few bytes a posting and are written to
// the fields file, which a warm start reads back in milliseconds. The
// prose fields' places stay on disk, by term in the positions file
// (positions.go) and by document in the forward file (forward.go).

// memField numbers the fields held in memory.
type memField int

const (
	memTitle memField = iota
	memSummary
	memSignals
	memOrg
	memSources
	memKoTitle
	memWords
	memIdent
	memAll // the prose fields (proseFields), in their order
	memCode
	memKo
	numMem
)

// memFieldNames are the index field names of the memory fields, by number.
var memFieldNames = [numMem]string{fieldTitle, fieldSummary, fieldSignals, fieldOrgText, fieldSources, fieldKoTitle, fieldWords, fieldIdent,
	fieldAll, fieldCode, fieldKorean}

// prose reports whether f is a prose field, whose places the forward file
// keeps.
func (f memField) prose() bool { return f >= memAll }

// memFieldOf maps a field name to its memory field.
func memFieldOf(name string) (memField, bool) {
	for i, n := range memFieldNames {
		if n == name {
			return memField(i), true
		}
	}
	return 0, false
}

// postings is one memory field: its sorted vocabulary, and for each term
// the documents (by rank) holding it with their term frequencies, encoded
// as uvarint(gap<<1 | tf>1) followed by uvarint(tf) when tf > 1.
type postings struct {
	terms []string // sorted
	df    []uint32
	off   []uint32 // start of each term's postings in data; len(terms)+1 entries
	data  []byte
	lens  []uint32 // analysed length of the field by rank
	total int64    // sum of lens
	// ids, for the prose fields, are each term's number in the forward
	// file (forward.go): the order the builder first met the terms in.
	ids []uint32
	// posOff, for the prose fields, is where each term's positions start
	// in the positions file; len(terms)+1 entries.
	posOff []uint64
}

// length is the field's length in the document at rank, for BM25.
func (p *postings) length(rank int32) float64 { return float64(p.lens[rank]) }

// lookup returns the position of term in the vocabulary.
func (p *postings) lookup(term string) (int, bool) {
	i, ok := slices.BinarySearch(p.terms, term)
	return i, ok
}

// postingIter walks one term's postings.
type postingIter struct {
	data []byte
	rank int32
	tf   uint32
	init bool
}

func (p *postings) iter(t int) postingIter {
	return postingIter{data: p.data[p.off[t]:p.off[t+1]]}
}

// next advances to the next posting; false at the end.
func (it *postingIter) next() bool {
	if len(it.data) == 0 {
		return false
	}
	v, n := binary.Uvarint(it.data)
	it.data = it.data[n:]
	gap := int32(v >> 1)
	if it.init {
		it.rank += gap
	} else {
		it.rank, it.init = gap, true
	}
	it.tf = 1
	if v&1 != 0 {
		tf, n := binary.Uvarint(it.data)
		it.data = it.data[n:]
		it.tf = uint32(tf)
	}
	return true
}

// memIndex is every memory field plus the typo vocabulary's automaton.
type memIndex struct {
	fields [numMem]postings
	words  *vellum.FST // the "words" vocabulary, value = document frequency
	fwd    *forward    // the prose fields' places by document, on disk
	pos    *positions  // and by term
}

// close closes the forward and positions files.
func (m *memIndex) close() error { return errors.Join(m.fwd.close(), m.pos.close()) }

// avgLen is the field's average analysed length, 0 for identifiers (whose
// length is not normalised: an identifier is one token).
func (m *memIndex) avgLen(f memField, docs int) float64 {
	if f == memIdent || docs == 0 {
		return 0
	}
	return float64(max(m.fields[f].total, 1)) / float64(docs)
}

// has reports whether the field holds term.
func (m *memIndex) has(f memField, term string) bool {
	_, ok := m.fields[f].lookup(term)
	return ok
}

// memBuilder collects the postings of the memory fields, document by
// document in rank order.
type memBuilder struct {
	docs  int
	terms [numMem]map[string]*termBuild
	lens  [numMem][]uint32
	total [numMem]int64
	// ids are the numbers of the terms of the last document added to each
	// prose field, in the order of its counts.
	ids [numProse][]uint32
}

type termBuild struct {
	id   uint32 // its number in the forward file, for the prose fields
	df   uint32
	last int32
	data []byte
	pos  []byte // the prose fields' positions (positions.go)
}

func newMemBuilder(docs int) *memBuilder {
	b := &memBuilder{docs: docs}
	for f := range b.terms {
		b.terms[f] = map[string]*termBuild{}
		b.lens[f] = make([]uint32, docs)
	}
	return b
}

// add records one document's terms of field f; ranks arrive in order. A
// prose field comes with its places, by term in the order of counts.
func (b *memBuilder) add(f memField, rank int32, counts []termCount, length int, places *fwdPart) {
	b.lens[f][rank] = uint32(length)
	b.total[f] += int64(length)
	var ids *[]uint32
	if f.prose() {
		ids = &b.ids[f-memAll]
		*ids = (*ids)[:0]
	}
	at := 0
	for j, c := range counts {
		t := b.terms[f][c.term]
		if t == nil {
			t = &termBuild{id: uint32(len(b.terms[f]))}
			b.terms[f][c.term] = t
		}
		if ids != nil {
			*ids = append(*ids, t.id)
		}
		gap := rank
		if t.df > 0 {
			gap = rank - t.last
		}
		v := uint64(gap) << 1
		if c.n > 1 {
			v |= 1
		}
		t.data = binary.AppendUvarint(t.data, v)
		if c.n > 1 {
			t.data = binary.AppendUvarint(t.data, uint64(c.n))
		}
		t.df++
		t.last = rank
		if places != nil {
			end := at + int(places.posLens[j])
			t.pos = binary.AppendUvarint(t.pos, uint64(places.posLens[j]))
			t.pos = append(t.pos, places.pos[at:end]...)
			at = end
		}
	}
}

// finish turns the collected postings into the memIndex and writes the
// prose fields' positions into dir.
func (b *memBuilder) finish(dir string) (*memIndex, error) {
	m := &memIndex{}
	pf, err := os.Create(filepath.Join(dir, posFileName))
	if err != nil {
		return nil, fmt.Errorf("search: positions file: %w", err)
	}
	defer pf.Close()
	pw := bufio.NewWriterSize(pf, 64<<10)
	if _, err := pw.WriteString(posMagic); err != nil {
		return nil, fmt.Errorf("search: positions file: %w", err)
	}
	var posAt uint64
	for f := range b.terms {
		p := &m.fields[f]
		p.terms = make([]string, 0, len(b.terms[f]))
		size := 0
		for t, tb := range b.terms[f] {
			p.terms = append(p.terms, t)
			size += len(tb.data)
		}
		sort.Strings(p.terms)
		p.df = make([]uint32, len(p.terms))
		p.off = make([]uint32, len(p.terms)+1)
		p.data = make([]byte, 0, size)
		if memField(f).prose() {
			p.ids, p.posOff = make([]uint32, len(p.terms)), make([]uint64, len(p.terms)+1)
		}
		for i, t := range p.terms {
			tb := b.terms[f][t]
			if p.ids != nil {
				p.ids[i], p.posOff[i] = tb.id, posAt
				if _, err := pw.Write(tb.pos); err != nil {
					return nil, fmt.Errorf("search: positions file: %w", err)
				}
				posAt += uint64(len(tb.pos))
				tb.pos = nil
			}
			p.df[i] = tb.df
			p.off[i] = uint32(len(p.data))
			p.data = append(p.data, tb.data...)
		}
		b.terms[f] = nil // garbage from here, before the next field is packed
		p.off[len(p.terms)] = uint32(len(p.data))
		if p.posOff != nil {
			p.posOff[len(p.terms)] = posAt
		}
		p.lens, p.total = b.lens[f], b.total[f]
	}
	// Not synced, like the other files: the manifest checksums it.
	if err := pw.Flush(); err != nil {
		return nil, fmt.Errorf("search: positions file: %w", err)
	}
	if err := pf.Close(); err != nil {
		return nil, fmt.Errorf("search: positions file: %w", err)
	}
	fst, err := buildFST(&m.fields[memWords])
	if err != nil {
		return nil, err
	}
	m.words = fst
	return m, nil
}

func buildFST(p *postings) (*vellum.FST, error) {
	var buf bytes.Buffer
	vb, err := vellum.New(&buf, nil)
	if err != nil {
		return nil, err
	}
	for i, t := range p.terms {
		if err := vb.Insert([]byte(t), uint64(p.df[i])); err != nil {
			return nil, fmt.Errorf("search: typo vocabulary: %w", err)
		}
	}
	if err := vb.Close(); err != nil {
		return nil, err
	}
	return vellum.Load(buf.Bytes())
}

// fuzzy lists the typo vocabulary's terms within k edits of w (k is 1 or
// 2), with their document frequencies, at most limit of them.
func (m *memIndex) fuzzy(w string, k int, limit int) []termCount {
	a, err := levAutomaton(w, k)
	if err != nil || m.words == nil {
		return nil
	}
	it, err := m.words.Search(a, nil, nil)
	var out []termCount
	for err == nil && len(out) < limit {
		key, df := it.Current()
		out = append(out, termCount{term: string(key), n: uint32(df)})
		err = it.Next()
	}
	return out
}

var (
	levOnce    sync.Once
	lev1, lev2 *levenshtein.LevenshteinAutomatonBuilder
	levErr     error
)

// levAutomaton is the automaton of the words within k edits of w; building
// the builders costs milliseconds, so they are made once.
func levAutomaton(w string, k int) (vellum.Automaton, error) {
	levOnce.Do(func() {
		if lev1, levErr = levenshtein.NewLevenshteinAutomatonBuilder(1, true); levErr == nil {
			lev2, levErr = levenshtein.NewLevenshteinAutomatonBuilder(2, true)
		}
	})
	if levErr != nil {
		return nil, levErr
	}
	if k == 1 {
		return lev1.BuildDfa(w, 1)
	}
	return lev2.BuildDfa(w, 2)
}

// memFileName is the memory fields' file inside the index directory.
const memFileName = "casebook-fields.bin"

const memMagic = "CBMF4\n"

// write saves the memory fields under dir.
func (m *memIndex) write(dir string) error {
	var b []byte
	b = append(b, memMagic...)
	b = binary.AppendUvarint(b, uint64(numMem))
	for f := range m.fields {
		p := &m.fields[f]
		b = appendString(b, memFieldNames[f])
		b = binary.AppendUvarint(b, uint64(len(p.terms)))
		for i, t := range p.terms {
			b = appendString(b, t)
			b = binary.AppendUvarint(b, uint64(p.df[i]))
			b = binary.AppendUvarint(b, uint64(p.off[i+1]-p.off[i]))
		}
		b = binary.AppendUvarint(b, uint64(len(p.data)))
		b = append(b, p.data...)
		b = binary.AppendUvarint(b, uint64(len(p.lens)))
		for _, l := range p.lens {
			b = binary.AppendUvarint(b, uint64(l))
		}
		for _, id := range p.ids { // the prose fields only
			b = binary.AppendUvarint(b, uint64(id))
		}
		for i := range p.ids {
			b = binary.AppendUvarint(b, p.posOff[i+1]-p.posOff[i])
		}
	}
	if err := os.WriteFile(filepath.Join(dir, memFileName), b, 0o644); err != nil {
		return fmt.Errorf("search: write fields: %w", err)
	}
	return nil
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

var errMemFile = errors.New("search: damaged fields file")

// readMemIndex loads the memory fields written by write. Terms share one
// string allocation and postings point into the file's bytes.
func readMemIndex(dir string, docs int) (*memIndex, error) {
	raw, err := os.ReadFile(filepath.Join(dir, memFileName))
	if err != nil {
		return nil, fmt.Errorf("search: read fields: %w", err)
	}
	if !bytes.HasPrefix(raw, []byte(memMagic)) {
		return nil, errMemFile
	}
	// The terms are substrings of the file's bytes, which nothing writes
	// to after this point: one allocation holds the whole vocabulary.
	all := unsafe.String(&raw[0], len(raw))
	r := &memReader{b: raw, s: all, pos: len(memMagic)}
	if n := r.uvarint(); n != uint64(numMem) {
		return nil, fmt.Errorf("search: fields file holds %d fields, want %d", n, numMem)
	}
	m := &memIndex{}
	var posAt uint64
	for f := range m.fields {
		if name := r.str(); name != memFieldNames[f] {
			return nil, fmt.Errorf("search: fields file holds %q where %q belongs", name, memFieldNames[f])
		}
		p := &m.fields[f]
		n := int(r.uvarint())
		if r.err != nil || n > len(raw) {
			return nil, errMemFile
		}
		p.terms, p.df, p.off = make([]string, n), make([]uint32, n), make([]uint32, n+1)
		var off uint32
		for i := range n {
			p.terms[i] = r.str()
			p.df[i] = uint32(r.uvarint())
			p.off[i] = off
			off += uint32(r.uvarint())
		}
		p.off[n] = off
		p.data = r.bytes(int(r.uvarint()))
		if r.err == nil && uint32(len(p.data)) != off {
			return nil, errMemFile
		}
		nl := int(r.uvarint())
		if nl != docs {
			return nil, fmt.Errorf("search: fields file has %d documents, want %d", nl, docs)
		}
		p.lens = make([]uint32, nl)
		for i := range p.lens {
			l := r.uvarint()
			if l > math.MaxUint32 {
				return nil, errMemFile
			}
			p.lens[i] = uint32(l)
			p.total += int64(l)
		}
		if r.err != nil {
			return nil, errMemFile
		}
		if memField(f).prose() {
			p.ids = make([]uint32, n)
			for i := range p.ids {
				id := r.uvarint()
				if id >= uint64(n) {
					return nil, errMemFile
				}
				p.ids[i] = uint32(id)
			}
			p.posOff = make([]uint64, n+1)
			for i := range n {
				p.posOff[i] = posAt
				posAt += r.uvarint()
			}
			p.posOff[n] = posAt
		}
	}
	if r.err != nil || r.pos != len(raw) {
		return nil, errMemFile
	}
	fst, err := buildFST(&m.fields[memWords])
	if err != nil {
		return nil, err
	}
	m.words = fst
	if m.fwd, err = openForward(dir, docs); err != nil {
		return nil, err
	}
	if m.pos, err = openPositions(dir, posAt); err != nil {
		m.fwd.close()
		return nil, err
	}
	return m, nil
}

type memReader struct {
	b   []byte
	s   string
	pos int
	err error
}

func (r *memReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.pos:])
	if n <= 0 {
		r.err = errMemFile
		return 0
	}
	r.pos += n
	return v
}

func (r *memReader) span(n int) (int, bool) {
	if r.err != nil || n < 0 || r.pos+n > len(r.b) {
		r.err = errMemFile
		return 0, false
	}
	at := r.pos
	r.pos += n
	return at, true
}

func (r *memReader) str() string {
	n := int(r.uvarint())
	at, ok := r.span(n)
	if !ok {
		return ""
	}
	return r.s[at : at+n]
}

func (r *memReader) bytes(n int) []byte {
	at, ok := r.span(n)
	if !ok {
		return nil
	}
	return r.b[at : at+n : at+n]
}

// termCount is a term with a count: its frequency in a document's field,
// or its document frequency in the vocabulary.
type termCount struct {
	term string
	n    uint32
}

// countTerms turns terms into counts, in term order; it sorts terms.
func countTerms(terms []string) []termCount {
	slices.Sort(terms)
	out := make([]termCount, 0, len(terms))
	for i, t := range terms {
		if i > 0 && t == terms[i-1] {
			out[len(out)-1].n++
			continue
		}
		out = append(out, termCount{term: t, n: 1})
	}
	return out
}
