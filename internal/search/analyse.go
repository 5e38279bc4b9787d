package search

import (
	"github.com/blevesearch/bleve/v2/analysis"
	bdoc "github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"
)

// Documents are analysed once, before bleve sees them, by as many workers as
// there are cores: bleve's offline builder analyses and writes segments in
// one goroutine. Each text segment is analysed once and its tokens feed both
// bleve's "all" (or Korean) field and the memory fields it belongs to
// (the short fields, and the memory copy of bleve's own fields), where
// bleve analysed the short fields up to three times (their own field,
// "words" and "all").

// bleveFields are the fields bleve holds: the prose, for matching,
// phrases and highlights, so every one keeps positions.
var bleveFields = [numProse]string{fieldAll, fieldCode, fieldKorean}

const numProse = 3

// analysed is one document, ready for bleve and for the memory fields.
type analysed struct {
	doc    *bdoc.Document
	counts [numMem][]termCount
	lens   [numMem]int
	// fwd is each prose field's places by term, in the order of its
	// counts, for the forward file (forward.go).
	fwd [numProse]fwdPart
}

// analyser holds the analyzers of the mapping; they are safe for
// concurrent use.
type analyser struct {
	english, words, korean analysis.Analyzer
}

func newAnalyser(m *mapping.IndexMappingImpl) *analyser {
	return &analyser{english: m.AnalyzerNamed(analyzerEn), words: m.AnalyzerNamed(analyzerWords), korean: m.AnalyzerNamed(analyzerKo)}
}

// shortFields are the fields of "all" besides the body, in the order
// document.finish copies them, with their memory fields.
var shortFields = []struct {
	field string
	mem   memField
}{
	{fieldTitle, memTitle}, {fieldSummary, memSummary}, {fieldSignals, memSignals},
	{fieldOrgText, memOrg}, {fieldSources, memSources},
}

// koTitleKeys are the keys of the Korean segments that are also Korean
// titles and summaries (see document.finish and addKorean).
var koTitleKeys = map[string]bool{"title": true, "summary": true, "title_ko": true, "summary_ko": true}

const positionsOptions = index.IndexField | index.IncludeTermVectors

// analyze runs an analyzer, tokenizing into arena when it is one of ours
// (the fast tokenizer and token filters, as analysis.DefaultAnalyzer.Analyze
// runs them).
func analyze(an analysis.Analyzer, input []byte, arena *tokenArena) analysis.TokenStream {
	if da, ok := an.(*analysis.DefaultAnalyzer); ok && len(da.CharFilters) == 0 {
		if ft, ok := da.Tokenizer.(*fastTokenizer); ok {
			toks := ft.tokenize(input, arena)
			for _, f := range da.TokenFilters {
				toks = f.Filter(toks)
			}
			return toks
		}
	}
	return an.Analyze(input)
}

// analyse analyses one document. arena is the calling goroutine's: every
// token stream is copied out of (termFreqs.add, the memory fields' terms)
// before the next text is analysed into it.
func (a *analyser) analyse(d *document, arena *tokenArena) *analysed {
	out := &analysed{doc: bdoc.NewDocument(d.id)}
	var mem [numMem][]string
	var own [3]termFreqs // by position in bleveFields
	tfs := &own
	if arena != nil {
		tfs = &arena.freqs // their buffers, kept from the last document
	}
	// "all": the short fields, then the body, as document.finish orders
	// them; highlights find a segment by its position in that order.
	pos := 0
	for _, sf := range shortFields {
		for _, s := range d.field(sf.field) {
			toks := analyze(a.english, []byte(s.text), arena)
			tfs[0].add(toks, pos)
			pos++
			for _, t := range toks {
				mem[sf.mem] = append(mem[sf.mem], string(t.Term))
			}
			out.lens[sf.mem] += len(toks)
		}
	}
	for _, s := range d.field(fieldBody) {
		tfs[0].add(analyze(a.english, []byte(s.text), arena), pos)
		pos++
	}
	for i, s := range d.field(fieldCode) {
		tfs[1].add(analyze(a.english, []byte(s.text), arena), i)
	}
	for i, s := range d.field(fieldKorean) {
		toks := a.korean.Analyze([]byte(s.text))
		tfs[2].add(toks, i)
		if koTitleKeys[s.key] {
			for _, t := range toks {
				mem[memKoTitle] = append(mem[memKoTitle], string(t.Term))
			}
			out.lens[memKoTitle] += len(toks)
		}
	}
	for i, field := range bleveFields {
		if n := len(tfs[i].pending); n > 0 {
			freqs, counts, places := tfs[i].finish()
			out.doc.AddField(&preField{name: field, length: n, freqs: freqs})
			out.counts[memAll+memField(i)], out.lens[memAll+memField(i)] = counts, n
			out.fwd[i] = places
		}
	}
	for _, s := range d.field(fieldWords) {
		toks := analyze(a.words, []byte(s.text), arena)
		for _, t := range toks {
			mem[memWords] = append(mem[memWords], string(t.Term))
		}
		out.lens[memWords] += len(toks)
	}
	mem[memIdent] = append(mem[memIdent], d.ident...)
	out.lens[memIdent] = len(mem[memIdent])
	for f := range memAll {
		out.counts[f] = countTerms(mem[f])
	}
	return out
}

// termFreqs gathers one bleve field's token frequencies over all its
// segments, each token's location carrying its segment's position: bleve
// would merge one field per segment into the same map itself. Tokens wait
// in pending until finish, which counts each term's locations first and
// then hands them out of one block: appending them term by term grew each
// term's list several times and left up to half of it unused in documents
// waiting for the index builder (this was the largest allocation of a cold
// load, 0.57 GB at 10,000 incidents).
type termFreqs struct {
	pending []pendingToken // every token added, until finish
	// Scratch of finish, kept for the next field: each distinct term's
	// place in terms.
	seen  map[string]int32
	terms []termSeen
	order []int32 // forwardPart's
}

type pendingToken struct {
	term                     []byte
	start, end, pos, segment int
	kind                     int32 // the term's place in termFreqs.terms
}

type termSeen struct {
	key  string
	term []byte // its first token's
	freq int
}

// add takes a segment's tokens; they are copied, so the stream may be
// reused after.
func (t *termFreqs) add(toks analysis.TokenStream, segment int) {
	for _, tok := range toks {
		t.pending = append(t.pending, pendingToken{term: tok.Term, start: tok.Start, end: tok.End, pos: tok.Position, segment: segment})
	}
}

// finish returns the frequencies of every token added, for bleve, as the
// memory field's counts and as the forward file's places, and empties t
// for the next field (keeping its buffers).
func (t *termFreqs) finish() (index.TokenFrequencies, []termCount, fwdPart) {
	n := len(t.pending)
	if n == 0 {
		return nil, nil, fwdPart{}
	}
	if t.seen == nil {
		t.seen = map[string]int32{}
	}
	segments := 0
	for i := range t.pending {
		p := &t.pending[i]
		k, ok := t.seen[string(p.term)]
		if !ok {
			k = int32(len(t.terms))
			key := string(p.term)
			t.seen[key] = k
			t.terms = append(t.terms, termSeen{key: key, term: p.term})
		}
		t.terms[k].freq++
		p.kind = k
		segments = max(segments, p.segment+1)
	}
	// Everything below is sized exactly: the frequencies, the map bleve
	// reads them from, and one block each of locations and of pointers
	// to them, cut per term.
	freqs := make([]index.TokenFreq, len(t.terms))
	tf := make(index.TokenFrequencies, len(t.terms))
	counts := make([]termCount, len(t.terms))
	ptrs := make([]*index.TokenLocation, n)
	off := 0
	for k, ts := range t.terms {
		cur := &freqs[k]
		cur.Term = ts.term
		cur.SetFrequency(ts.freq)
		cur.Locations = ptrs[off : off : off+ts.freq]
		off += ts.freq
		tf[ts.key] = cur
		counts[k] = termCount{term: ts.key, n: uint32(ts.freq)}
	}
	locs := make([]index.TokenLocation, n)
	arrayPos := make([]uint64, segments)
	for i := range arrayPos {
		arrayPos[i] = uint64(i)
	}
	for i := range t.pending {
		p := &t.pending[i]
		locs[i] = index.TokenLocation{ArrayPositions: arrayPos[p.segment : p.segment+1 : p.segment+1], Start: p.start, End: p.end, Position: p.pos}
		cur := &freqs[p.kind]
		cur.Locations = append(cur.Locations, &locs[i])
	}
	places := forwardPart(t.pending, func(k int) int { return t.terms[k].freq }, len(t.terms), &t.order)
	clear(t.pending)
	clear(t.seen)
	clear(t.terms)
	t.pending, t.terms = t.pending[:0], t.terms[:0]
	return tf, counts, places
}

// preField is a bleve field analysed in advance: bleve's builder calls
// Analyze, which has nothing left to do.
type preField struct {
	name   string
	length int
	freqs  index.TokenFrequencies
}

func (f *preField) Name() string                                     { return f.name }
func (f *preField) ArrayPositions() []uint64                         { return nil }
func (f *preField) Options() index.FieldIndexingOptions              { return positionsOptions }
func (f *preField) Analyze()                                         {}
func (f *preField) Value() []byte                                    { return nil } // nothing is stored
func (f *preField) NumPlainTextBytes() uint64                        { return 0 }
func (f *preField) Size() int                                        { return 64 + f.freqs.Size() }
func (f *preField) EncodedFieldType() byte                           { return 't' }
func (f *preField) AnalyzedLength() int                              { return f.length }
func (f *preField) AnalyzedTokenFrequencies() index.TokenFrequencies { return f.freqs }
