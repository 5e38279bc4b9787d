package search

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"
)

// build indexes the library into a temporary directory under dir and renames
// the finished index to path. Documents are analysed on every core and
// taken in library order into the memory fields and the forward file.
func build(dir, path string, ix *Index, analysedAll func()) error {
	tmp, err := os.MkdirTemp(dir, buildPrefix)
	if err != nil {
		return fmt.Errorf("search: build: %w", err)
	}
	defer os.RemoveAll(tmp)
	work := filepath.Join(tmp, "index")
	if err := os.Mkdir(work, 0o755); err != nil {
		return fmt.Errorf("search: build: %w", err)
	}
	an, err := newAnalyzers()
	if err != nil {
		return err
	}
	mem := newMemBuilder(len(ix.byRank))
	fw, err := newFwdWriter(work, len(ix.byRank))
	if err != nil {
		return err
	}
	err = ix.analyseAll(an, func(rank int, a *analysed) error {
		for f := range a.counts {
			var places *fwdPart
			if memField(f).prose() {
				places = &a.fwd[f-int(memAll)]
			}
			mem.add(memField(f), int32(rank), a.counts[f], a.lens[f], places)
		}
		if err := fw.add(&mem.ids, &a.fwd); err != nil {
			return fmt.Errorf("search: forward file: %w", err)
		}
		return nil
	})
	if err == nil {
		err = fw.close()
	} else {
		fw.abort()
	}
	if err != nil {
		return err
	}
	mi, err := mem.finish(work)
	if err != nil {
		return err
	}
	mem = nil
	if analysedAll != nil {
		analysedAll()
	}
	if err := mi.write(work); err != nil {
		return err
	}
	if err := writeManifest(work, manifest{Hash: ix.lib.Hash, Docs: len(ix.byRank)}); err != nil {
		return err
	}
	if err := os.Rename(work, path); err != nil {
		// Another process may have finished the same build first; its
		// index is as good as ours.
		if _, verr := checkManifest(path, ix.lib.Hash); verr == nil {
			return nil
		}
		return fmt.Errorf("search: move index into place: %w", err)
	}
	return nil
}

// analyseBatch is how many documents the workers analyse together, and
// analyseAhead how many such batches may wait analysed, so that the
// analysis goes on while the previous batch is taken into the memory
// fields and the forward file. Every document waiting costs memory (its
// places), so only two batches wait.
const (
	analyseBatch = 32
	analyseAhead = 2
)

// analyseAll analyses every document on every core, a batch at a time, and
// hands them to use in library order, one at a time; the next batch is
// analysed while use consumes this one.
func (ix *Index) analyseAll(a *analyzers, use func(rank int, d *analysed) error) error {
	n := len(ix.byRank)
	workers := max(1, runtime.GOMAXPROCS(0))
	type batch struct {
		from int
		docs []*analysed
	}
	batches := make(chan batch, analyseAhead)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		defer close(batches)
		arenas := make([]tokenArena, workers) // worker w's, reused batch after batch
		for from := 0; from < n; from += analyseBatch {
			docs := make([]*analysed, min(analyseBatch, n-from))
			var wg sync.WaitGroup
			for w := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					arena := &arenas[w]
					for i := w; i < len(docs); i += workers {
						d := ix.document(from + i)
						d.addIdentifiers()
						docs[i] = a.analyse(d, arena)
					}
				}()
			}
			wg.Wait()
			select {
			case batches <- batch{from, docs}:
			case <-stop:
				return
			}
		}
	}()
	for b := range batches {
		for i, d := range b.docs {
			if err := use(b.from+i, d); err != nil {
				return err
			}
			b.docs[i] = nil
		}
	}
	return nil
}

// openVerified reads the index at path after checking that it is the
// complete, undamaged index of this content.
func openVerified(path, hash string, docs int) (*memIndex, *manifest, error) {
	man, err := checkManifest(path, hash)
	if err != nil {
		return nil, nil, err
	}
	if man.Docs != docs {
		return nil, nil, fmt.Errorf("index holds %d documents, the library %d", man.Docs, docs)
	}
	mem, err := readMemIndex(path, docs)
	if err != nil {
		return nil, nil, err
	}
	return mem, man, nil
}

// Documents are analysed by as many workers as there are cores. Each text
// segment is analysed once and its tokens feed its prose field ("all",
// "code" or "ko") and the short fields it belongs to.

// proseFields are the fields whose places the forward file keeps, for
// quoted phrases and highlights.
var proseFields = [numProse]string{fieldAll, fieldCode, fieldKorean}

const numProse = 3

// analysed is one document, ready for the memory fields and the forward
// file.
type analysed struct {
	counts [numMem][]termCount
	lens   [numMem]int
	// fwd is each prose field's places by term, in the order of its
	// counts, for the forward file (forward.go).
	fwd [numProse]fwdPart
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
func (a *analyzers) analyse(d *document, arena *tokenArena) *analysed {
	out := &analysed{}
	var mem [numMem][]string
	var own [numProse]termFreqs // by position in proseFields
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
	for i := range proseFields {
		if n := len(tfs[i].pending); n > 0 {
			out.counts[memAll+memField(i)], out.fwd[i] = tfs[i].finish()
			out.lens[memAll+memField(i)] = n
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

// termFreqs gathers one prose field's tokens over all its segments, each
// token carrying its segment's position. Tokens wait in pending until
// finish, which counts each term's tokens and groups their places by term.
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
	freq int
}

// add takes a segment's tokens; they are copied, so the stream may be
// reused after.
func (t *termFreqs) add(toks analysis.TokenStream, segment int) {
	for _, tok := range toks {
		t.pending = append(t.pending, pendingToken{term: tok.Term, start: tok.Start, end: tok.End, pos: tok.Position, segment: segment})
	}
}

// finish returns every term added with its count, in the order the terms
// were first met, and their places for the forward file, and empties t
// for the next field (keeping its buffers).
func (t *termFreqs) finish() ([]termCount, fwdPart) {
	if len(t.pending) == 0 {
		return nil, fwdPart{}
	}
	if t.seen == nil {
		t.seen = map[string]int32{}
	}
	for i := range t.pending {
		p := &t.pending[i]
		k, ok := t.seen[string(p.term)]
		if !ok {
			k = int32(len(t.terms))
			key := string(p.term)
			t.seen[key] = k
			t.terms = append(t.terms, termSeen{key: key})
		}
		t.terms[k].freq++
		p.kind = k
	}
	counts := make([]termCount, len(t.terms))
	for k, ts := range t.terms {
		counts[k] = termCount{term: ts.key, n: uint32(ts.freq)}
	}
	places := forwardPart(t.pending, func(k int) int { return t.terms[k].freq }, len(t.terms), &t.order)
	clear(t.pending)
	clear(t.seen)
	clear(t.terms)
	t.pending, t.terms = t.pending[:0], t.terms[:0]
	return counts, places
}
