package search

import (
	"fmt"
	"slices"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/google/go-cmp/cmp"
)

// tokenizerCases are the texts where UAX #29 has rules beyond "letters and
// digits": inner punctuation, numbers with separators, underscores, quotes,
// mixed scripts, and text that is not ASCII at all.
var tokenizerCases = []string{
	"", " ", "a", "_", "__init__", "a_b", "_x", "x_", "3.14", "1,000,000", "1;2", "1:2", "a:b", "a.b", "a'b", "a''b",
	"can't won't it's", "e.g. i.e.", "nvidia.com/gpu", "node.kubernetes.io/not-ready", "k8s-device-plugin",
	"AcceleratedHardwareReady=False", "OOMKilled exit code 137", "v1.2.3-rc.1", "10.0.0.1:8080", "$HOME/.kube/config",
	"a.", ".a", "a..b", "1..2", "1.a", "a.1", "a1.5", "x:1", "1'2", "'quoted'", `"double"`, "--flag=value",
	"kubectl get pods -n kube-system | grep -v Running", "GPU가 안 보임", "파드의OOM", "café crème", "naïve—dash",
	"smart “quotes” and ’apostrophes’", "tab\tsep\nnew\r\nline", "emoji 🙂 here", "x\u0301y", " \u0301abc",
	"日本語テキスト", "한국어 text 혼합", "mid·dot", "1.5GB/s", "50%", "#hash @at", "a_1.b_2", "3.x", "x.3",
	"_0", "1_000", "_", "__", "0_a", " \xf200", "a\xffb c",
}

func TestFastTokenizerMatchesUnicode(t *testing.T) {
	texts := append([]string{}, tokenizerCases...)
	lib := loadLibrary(t)
	for _, in := range lib.Incidents {
		d := incidentDocument(in)
		for _, segs := range d.text {
			for _, s := range segs {
				texts = append(texts, s.text)
			}
		}
	}
	for _, pb := range lib.Playbooks {
		d := playbookDocument(pb)
		for _, segs := range d.text {
			for _, s := range segs {
				texts = append(texts, s.text)
			}
		}
	}
	fast, slow := &fastTokenizer{slow: unicode.NewUnicodeTokenizer()}, unicode.NewUnicodeTokenizer()
	for _, text := range texts {
		if diff := compareTokens(fast.Tokenize([]byte(text)), slow.Tokenize([]byte(text))); diff != "" {
			t.Errorf("%q: %s", text, diff)
		}
	}
}

func FuzzFastTokenizer(f *testing.F) {
	for _, s := range tokenizerCases {
		f.Add(s)
	}
	fast, slow := &fastTokenizer{slow: unicode.NewUnicodeTokenizer()}, unicode.NewUnicodeTokenizer()
	f.Fuzz(func(t *testing.T, s string) {
		if diff := compareTokens(fast.Tokenize([]byte(s)), slow.Tokenize([]byte(s))); diff != "" {
			t.Errorf("%q: %s", s, diff)
		}
	})
}

func compareTokens(got, want analysis.TokenStream) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d tokens %s, want %d %s", len(got), got, len(want), want)
	}
	for i := range got {
		g, w := got[i], want[i]
		if string(g.Term) != string(w.Term) || g.Start != w.Start || g.End != w.End || g.Position != w.Position || g.Type != w.Type {
			return fmt.Sprintf("token %d is %q [%d:%d] #%d type %d, want %q [%d:%d] #%d type %d",
				i, g.Term, g.Start, g.End, g.Position, g.Type, w.Term, w.Start, w.End, w.Position, w.Type)
		}
	}
	return ""
}

// The index build analyses every text into one reused token arena per
// worker: each document's analysis must be exactly what a fresh analysis
// gives, terms, positions and offsets, though the arena held the previous
// document's tokens (a stream used after the arena's next use would show
// here as another document's words).
func TestArenaAnalysisMatchesFresh(t *testing.T) {
	a, ix := shippedAnalysis(t)
	var arena tokenArena
	for rank := range ix.byRank {
		d := ix.document(rank)
		d.addIdentifiers()
		reused := a.analyse(d, &arena)
		fresh := a.analyse(d, nil)
		if diff := cmp.Diff(fresh.counts, reused.counts, cmp.AllowUnexported(termCount{})); diff != "" {
			t.Fatalf("%s: memory-field terms differ with a reused arena (-fresh +reused):\n%s", ix.byRank[rank].id(), diff)
		}
		if diff := cmp.Diff(fresh.lens, reused.lens); diff != "" {
			t.Fatalf("%s: lengths differ (-fresh +reused):\n%s", ix.byRank[rank].id(), diff)
		}
		if diff := cmp.Diff(fresh.fwd, reused.fwd, cmp.AllowUnexported(fwdPart{})); diff != "" {
			t.Fatalf("%s: forward places differ with a reused arena (-fresh +reused):\n%s", ix.byRank[rank].id(), diff)
		}
	}
	if cap(arena.toks) == 0 {
		t.Error("the arena was never used: the index build would allocate every token")
	}
}

// TestTermFreqsCountEveryToken feeds every text of the shipped library's
// documents, field by field, to termFreqs, reused throughout as an
// analysis worker reuses it, and wants each term counted as often as the
// analysis gave it, in the order the terms first came.
func TestTermFreqsCountEveryToken(t *testing.T) {
	a, ix := shippedAnalysis(t)
	var reused termFreqs
	fields, tokens := 0, 0
	for rank := range ix.byRank {
		d := ix.document(rank)
		for i, segs := range d.text {
			field := textFields[i]
			an := a.english
			if field == fieldKorean || field == fieldKoTitle {
				an = a.korean
			}
			var want []termCount
			for si, s := range segs {
				toks := an.Analyze([]byte(s.text))
				reused.add(toks, si)
				tokens += len(toks)
				for _, tok := range toks {
					k := slices.IndexFunc(want, func(c termCount) bool { return c.term == string(tok.Term) })
					if k < 0 {
						want = append(want, termCount{term: string(tok.Term)})
						k = len(want) - 1
					}
					want[k].n++
				}
			}
			got, _ := reused.finish()
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(termCount{})); diff != "" {
				t.Fatalf("%s, field %s (-analysis +termFreqs):\n%s", ix.byRank[rank].id(), field, diff)
			}
			fields++
		}
	}
	if fields < 1000 || tokens < 100000 {
		t.Errorf("compared %d fields, %d tokens: the shipped library should give far more", fields, tokens)
	}
}

// shippedAnalysis is the index's analyzers and the shipped library's
// documents, unindexed.
func shippedAnalysis(t *testing.T) (*analyzers, *Index) {
	t.Helper()
	a, err := newAnalyzers()
	if err != nil {
		t.Fatal(err)
	}
	return a, newIndex(loadLibrary(t))
}
