package search

import (
	"github.com/blevesearch/bleve/v2/analysis"
)

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
