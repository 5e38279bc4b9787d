package search

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"testing"

	"casebook/internal/library"
)

// asEncodingJSON is what encoding/json writes for r without its query: the
// bytes the hand-written encoder must reproduce, since API clients and the
// result cache read them.
func asEncodingJSON(t *testing.T, r *Result) []byte {
	t.Helper()
	b, err := json.Marshal(resultBody{Total: r.Total, Hits: r.Hits, Facets: r.Facets,
		SuggestedFilters: r.SuggestedFilters, Exact: r.Exact, Best: r.Best, Partial: r.Partial, Help: r.Help})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestAppendBodyAsJSON compares the encoder with encoding/json on the
// answers of the relevance set's queries on the shipped library, in both
// tabs and with filters, and on answers holding what needs escaping.
func TestAppendBodyAsJSON(t *testing.T) {
	cases := relevanceCases(t)
	reqs := []Request{
		{Query: "IL-0001"},               // exact
		{Query: "gpu-missing"},           // a playbook's id
		{Query: "zzqqxx nothingmatches"}, // empty, with help
		{Query: "nvida drvier"},          // did you mean
		{Query: "GPU", Filters: map[library.Facet][]string{library.FacetSymptom: {"no-such-term-anywhere-but-valid"}}},
		{Query: "", PerPage: 5},              // the listing
		{Query: "taint", Kind: KindPlaybook}, // a tab
	}
	for _, c := range cases {
		reqs = append(reqs, Request{Query: c.Query, PerPage: 20})
	}
	ix := sharedIndex(t)
	checked := 0
	for _, r := range reqs {
		res, err := ix.Search(context.Background(), r)
		if err != nil {
			continue // a filter the taxonomy refuses: not an answer to encode
		}
		got, err := res.body()
		if err != nil {
			t.Fatalf("%q: %v", r.Query, err)
		}
		if want := asEncodingJSON(t, res); !bytes.Equal(got, want) {
			t.Errorf("%q: the encoder wrote\n%s\nencoding/json wrote\n%s", r.Query, got, want)
		}
		checked++
	}
	if checked < len(cases) {
		t.Errorf("only %d of %d requests answered", checked, len(reqs))
	}

	odd := "<b>&\"\\\n\r\t\b\f\x00\x1f\x7f \u2028\u2029 \xff\xfe 한국어 é"
	crafted := []*Result{
		{},
		{Hits: []Hit{}, Facets: map[string][]FacetCount{}, SuggestedFilters: []Suggestion{}},
		{Total: -3, Hits: []Hit{{ID: odd, Kind: odd, Title: odd, Summary: odd, TitleKo: odd, SummaryKo: odd, Score: 1e-7, Exact: true,
			Fragments: map[string][]string{"z": {odd, ""}, "a": nil, odd: {}}}},
			Facets:           map[string][]FacetCount{"b": nil, "a": {{Term: odd, Label: odd, Count: 7}}, odd: {}},
			SuggestedFilters: []Suggestion{{Facet: library.Facet(odd), Term: odd, Label: odd, LabelKo: odd, Count: 1}, {}},
			Exact:            odd, Partial: true,
			Help: &Help{DidYouMean: odd, DropFilters: []DropFilter{{Facet: odd, Terms: []string{odd}, Count: 2}, {}}}},
		{Hits: []Hit{{Score: 1e21}, {Score: -2.5e-9}, {Score: 123456789.125}, {Score: 0.1 + 0.2}, {Score: math.SmallestNonzeroFloat64}, {Score: math.MaxFloat64}}},
		{Help: &Help{}},
	}
	for i, res := range crafted {
		got, err := res.body()
		if err != nil {
			t.Fatalf("crafted %d: %v", i, err)
		}
		if want := asEncodingJSON(t, res); !bytes.Equal(got, want) {
			t.Errorf("crafted %d: the encoder wrote\n%s\nencoding/json wrote\n%s", i, got, want)
		}
	}
	if _, err := (&Result{Hits: []Hit{{Score: math.NaN()}}}).body(); err == nil {
		t.Error("a NaN score was encoded; encoding/json refuses it")
	}
}

// FuzzAppendJSONString: any string, valid UTF-8 or not, is written as
// encoding/json writes it.
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", "<mark>a&b</mark>", "\u2028\xff\x00", "노드 \"따옴표\"\n",
		"end\xe2\x80\xa8", "\xe2\x80", "\xed\xa0\x80 surrogate", "\xe0\x80\x80 overlong", "\xc0\xaf", "é\xc3", "😀\xf0\x9f\x98"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSONString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("%q: wrote %s, encoding/json %s", s, got, want)
		}
	})
}
